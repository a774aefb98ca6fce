package batchmode_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

// TestBarrierWaitsForStarvedSibling: a unit's parallel branches form one
// stage even when a sibling starts its call long after the others (a
// starved CPU; issue 28 item 11: 17 stages for 16). The barrier counts the
// unit's branches (llm.Parallel), so it does not fire while one of them is
// still running, whatever the delay; the old settle-delay barrier sent the
// first calls alone and split the stage.
func TestBarrierWaitsForStarvedSibling(t *testing.T) {
	col, err := batchmode.New(context.Background(), batchmode.Config{Provider: &batchmode.Memory{Client: echo()}})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const units, branches = 3, 3
	done := make(chan error, units)
	for u := range units {
		col.Admit()
		go func() {
			defer col.Leave()
			client := col.Wrap(col, int64(u))
			done <- llm.Parallel(ctx, llm.BrancherOf(client), branches, func(ctx context.Context, i int) error {
				if i == branches-1 {
					time.Sleep(300 * time.Millisecond) // the starved sibling
				}
				_, err := client.Chat(ctx, req(fmt.Sprintf("u%d b%d", u, i)))
				if err != nil {
					return err
				}
				_, err = client.Chat(ctx, req(fmt.Sprintf("u%d b%d second", u, i)))
				return err
			})
		}()
	}
	col.Seal()
	for range units {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	st := col.Stats()
	if st.Stages != 2 || fmt.Sprint(st.StageLines) != "[9 9]" {
		t.Fatalf("stages %d %v, want 2 [9 9]", st.Stages, st.StageLines)
	}
}

package teamwork

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// requestLog keeps every request a team sends.
type requestLog struct {
	next llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *requestLog) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.next.Chat(ctx, req)
}

// sorted is the requests in call order (Meta.Order), whatever the concurrency.
func (r *requestLog) sorted() []llm.Request {
	out := append([]llm.Request(nil), r.reqs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Meta.Order < out[j].Meta.Order })
	return out
}

// TestSourceLayoutRequestsUnchanged (issue 37): the requests teamwork sends
// in seed 002's layout (--prompt-layout source, the zero Config's) are byte
// for byte those sent before the layout switch existed: per preset, text and
// JSON, round robin and parallel, the SHA-256 of every request hash (model,
// messages, sampling, seed, schema) on 8 questions of the sample, in order.
// The golden was written by the code before the switch.
func TestSourceLayoutRequestsUnchanged(t *testing.T) {
	qs := sampleQuestions(t, 8)
	model := simFor(t, "default", qs)
	var sb strings.Builder
	for _, preset := range PresetNames() {
		for _, structured := range []bool{false, true} {
			for _, mode := range []DiscussionMode{RoundRobin, Parallel} {
				c, err := ParseComponents(preset, Default())
				if err != nil {
					t.Fatal(err)
				}
				c.Structured, c.Discussion = structured, mode
				team := &Team{Config: c, Model: "sim", Arm: c.Label(), RunSeed: 3}
				h, n := sha256.New(), 0
				for _, q := range qs {
					log := &requestLog{next: model}
					if _, err := team.Run(context.Background(), log, q.Item()); err != nil {
						t.Fatalf("%s: %v", c.Label(), err)
					}
					for _, req := range log.sorted() {
						fmt.Fprintln(h, llm.HashOf(&req))
						n++
					}
				}
				fmt.Fprintf(&sb, "%s json=%v %s: %d requests %x\n", preset, structured, mode, n, h.Sum(nil)[:12])
			}
		}
	}
	golden := filepath.Join("testdata", "source_requests.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("source-layout requests changed:\n got:\n%s\nwant:\n%s", got, want)
	}
}

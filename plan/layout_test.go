package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/teamwork"
)

// TestPromptLayout (issue 37): --prompt-layout reaches teamwork's arms
// (shared: SharedLayout; source or "" from a plan written before the switch:
// seed 002's layout), the sweep key prompt_layout sets it, an unknown value
// is refused naming the flag and the values allowed, and the layout is part
// of the plan (another layout is another plan).
func TestPromptLayout(t *testing.T) {
	hashes := map[string]bool{}
	for _, tc := range []struct {
		layout string
		shared bool
	}{{"shared", true}, {"source", false}, {"", false}} {
		s := defaultSpec()
		s.PromptLayout = tc.layout
		arms, err := s.Arms()
		if err != nil {
			t.Fatal(err)
		}
		if got := arms[0].Protocol.(teamwork.Arm).Config.SharedLayout; got != tc.shared {
			t.Errorf("--prompt-layout %q: SharedLayout %v, want %v", tc.layout, got, tc.shared)
		}
		r, err := Resolve(context.Background(), s, simOpener)
		if err != nil {
			t.Fatal(err)
		}
		hashes[r.Hash] = true
	}
	if len(hashes) != 3 {
		t.Errorf("%d plan hashes for three layout values, want 3", len(hashes))
	}

	s := defaultSpec()
	s.PromptLayout = "tail"
	_, err := Resolve(context.Background(), s, simOpener)
	if err == nil || !IsInput(err) || !strings.Contains(err.Error(), `--prompt-layout "tail": use shared`) {
		t.Errorf("unknown layout: %v, want an input error naming --prompt-layout", err)
	}

	f := filepath.Join(t.TempDir(), "sweep.yaml")
	if err := os.WriteFile(f, []byte("arms: [full]\nprompt_layout: source\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sw := defaultSpec()
	sw.PromptLayout = "shared"
	if err := LoadSweep(f, &sw); err != nil {
		t.Fatal(err)
	}
	if sw.PromptLayout != "source" {
		t.Errorf("sweep prompt_layout: %q, want source", sw.PromptLayout)
	}
}

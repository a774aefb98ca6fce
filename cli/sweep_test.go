package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	tests := []struct {
		file, want string
	}{
		{write("mm.yaml", "models: [sim/default]\narms:\n  - base\n  - mm\n"), "mm.yaml:4: arm \"mm\""},
		{write("key.yaml", "arms: [base]\nturnz: 3\n"), "key.yaml:2: unknown key \"turnz\""},
		{write("empty.yaml", "turns: 2\n"), "arms must be a non-empty list"},
		{write("turns.yaml", "arms: [base]\nturns: 5\n"), "2 or 3"},
	}
	for _, tt := range tests {
		code, _, se := runCLI(t, "sweep", tt.file, "--out", dir)
		if code != exitUsage || !strings.Contains(se, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", filepath.Base(tt.file), code, se, tt.want)
		}
	}
	// The shipped ablation sweep: nine presets, and c7 entirely served by c5's requests.
	code, so, se := runCLI(t, "sweep", "../configs/ablation.yaml", "--limit", "10", "--out", dir)
	if code != 0 {
		t.Fatalf("ablation sweep: %d\n%s\n%s", code, so, se)
	}
	for _, arm := range []string{"base/n3", "c1/n3", "c7/n3", "full/n3"} {
		if !strings.Contains(so, arm) {
			t.Errorf("summary lacks %s:\n%s", arm, so)
		}
	}
	if !strings.Contains(so, "served by an identical earlier request") || strings.Contains(so, " 0 served by") {
		t.Errorf("the sweep reported no shared calls:\n%s", so)
	}
}

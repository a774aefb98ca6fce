package cli

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.x", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	devel := &debug.BuildInfo{GoVersion: "go1.x", Main: debug.Module{Version: "(devel)"}}
	cases := []struct {
		name           string
		bi             *debug.BuildInfo
		stampV, stampR string
		want           string
	}{
		{"vcs stamped", vcs, "", "", "medteam v1.2.3 (revision abc123+dirty, 2026-01-02T03:04:05Z, go1.x)"},
		{"vcs wins over ldflags", vcs, "v0", "def", "medteam v1.2.3 (revision abc123+dirty, 2026-01-02T03:04:05Z, go1.x)"},
		{"ldflags when vcs stamping is off", devel, "v0.9-3-gdef", "def456+dirty", "medteam v0.9-3-gdef (revision def456+dirty, go1.x)"},
		{"nothing known", devel, "", "", "medteam (devel) (revision unknown, go1.x)"},
		{"no build info", nil, "", "", "medteam (devel) (revision unknown)"},
	}
	for _, c := range cases {
		if got := versionOf(c.bi, c.bi != nil, c.stampV, c.stampR).String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestVersionCommandAndFlag(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || !strings.HasPrefix(out, "medteam ") || !strings.Contains(out, "(revision ") {
			t.Errorf("%v: exit %d, out %q, err %q", args, code, out, errOut)
		}
	}
}

// TestDryRunNeedsNoNetwork: a dry run of an openai or ollama model at an
// address where nothing listens prints its plan; before, it failed with
// "cannot reach" (the reachability probe, Ollama's model digest).
func TestDryRunNeedsNoNetwork(t *testing.T) {
	for _, model := range []string{"openai/gpt-4o-mini", "ollama/llama3.1:8b"} {
		code, out, errOut := runCLI(t, "run", "--model", model, "--base-url", "http://127.0.0.1:9", "--config", "base",
			"--limit", "2", "--dry-run", "--out", t.TempDir(), "--cache", "off")
		if code != 0 || !strings.Contains(out, "nothing was sent to any model") {
			t.Errorf("%s: exit %d\n%s\n%s", model, code, out, errOut)
		}
	}
}

// TestTokenTotalsNamed: the progress line and the summary line say which
// token total they show (logical over all arms; sent to the endpoints).
func TestTokenTotalsNamed(t *testing.T) {
	code, out, errOut := runCLI(t, "run", "--config", "base,c1", "--limit", "4", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	all := out + errOut
	for _, want := range []string{"tokens (prompt+completion, all arms)", "tokens sent (prompt + completion of the calls sent)"} {
		if !strings.Contains(all, want) {
			t.Errorf("output lacks %q:\n%s", want, all)
		}
	}
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
)

// TestRunFilesAreOwnerOnly (issue 9 item 4): the run directory is 0700 and
// every file in it — journal, parquet, manifest, lock — and the response
// cache are 0600: they may hold transcripts.
func TestRunFilesAreOwnerOnly(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	out := t.TempDir()
	cachePath := filepath.Join(t.TempDir(), "c", "responses.db")
	if code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
		"--limit", "3", "--config", "base", "--transcripts", "--cache", "rw", "--cache-path", cachePath, "--out", out, "--run-name", "r"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	dir := filepath.Join(out, "r")
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("run directory mode %v (%v), want 0700", st.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(dir)
	files := []string{cachePath}
	for _, e := range entries {
		files = append(files, filepath.Join(dir, e.Name()))
	}
	if len(files) < 5 {
		t.Fatalf("run directory holds only %v", files)
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, st.Mode().Perm())
		}
	}
	// export --salvage of an intact journal recovers every unit.
	code, so, se := runCLI(t, "export", "--salvage", dir)
	if code != 0 || !strings.Contains(so, "3 units recovered, 0 unreadable") {
		t.Fatalf("export --salvage: exit %d\n%s\n%s", code, so, se)
	}
}

// TestOpenAIUnreachableBeforeRun (issue 9 item 1): an openai/ endpoint that
// does not answer is reported before the run starts, and no run directory is
// left behind.
func TestOpenAIUnreachableBeforeRun(t *testing.T) {
	out := t.TempDir()
	start := time.Now()
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", "http://127.0.0.1:1/v1", "--limit", "2",
		"--config", "base", "--cache", "off", "--max-attempts", "1", "--out", out)
	if code != exitError || !strings.Contains(se, "cannot reach http://127.0.0.1:1/v1") || !strings.Contains(se, "medteam models") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s to report an unreachable endpoint", took)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("an unreachable endpoint left %v in --out", entries)
	}
}

// TestReadOnlyRunDirectoryBeforeFirstCall (issue 9 item 4): a run directory
// that cannot be written fails before the first model call.
func TestReadOnlyRunDirectoryBeforeFirstCall(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only directories; run as another user (e.g. su nobody) to exercise this")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	out := t.TempDir()
	dir := filepath.Join(out, "r")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
		"--limit", "3", "--config", "base", "--cache", "off", "--out", out, "--run-name", "r")
	if code == 0 || !strings.Contains(se, "not writable") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if n := srv.ChatRequests(); n != 0 {
		t.Fatalf("%d model calls before the read-only directory was noticed", n)
	}
}

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
)

// hostileSubject is dataset text made to break every sink: a pipe and a
// newline (a Markdown table row), HTML, and terminal escape codes.
const hostileSubject = "Cardio|logy\n<script>alert(1)</script>\x1b[31m"

// writeHostile writes a standard-format dataset whose subjects, ids and
// question text carry hostile text.
func writeHostile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile", "test.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 12 {
		rec := map[string]any{
			"question":   fmt.Sprintf("Q%d \x1b]0;pwned\x07 <img src=x onerror=alert(1)> which?\x1b[2J", i),
			"options":    map[string]string{"A": "one | two", "B": "three\nfour", "C": "<b>five</b>", "D": "six\x1b[1m"},
			"answer_idx": "A",
			"realidx":    fmt.Sprintf("id-%d", i),
			"subject":    hostileSubject,
		}
		line, _ := json.Marshal(rec)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawControl reports the hostile control characters in terminal output.
func rawControl(s string) []string { return rawOf(s, "\x1b", "\x07", "\r") }

// rawHostile reports what of the hostile text reached a Markdown document
// unescaped: control characters, HTML, a pipe.
func rawHostile(s string) []string {
	return rawOf(s, "\x1b", "\x07", "\r", "<script", "<img", "<b>", "Cardio|logy")
}

func rawOf(s string, raws ...string) []string {
	var bad []string
	for _, raw := range raws {
		if strings.Contains(s, raw) {
			bad = append(bad, strconv.Quote(raw))
		}
	}
	return bad
}

// TestDatasetTextEscaped: dataset text reaches datasets show, the
// terminal tables, report.md and check --markdown escaped for each sink
// (issue 28, item 7: it reached them raw — escape codes, HTML, a newline
// that broke a Markdown row).
func TestDatasetTextEscaped(t *testing.T) {
	data := writeHostile(t)
	code, so, se := runCLI(t, "datasets", "show", data, "-n", "1")
	if code != exitOK || len(rawControl(so)) > 0 || !strings.Contains(so, `\x1b]0;pwned\x07`) || !strings.Contains(so, `B) three\x0afour`) {
		t.Errorf("datasets show: exit %d, raw %v\n%s\n%s", code, rawControl(so), so, se)
	}
	out := t.TempDir()
	code, so, se = runCLI(t, "run", "--dataset", data, "--config", "base,full", "--agents", "3", "--out", out, "--run-name", "esc", "--cache", "off")
	if code != exitOK || len(rawControl(so)) > 0 {
		t.Fatalf("run: exit %d, raw %v\n%s\n%s", code, rawControl(so), so, se)
	}
	dir := filepath.Join(out, "esc")
	md, _ := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if bad := rawHostile(string(md)); len(bad) > 0 || !strings.Contains(string(md), `| Cardio\|logy &lt;script>alert(1)&lt;/script>\x1b[31m |`) {
		t.Errorf("report.md: raw %v\n%s", bad, md)
	}
	checkRowsIntact(t, "report.md", string(md))
	th := writeThresholds(t, "thresholds:\n  - {metric: accuracy, subject: "+strconv.Quote(hostileSubject)+", bound: value >= 0}\n")
	cmd := filepath.Join(out, "check.md")
	code, so, se = runCLI(t, "check", "--thresholds", th, "--markdown", cmd, dir)
	if code != exitOK || len(rawControl(so)) > 0 || !strings.Contains(so, `Cardio|logy\x0a<script>`) {
		t.Errorf("check table: exit %d, raw %v\n%s\n%s", code, rawControl(so), so, se)
	}
	b, _ := os.ReadFile(cmd)
	if bad := rawHostile(string(b)); len(bad) > 0 || !strings.Contains(string(b), `Cardio\|logy &lt;script>`) {
		t.Errorf("check --markdown: raw %v\n%s", bad, b)
	}
	checkRowsIntact(t, "check.md", string(b))
}

// checkRowsIntact: every Markdown table row has as many unescaped pipes
// as the header row before it.
func checkRowsIntact(t *testing.T, name, md string) {
	t.Helper()
	want := -1
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "|") {
			want = -1
			continue
		}
		n := strings.Count(l, "|") - strings.Count(l, `\|`)
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("%s: row with %d cells' pipes, header %d: %s", name, n, want, l)
		}
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRepoDocs is the check itself on this repository: README.md is at most
// MaxReadmeLines lines and every relative link of README.md and docs/*.md
// resolves, anchors included.
func TestRepoDocs(t *testing.T) {
	problems, err := Check("../..", MaxReadmeLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The check must have seen the links it vouches for.
	d := Parse(readFile(t, "../../README.md"))
	if len(d.Links) < 10 {
		t.Errorf("README.md: %d links found; the parser reads none of them?", len(d.Links))
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"`medteam run`", "medteam-run"},
		{"`medteam export`, `medteam merge`", "medteam-export-medteam-merge"},
		{"Real models: errors, retries, rate limits, cache", "real-models-errors-retries-rate-limits-cache"},
		{"Batch mode: half the price, stages × turnaround", "batch-mode-half-the-price-stages--turnaround"},
		{"summary.parquet", "summaryparquet"},
		{"A five-minute tour: run → report → view → check", "a-five-minute-tour-run--report--view--check"},
		{"Counts (all from `utils.py`)", "counts-all-from-utilspy"},
		{"Measured (simulator, `sim/default`; not a model result)", "measured-simulator-simdefault-not-a-model-result"},
		{"first-answer", "first-answer"},
		{"snake_case and Ünïcode", "snake_case-and-ünïcode"},
		{"See [the docs](docs/x.md) now", "see-the-docs-now"},
		{"**Bold** <em>tag</em>", "bold-tag"},
	} {
		if got := Slug(tc.heading); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	src := strings.Join([]string{
		"# Title",                              // 1
		"",                                     // 2
		"See [a](a.md#x) and ![img](p.png).",   // 3
		"`[not](code.md)` and ``[nor](x.md)``", // 4
		"```sh",                                // 5
		"# not a heading [nor](fence.md)",      // 6
		"```",                                  // 7
		"## Title",                             // 8
		"[ref]: other.md",                      // 9
		"<a id=\"custom\"></a> [web](https://x.y)", // 10
		"  ~~~",                            // 11
		"  [in](tilde.md)",                 // 12
		"  ~~~",                            // 13
		"### Closing ###",                  // 14
		"[p](f(1).md) [t](t.md \"title\")", // 15
	}, "\n")
	d := Parse(src)
	var links []Link
	links = append(links, d.Links...)
	want := []Link{{3, "a.md#x"}, {3, "p.png"}, {9, "other.md"}, {10, "https://x.y"}, {15, "f(1).md"}, {15, "t.md"}}
	if !reflect.DeepEqual(links, want) {
		t.Errorf("links\n got %v\nwant %v", links, want)
	}
	for _, a := range []string{"title", "title-1", "custom", "closing"} {
		if !d.Anchors[a] {
			t.Errorf("anchor %q missing from %v", a, d.Anchors)
		}
	}
	if len(d.Anchors) != 4 || len(d.Headings) != 3 || d.Lines != 15 {
		t.Errorf("anchors %v, %d headings, %d lines; want 4, 3, 15", d.Anchors, len(d.Headings), d.Lines)
	}
}

// TestCheck runs the checker on a small tree with every kind of problem.
func TestCheck(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "# R\n\n[ok](docs/a.md#part-one) [dir](docs/) [self](#r)\n"+
		"[gone](docs/missing.md) [bad anchor](docs/a.md#part-two) [up](../x.md) [abs](/docs/a.md)\n"+
		"[web](https://example.com/#nope) [src](main.go#L3) [esc](docs/a%20b.md)\n")
	write(t, root, "docs/a.md", "# A\n\n## Part one\n\n[back](../README.md#r) [no](../README.md#s)\n")
	write(t, root, "docs/a b.md", "# spaced\n\n[up](../README.md)\n")
	write(t, root, "docs/orphan.md", "# nobody links here, and it links nowhere\n")
	write(t, root, "main.go", "package main\n")
	problems, err := Check(root, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:5: 5 lines, more than 3",
		`README.md:4: link "docs/missing.md": no file docs/missing.md`,
		`README.md:4: link "docs/a.md#part-two": no heading with anchor #part-two in docs/a.md (anchors: part-one)`,
		`README.md:4: link "../x.md": outside the repository`,
		`README.md:4: link "/docs/a.md": an absolute path`,
		`docs/a.md:5: link "../README.md#s": no heading with anchor #s in README.md`,
		"README.md:1: no link to docs/orphan.md",
		"docs/orphan.md:1: no link back to the README",
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i, w := range want {
		w = strings.TrimSuffix(w, "…")
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, problems[i], w)
		}
	}
	var out bytes.Buffer
	if code := run(&out, root, 3); code != 1 || !strings.Contains(out.String(), "8 problem(s)") {
		t.Errorf("run: exit %d, output\n%s", code, out.String())
	}
}

func FuzzParse(f *testing.F) {
	f.Add("# a\n[x](y.md#z)\n```\n[n](m)\n```\n")
	f.Add("``[a](b)`` [c](<d e>) [f](g(h)i \"t\")\n## a ##\n## a\n")
	f.Add("<a name=\"q\"></a>\n[r]: s\n~~~\n")
	f.Fuzz(func(t *testing.T, src string) {
		d := Parse(src)
		for _, l := range d.Links {
			if l.Line < 1 || l.Line > d.Lines {
				t.Fatalf("link %v outside lines 1..%d", l, d.Lines)
			}
		}
		for _, h := range d.Headings {
			if s := Slug(h.Text); strings.ContainsAny(s, " #`") {
				t.Fatalf("slug %q of %q has a space, # or backtick", s, h.Text)
			}
		}
	})
}

func write(t *testing.T, root, name, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

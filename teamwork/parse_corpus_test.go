package teamwork

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/medteam-bench/medteam/qa"
)

// corpusCase is one file of testdata/answers: a model output of a real-world
// shape, the question's options, and what the parser must read.
//
// Sections: "output" (the text, verbatim but for the final newline that
// txtar adds), "options" (one "A) text" per line), "want" ("ranking: C A" —
// the parsed ranking must start with these letters — or "abstain: <reason>"),
// optionally "kind" (answer, the default; tiebreak with a "tied" section of
// letters; mediate; concern_reply) and "tied". The header says where the
// shape comes from.
type corpusCase struct {
	name, source, output, kind string
	options                    []qa.Option
	tied                       []string
	want                       []string // a ranking prefix, or nil
	reason                     string   // the abstention wanted, or ""
}

func loadCorpusCase(path string) (corpusCase, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return corpusCase{}, err
	}
	c := corpusCase{name: filepath.Base(path), source: strings.TrimSpace(string(ar.Comment)), kind: "answer"}
	if c.source == "" {
		return c, fmt.Errorf("no header saying where the shape comes from")
	}
	seen := map[string]bool{}
	for _, f := range ar.Files {
		if seen[f.Name] {
			return c, fmt.Errorf("section %q twice", f.Name)
		}
		seen[f.Name] = true
		data := string(f.Data)
		switch f.Name {
		case "output":
			c.output = strings.TrimSuffix(data, "\n")
		case "options":
			for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
				l, text, ok := strings.Cut(line, ")")
				if !ok || len(l) != 1 {
					return c, fmt.Errorf("option line %q is not \"A) text\"", line)
				}
				c.options = append(c.options, qa.Option{Letter: l, Text: strings.TrimSpace(text)})
			}
		case "want":
			key, val, ok := strings.Cut(strings.TrimSpace(data), ":")
			val = strings.TrimSpace(val)
			switch {
			case ok && key == "ranking" && val != "":
				c.want = strings.Fields(val)
			case ok && key == "abstain" && val != "":
				c.reason = val
			default:
				return c, fmt.Errorf("want %q is neither \"ranking: …\" nor \"abstain: <reason>\"", data)
			}
		case "kind":
			c.kind = strings.TrimSpace(data)
		case "tied":
			c.tied = strings.Fields(strings.ReplaceAll(data, ",", " "))
		default:
			return c, fmt.Errorf("unknown section %q", f.Name)
		}
	}
	if !seen["output"] || !seen["want"] || c.kind != "tiebreak" && len(c.options) == 0 || c.kind == "tiebreak" && len(c.tied) == 0 {
		return c, fmt.Errorf("missing output, want, options or (for a tie-break) tied")
	}
	return c, nil
}

// run parses the case's output with the parser its kind targets: the
// ranking read (nil when it abstained) and the abstention reason.
func (c corpusCase) run() (got []string, reason string, err error) {
	switch c.kind {
	case "answer":
		a := ParseAnswer(c.output, c.options)
		return a.Ranking, a.Reason, nil
	case "concern_reply":
		a := ParseConcernReply(c.output, c.options).Answer
		return a.Ranking, a.Reason, nil
	case "tiebreak":
		tb := ParseTieBreak(c.output, c.tied)
		if tb.Answer == "" {
			return nil, tb.Reason, nil
		}
		return []string{tb.Answer}, "", nil
	case "mediate":
		md := ParseMediation(c.output, c.options)
		if md.Leaning == "" {
			return nil, md.Reason, nil
		}
		return []string{md.Leaning}, "", nil
	}
	return nil, "", fmt.Errorf("unknown kind %q", c.kind)
}

// TestAnswerCorpus reads every case of testdata/answers and fails on any
// mismatch. A misread — a letter returned where another letter or an
// abstention is wanted — must never happen; the test prints the number of
// cases, the misread rate and the abstention rate (see them with
// go test -run TestAnswerCorpus -v ./teamwork/).
func TestAnswerCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "answers", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 150 {
		t.Errorf("the corpus has %d cases, want at least 150", len(files))
	}
	misread, abstained := 0, 0
	for _, path := range files {
		c, err := loadCorpusCase(path)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
			continue
		}
		got, reason, err := c.run()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(got) == 0 {
			abstained++
		}
		switch {
		case len(got) > 0 && (c.want == nil || got[0] != c.want[0]):
			misread++
			t.Errorf("%s: MISREAD %v, want %s\n  shape: %s", c.name, got, c.describeWant(), c.source)
		case c.want != nil && (len(got) < len(c.want) || !slices.Equal(got[:len(c.want)], c.want)):
			t.Errorf("%s: read %v (abstained: %q), want %s", c.name, got, reason, c.describeWant())
		case c.want == nil && reason != c.reason:
			t.Errorf("%s: abstained with %q, want %q", c.name, reason, c.reason)
		}
	}
	n := len(files)
	summary := fmt.Sprintf("answer corpus: %d cases, misread rate %.1f%% (%d), abstention rate %.1f%% (%d)",
		n, pct(misread, n), misread, pct(abstained, n), abstained)
	t.Log(summary)
	fmt.Println(summary)
}

func (c corpusCase) describeWant() string {
	if c.want == nil {
		return "abstain: " + c.reason
	}
	return "ranking starting " + strings.Join(c.want, " ")
}

func pct(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}

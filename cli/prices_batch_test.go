package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report"
)

// TestReportPricesBatch: a report of batch runs gives the list cost at the
// synchronous rates and the actual spend at the table's batch rates (given,
// else half the synchronous ones) and says so; a mix of batch and
// synchronous runs keeps the synchronous rates for both and says that too.
func TestReportPricesBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prices.yaml")
	table := "models:\n  openai/a: {prompt: 1, completion: 2, batch_prompt: 0.4, batch_completion: 0.8}\n  openai/b: {prompt: 3, completion: 5}\n"
	if err := os.WriteFile(path, []byte(table), 0o600); err != nil {
		t.Fatal(err)
	}
	sync, batch := runInput{}, runInput{batch: true}
	for _, c := range []struct {
		name string
		runs []runInput
		want report.Prices // the paid rates; the list rates are always the synchronous ones
		note string
	}{
		{"sync", []runInput{sync}, report.Prices{"openai/a": {Prompt: 1, Completion: 2}, "openai/b": {Prompt: 3, Completion: 5}}, ""},
		{"batch", []runInput{batch, batch}, report.Prices{"openai/a": {Prompt: 0.4, Completion: 0.8}, "openai/b": {Prompt: 1.5, Completion: 2.5}}, "batch rates"},
		{"mixed", []runInput{sync, batch}, report.Prices{"openai/a": {Prompt: 1, Completion: 2}, "openai/b": {Prompt: 3, Completion: 5}}, "1 of the 2 runs"},
	} {
		list, p, notes, err := reportPrices(path, c.runs)
		if err != nil {
			t.Fatal(err)
		}
		if p == nil {
			p = list
		}
		if list["openai/a"] != (report.Price{Prompt: 1, Completion: 2}) {
			t.Errorf("%s: list rates %+v, want the synchronous ones", c.name, list["openai/a"])
		}
		for m, w := range c.want {
			if p[m] != w {
				t.Errorf("%s: %s priced %+v, want %+v", c.name, m, p[m], w)
			}
		}
		if got := strings.Join(notes, "\n"); (c.note == "") != (got == "") || !strings.Contains(got, c.note) {
			t.Errorf("%s: notes %q, want one with %q", c.name, got, c.note)
		}
	}
	if l, p, notes, err := reportPrices("", []runInput{batch}); l != nil || p != nil || notes != nil || err != nil {
		t.Errorf("no table: %v %v %v", p, notes, err)
	}
}

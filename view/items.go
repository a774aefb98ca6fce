package view

import (
	"sort"
	"strings"
	"unicode"

	"github.com/medteam-bench/medteam/numfmt"
	"github.com/medteam-bench/medteam/results"
)

// excerptRunes is the length of the stem excerpt a grid line shows.
const excerptRunes = 80

// excerpt is the start of a stem on one line: white space collapsed, cut
// at a word boundary near excerptRunes runes, "…" when cut.
func excerpt(stem string) string {
	s := strings.Join(strings.FieldsFunc(stem, unicode.IsSpace), " ")
	r := []rune(s)
	if len(r) <= excerptRunes {
		return s
	}
	cut := excerptRunes
	for i := excerptRunes; i > excerptRunes*3/4; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:") + "…"
}

// NoItemNote is what the question page says when the run kept no question
// text (no items.parquet).
const NoItemNote = "Question text not recorded: this run directory has no " + results.ItemsFile +
	" (the run was made before medteam kept question texts, or rescored from files that hold none). " +
	"Resuming the run writes it without running any question again: medteam run --resume DIR. " +
	"A run made with --transcripts also shows the text in each call's prompt."

// Answer is one arm's answer to a question in one repeat, as the question
// page lists them all.
type Answer struct {
	Col  int    `json:"col"`  // the arm column
	Arm  string `json:"arm"`  // its label
	Rep  int32  `json:"rep"`  // the repeat
	Line int    `json:"line"` // the grid line of that repeat
	S    string `json:"s"`    // correct | wrong | abstained | error
	P    string `json:"p"`    // predicted ("" on an error or abstention)
}

// answers lists every arm's answer to the question of line id, over its
// repeats, arm by arm.
func (d *Data) answers(id int) []Answer {
	l := &d.Lines[id]
	out := []Answer{}
	for _, li := range d.byQuestion[results.ItemKey(l.Dataset, l.Q)] {
		ln := &d.Lines[li]
		for c, cell := range ln.Cells {
			if cell.S != "" {
				out = append(out, Answer{Col: c, Arm: d.Arms[c].Label, Rep: ln.Rep, Line: li, S: cell.S, P: cell.P})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Col < out[j].Col })
	return out
}

// item is the text of line id's question from the first run that kept it.
func (d *Data) item(id int) *results.ItemRow {
	l := &d.Lines[id]
	for _, ref := range l.rows {
		if ref.run < 0 {
			continue
		}
		if it, ok := d.Runs[ref.run].Items[results.ItemKey(l.Dataset, l.Q)]; ok {
			return it
		}
	}
	return nil
}

// Shown is an arm's numbers on the question page, rounded as the report
// rounds them (package numfmt).
type Shown struct {
	Scores      string   `json:"scores"`       // "A 3.000, B 1.000"
	Confidences string   `json:"confidences"`  // final-round confidence per agent, "–" where none was given
	Agreement   string   `json:"agreement"`    // initial → final share of agents on the plurality answer
	Latency     string   `json:"latency"`      // the calls' latency summed, in seconds
	CallLatency []string `json:"call_latency"` // each call's, in the order of ArmDetail.Calls
}

func seconds(ms float64) string { return numfmt.Fnum(ms/1000, 2) + " s" }

// shown rounds a row's and its calls' numbers for the page.
func shown(r *results.QuestionRow, calls []results.CallRow) Shown {
	var s Shown
	var parts []string
	for i, x := range r.Scores {
		parts = append(parts, results.OptionLetter(i)+" "+numfmt.Fnum(x, 3))
	}
	s.Scores = strings.Join(parts, ", ")
	parts = parts[:0]
	for _, c := range r.Confidences {
		if c < 0 {
			parts = append(parts, "–")
		} else {
			parts = append(parts, numfmt.Fnum(c, 2))
		}
	}
	s.Confidences = strings.Join(parts, ", ")
	switch {
	case len(r.Rounds) > 0 && r.NAgents == 1:
		s.Agreement = numfmt.Dash + " (one agent)"
	case len(r.Rounds) > 0:
		s.Agreement = numfmt.Pct(r.AgreementInitial) + "% → " + numfmt.Pct(r.AgreementFinal) + "%"
	}
	s.Latency = seconds(r.CallLatencyMS)
	s.CallLatency = make([]string, len(calls))
	for i, c := range calls {
		s.CallLatency[i] = seconds(c.LatencyMS)
	}
	return s
}

package report

// This file is the quick per-arm table printed at the end of a run
// (Summarize, WriteTable); the full report is Build's.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/results"
)

// ArmSummary aggregates the rows of one arm. Every question row counts in the
// denominator, including abstentions and errors.
type ArmSummary struct {
	Arm               string
	Questions         int
	Correct           int
	Abstained         int // the team gave no answer (parse failures), errors excluded
	Errors            int
	ErrorClasses      map[string]int // errors by class (e.g. context_length, timeout)
	Ties              int
	AgreementInitial  float64 // mean over answered rows
	AgreementFinal    float64
	Unanimous         int
	CallsPerQuestion  float64
	TokensPerQuestion float64
	PromptTokens      int64
	CompletionTokens  int64
	Calls             int64
	ParseFailures     int64
}

// Accuracy is correct / questions (abstentions and errors count as wrong).
func (s ArmSummary) Accuracy() float64 { return ratio(float64(s.Correct), float64(s.Questions)) }

// Coverage is the share of questions the team answered.
func (s ArmSummary) Coverage() float64 {
	return ratio(float64(s.Questions-s.Abstained-s.Errors), float64(s.Questions))
}

// SelectiveAccuracy is correct / answered.
func (s ArmSummary) SelectiveAccuracy() float64 {
	return ratio(float64(s.Correct), float64(s.Questions-s.Abstained-s.Errors))
}

// ConvergenceGain is the mean final agreement minus the mean initial agreement.
func (s ArmSummary) ConvergenceGain() float64 { return s.AgreementFinal - s.AgreementInitial }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Summarize groups rows by arm, in the order arms first appear. When the
// rows span several datasets or models, the groups are dataset · model · arm.
func Summarize(rows []results.QuestionRow) []ArmSummary {
	label := groupLabel(rows)
	var order []string
	by := map[string]*ArmSummary{}
	answered := map[string]int{}
	for _, r := range rows {
		key := label(r)
		s, ok := by[key]
		if !ok {
			s = &ArmSummary{Arm: key}
			by[key] = s
			order = append(order, key)
		}
		if s.add(r) {
			answered[key]++
		}
	}
	out := make([]ArmSummary, 0, len(order))
	for _, a := range order {
		s := by[a]
		s.finish(answered[a])
		out = append(out, *s)
	}
	return out
}

// groupLabel returns the label of a row's group: its arm, or dataset · model
// · arm when the rows span several datasets or models.
func groupLabel(rows []results.QuestionRow) func(results.QuestionRow) string {
	sets, models := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		sets[r.Dataset], models[r.Model] = true, true
	}
	if len(sets) > 1 || len(models) > 1 {
		return func(r results.QuestionRow) string { return r.Dataset + " · " + r.Model + " · " + r.Arm }
	}
	return func(r results.QuestionRow) string { return r.Arm }
}

// add counts row r and reports whether it was answered (not an error); the
// agreements of answered rows are summed, to be averaged by finish.
func (s *ArmSummary) add(r results.QuestionRow) bool {
	s.Questions++
	s.Calls += int64(r.Calls)
	s.PromptTokens += r.PromptTokens
	s.CompletionTokens += r.CompletionTokens
	s.ParseFailures += int64(r.ParseFailures)
	if r.Error != "" {
		s.Errors++
		if s.ErrorClasses == nil {
			s.ErrorClasses = map[string]int{}
		}
		s.ErrorClasses[r.ErrorClass]++
		return false
	}
	if r.Correct {
		s.Correct++
	}
	if r.Abstained {
		s.Abstained++
	}
	if r.Tie {
		s.Ties++
	}
	if r.Unanimous {
		s.Unanimous++
	}
	s.AgreementInitial += r.AgreementInitial
	s.AgreementFinal += r.AgreementFinal
	return true
}

// finish turns the sums into means: agreements over the answered rows,
// calls and tokens over all questions.
func (s *ArmSummary) finish(answered int) {
	n := float64(answered)
	s.AgreementInitial = ratio(s.AgreementInitial, n)
	s.AgreementFinal = ratio(s.AgreementFinal, n)
	s.CallsPerQuestion = ratio(float64(s.Calls), float64(s.Questions))
	s.TokensPerQuestion = ratio(float64(s.PromptTokens+s.CompletionTokens), float64(s.Questions))
}

// WriteTable prints one line per arm.
func WriteTable(w io.Writer, sums []ArmSummary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "arm\tquestions\taccuracy\tabstained\terrors\tagree init\tagree final\tcalls/q\ttokens/q\tparse fail\t")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.0f\t%d\t\n",
			escape.Terminal(s.Arm), s.Questions, 100*s.Accuracy(), s.Abstained, s.Errors,
			s.AgreementInitial, s.AgreementFinal, s.CallsPerQuestion, s.TokensPerQuestion, s.ParseFailures)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sums {
		if len(s.ErrorClasses) == 0 {
			continue
		}
		classes := make([]string, 0, len(s.ErrorClasses))
		for c := range s.ErrorClasses {
			classes = append(classes, c)
		}
		sort.Strings(classes)
		parts := make([]string, len(classes))
		for i, c := range classes {
			parts[i] = fmt.Sprintf("%s %d", c, s.ErrorClasses[c])
		}
		if _, err := fmt.Fprintf(w, "errors in %s: %s\n", escape.Terminal(s.Arm), strings.Join(parts, ", ")); err != nil {
			return err
		}
	}
	return nil
}

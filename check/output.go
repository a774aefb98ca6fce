package check

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/escape"
)

// status is PASS, FAIL or INSUFFICIENT.
func status(r Result) string {
	switch {
	case r.Pass:
		return "PASS"
	case r.Insufficient:
		return "INSUFFICIENT"
	}
	return "FAIL"
}

// WriteTable writes the results as an aligned table, then a summary line
// (requireEvidence: an inconclusive check fails the gate, see Red).
func WriteTable(w io.Writer, rs []Result, requireEvidence bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threshold\twhere\tobserved\tbound\tresult\tdetail")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\n", escape.Terminal(r.Name), escape.Terminal(r.Where), Format(r.Observed), r.Op, Format(r.Bound), status(r), escape.Terminal(r.Detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Summary(rs, requireEvidence))
	return err
}

// Summary is one line: how many checks passed, failed, or could not be
// decided (insufficient evidence). Without requireEvidence an undecided
// check passes the gate with a warning.
func Summary(rs []Result, requireEvidence bool) string {
	f, in := Failed(rs), Insufficient(rs)
	switch {
	case f > 0 && in > 0:
		return fmt.Sprintf("gate FAILED: %d of %d checks failed; insufficient evidence for %d more", f, len(rs), in)
	case f > 0:
		return fmt.Sprintf("gate FAILED: %d of %d checks failed", f, len(rs))
	case in > 0 && requireEvidence:
		return fmt.Sprintf("insufficient evidence: %d of %d checks could not be decided (--require-evidence); the others passed", in, len(rs))
	case in > 0:
		return fmt.Sprintf("gate passed with a WARNING: %d of %d checks inconclusive (insufficient evidence: not shown non-inferior, not shown worse; see the questions needed), the others passed; --require-evidence fails on this (exit 8)", in, len(rs))
	}
	return fmt.Sprintf("gate passed: %d of %d checks", len(rs), len(rs))
}

// WriteMarkdown writes the results as a Markdown table (for CI step
// summaries).
func WriteMarkdown(w io.Writer, rs []Result, requireEvidence bool) error {
	var b strings.Builder
	sum := Summary(rs, requireEvidence)
	if Insufficient(rs) > 0 && !Red(rs, requireEvidence) {
		sum = "> [!WARNING]\n> " + sum
	}
	fmt.Fprintf(&b, "## medteam check\n\n%s\n\n", sum)
	b.WriteString("| | threshold | where | observed | bound | detail |\n|---|---|---|---:|---|---|\n")
	for _, r := range rs {
		mark := "✅"
		switch {
		case r.Insufficient:
			mark = "❔"
		case !r.Pass:
			mark = "❌"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s %s | %s |\n", mark, escape.Code(r.Name), escape.Markdown(r.Where), Format(r.Observed), r.Op, Format(r.Bound), escape.Markdown(r.Detail))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonResult is a Result as JSON: NaN becomes null.
type jsonResult struct {
	Name     string   `json:"name"`
	Arm      string   `json:"arm"`
	Where    string   `json:"where"`
	Pos      string   `json:"pos,omitempty"`
	Observed *float64 `json:"observed"`
	Op       string   `json:"op"`
	Bound    float64  `json:"bound"`
	Pass     bool     `json:"pass"`
	Verdict  string   `json:"verdict"` // pass, fail or insufficient
	Power    *float64 `json:"power,omitempty"`
	Needed   int      `json:"questions_needed,omitempty"` // for 80% power
	Detail   string   `json:"detail"`
}

// JSONReport is what --json prints.
type JSONReport struct {
	Pass         bool         `json:"pass"`
	Warning      bool         `json:"warning,omitempty"` // passed with inconclusive checks
	Failed       int          `json:"failed"`
	Insufficient int          `json:"insufficient"`
	Total        int          `json:"total"`
	Results      []jsonResult `json:"results"`
	Notes        []string     `json:"notes,omitempty"`
}

// WriteJSON writes the results and notes as one JSON document; pass is
// whether the gate passes (see Red).
func WriteJSON(w io.Writer, rs []Result, notes []string, requireEvidence bool) error {
	out := JSONReport{Pass: !Red(rs, requireEvidence), Warning: Insufficient(rs) > 0 && !Red(rs, requireEvidence), Failed: Failed(rs), Insufficient: Insufficient(rs), Total: len(rs), Notes: notes, Results: []jsonResult{}}
	for _, r := range rs {
		j := jsonResult{Name: r.Name, Arm: r.Arm, Where: r.Where, Pos: r.Pos, Op: r.Op, Bound: r.Bound, Pass: r.Pass,
			Verdict: strings.ToLower(status(r)), Detail: r.Detail, Needed: r.QuestionsNeeded}
		if r.Power != 0 && !math.IsNaN(r.Power) {
			p := r.Power
			j.Power = &p
		}
		if !math.IsNaN(r.Observed) {
			x := r.Observed
			j.Observed = &x
		}
		out.Results = append(out.Results, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// JUnit schema (the Ant/Jenkins JUnit XML that GitLab and Jenkins read).
type (
	// JUnitSuites is the <testsuites> root.
	JUnitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []JUnitSuite `xml:"testsuite"`
	}
	// JUnitSuite is one <testsuite>.
	JUnitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      string      `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Hostname  string      `xml:"hostname,attr,omitempty"`
		Cases     []JUnitCase `xml:"testcase"`
	}
	// JUnitCase is one <testcase>: one threshold on one group.
	JUnitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *JUnitFailure `xml:"failure"`
		// Skipped marks a check the evidence could not decide.
		Skipped *JUnitSkipped `xml:"skipped"`
	}
	// JUnitSkipped says why a case was not decided.
	JUnitSkipped struct {
		Message string `xml:"message,attr"`
	}
	// JUnitFailure says why a case failed.
	JUnitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// JUnit is the results as a JUnit document: one suite, one test case per
// result, classname = the arm (so that GitLab and Jenkins group the cases
// by arm), name = the threshold and where it was checked.
func JUnit(rs []Result) JUnitSuites {
	s := JUnitSuite{Name: "medteam check", Tests: len(rs), Failures: Failed(rs), Skipped: Insufficient(rs), Time: "0"}
	for _, r := range rs {
		c := JUnitCase{Name: r.Name + " [" + r.Where + "]", Classname: r.Arm, Time: "0"}
		if c.Classname == "" {
			c.Classname = "medteam"
		}
		if r.Insufficient {
			c.Skipped = &JUnitSkipped{Message: "inconclusive, not gated: " + r.Detail}
		}
		if !r.Pass && !r.Insufficient {
			msg := fmt.Sprintf("observed %s, bound %s %s", Format(r.Observed), r.Op, Format(r.Bound))
			text := r.Detail
			if r.Pos != "" {
				text = r.Pos + ": " + text
			}
			c.Failure = &JUnitFailure{Message: msg, Type: "threshold", Text: text}
		}
		s.Cases = append(s.Cases, c)
	}
	return JUnitSuites{Name: "medteam check", Tests: s.Tests, Failures: s.Failures, Suites: []JUnitSuite{s}}
}

// WriteJUnit writes the results as JUnit XML.
// requireEvidence is accepted for the writers' common signature: an
// undecided check is a skipped case either way.
func WriteJUnit(w io.Writer, rs []Result, _ bool) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(JUnit(rs)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

package plot_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/medteam-bench/medteam/report/plot"
)

// TestNoArmDropped: with 13 arms (past MaxOverlaid) every line figure and
// the per-subject figure name every arm (small multiples), the reference
// in the header, and an arm without data with its reason. Before small
// multiples the figures drew "first 12 of 13 arms" and dropped the last.
func TestNoArmDropped(t *testing.T) {
	for _, n := range []int{3, 13, 24} {
		var rel []plot.ReliabilitySeries
		var rc []plot.RiskCoverageSeries
		var ag []plot.AgreementSeries
		var cells []plot.SubjectCell
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("arm%02d", i)
			ref := i == n-1 // the reference last: the one the cap used to drop
			r := plot.ReliabilitySeries{Name: name, Reference: ref}
			c := plot.RiskCoverageSeries{Name: name, Reference: ref}
			a := plot.AgreementSeries{Name: name, Reference: ref, Reason: "a single answer"}
			if i != 1 { // arm01 has no confidences and no rounds
				for b := 0; b < 4; b++ {
					v := 0.2 + 0.2*float64(b)
					r.Bins = append(r.Bins, plot.ReliabilityBin{MeanConfidence: v, Accuracy: v * 0.9, Count: 10, Lo: v * 0.8, Hi: v})
					c.Points = append(c.Points, plot.RiskCoveragePoint{Coverage: v, Risk: 0.1 + 0.01*float64(i)})
					a.Points = append(a.Points, plot.RoundPoint{Round: b, Mean: v, Lo: v - 0.05, Hi: v + 0.05})
				}
			}
			rel, rc, ag = append(rel, r), append(rc, c), append(ag, a)
			for s := 0; s < 3; s++ {
				cells = append(cells, plot.SubjectCell{Subject: fmt.Sprintf("subj%d", s), Arm: name, Count: 30, Accuracy: 0.6, Lo: 0.5, Hi: 0.7, Reference: ref})
			}
		}
		figs := map[string]func() ([]byte, error){
			"reliability": func() ([]byte, error) { return plot.Reliability(rel) },
			"risk":        func() ([]byte, error) { return plot.RiskCoverage(rc) },
			"agreement":   func() ([]byte, error) { return plot.AgreementByRound(ag) },
			"subjects":    func() ([]byte, error) { return plot.SubjectBreakdown(cells) },
		}
		for name, f := range figs {
			svg, err := f()
			if err != nil {
				t.Fatal(err)
			}
			wellFormed(t, svg)
			for i := 0; i < n; i++ {
				arm := fmt.Sprintf("arm%02d", i)
				if !bytes.Contains(svg, []byte(arm)) {
					t.Errorf("%d arms, %s: %s is not named", n, name, arm)
				}
			}
			if bytes.Contains(svg, []byte(" of ")) && bytes.Contains(svg, []byte("first ")) {
				t.Errorf("%d arms, %s: says it left arms out", n, name)
			}
			multiples := bytes.Contains(svg, []byte("One panel per arm"))
			if multiples != (n > plot.MaxOverlaid) {
				t.Errorf("%d arms, %s: small multiples %v", n, name, multiples)
			}
			if multiples && !bytes.Contains(svg, []byte(fmt.Sprintf("the reference, arm%02d, in every panel", n-1))) {
				t.Errorf("%d arms, %s: the reference is not named as in every panel", n, name)
			}
			want := map[string]string{"reliability": "No data (no stated confidence): arm01.",
				"risk": "No data (no stated confidence): arm01.", "agreement": "No data (a single answer): arm01."}[name]
			if want != "" && !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%d arms, %s: missing %q", n, name, want)
			}
		}
	}
}

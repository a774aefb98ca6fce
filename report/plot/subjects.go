package plot

import (
	"fmt"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SubjectCell is one arm's accuracy on one subject, with a 95% interval
// (fractions), and the number of questions of that subject.
type SubjectCell struct {
	Subject, Arm     string
	Count            int
	Accuracy, Lo, Hi float64
}

// Limits of the per-subject figure; past them it shows the top subjects by
// question count and the first arms, and says so.
const (
	MaxSubjects    = 20
	MaxSubjectArms = 10
)

// subjectTable is the cells arranged for drawing.
type subjectTable struct {
	subjects []string       // top to bottom
	counts   map[string]int // questions per subject (the largest Count given)
	arms     []string       // in order of first appearance
	cell     map[[2]string]SubjectCell
	note     string
}

func tabulateSubjects(cells []SubjectCell) subjectTable {
	t := subjectTable{counts: map[string]int{}, cell: map[[2]string]SubjectCell{}}
	seenArm := map[string]bool{}
	for _, c := range cells {
		if !ok(c.Accuracy) {
			continue
		}
		if _, seen := t.counts[c.Subject]; !seen {
			t.subjects = append(t.subjects, c.Subject)
		}
		t.counts[c.Subject] = max(t.counts[c.Subject], c.Count)
		if !seenArm[c.Arm] {
			seenArm[c.Arm] = true
			t.arms = append(t.arms, c.Arm)
		}
		t.cell[[2]string{c.Subject, c.Arm}] = c
	}
	sort.SliceStable(t.subjects, func(a, b int) bool {
		ca, cb := t.counts[t.subjects[a]], t.counts[t.subjects[b]]
		if ca != cb {
			return ca > cb
		}
		return t.subjects[a] < t.subjects[b]
	})
	var notes []string
	if len(t.subjects) > MaxSubjects {
		notes = append(notes, fmt.Sprintf("top %d of %d subjects by question count", MaxSubjects, len(t.subjects)))
		t.subjects = t.subjects[:MaxSubjects]
	}
	if len(t.arms) > MaxSubjectArms {
		notes = append(notes, fmt.Sprintf("first %d of %d arms", MaxSubjectArms, len(t.arms)))
		t.arms = t.arms[:MaxSubjectArms]
	}
	t.note = strings.Join(notes, "; ")
	return t
}

// SubjectBreakdown draws accuracy per subject as grouped horizontal bars:
// one group per subject (most questions at the top, at most MaxSubjects),
// one bar per arm in the order the arms first appear (at most
// MaxSubjectArms), each with its 95% interval.
func SubjectBreakdown(cells []SubjectCell) ([]byte, error) {
	t := tabulateSubjects(cells)
	if len(t.subjects) == 0 {
		return noData(KindSubjects, "Accuracy by subject")
	}
	unit := vg.Length(10)
	if len(t.arms) >= 6 {
		unit = 6.5
	}
	units := len(t.subjects) * (len(t.arms) + 1)
	h := 72 + unit*vg.Length(units)
	aria := fmt.Sprintf("Accuracy by subject for %d subjects and %d arms, with 95%% intervals", len(t.subjects), len(t.arms))
	return render(KindSubjects, aria, figWidth, h, func(c draw.Canvas) { drawSubjects(c, t) })
}

func drawSubjects(c draw.Canvas, t subjectTable) {
	p := newPlot("accuracy (%)", "")
	s, a := len(t.subjects), len(t.arms)
	var bars rects
	ws := whiskers{horizontal: true, style: draw.LineStyle{Color: black, Width: 0.8}, cap: 3}
	var ticks gplot.ConstantTicks
	xs := span{0, 100, true}
	for j, subj := range t.subjects {
		base := float64((s - 1 - j) * (a + 1))
		name := fmt.Sprintf("%s (n=%d)", cleanLabel(subj, 28), t.counts[subj])
		ticks = append(ticks, gplot.Tick{Value: base + float64(a-1)/2, Label: name})
		for k, arm := range t.arms {
			cell, found := t.cell[[2]string{subj, arm}]
			if !found {
				continue
			}
			y := base + float64(a-1-k)
			acc := pct(cell.Accuracy)
			xs.add(acc)
			bars = append(bars, rect{x0: 0, x1: acc, y0: y - 0.42, y1: y + 0.42, fill: seriesColor(k)})
			if lo, hi, has := ci(cell.Lo, cell.Hi); has {
				xs.add(lo, hi)
				ws.ivs = append(ws.ivs, interval{at: y, lo: lo, hi: hi})
			}
		}
	}
	p.Add(grid(true, false), bars, ws)
	p.Y.Tick.Marker = ticks
	p.Y.Tick.Length, p.Y.Width = 0, 0
	p.Y.Min, p.Y.Max = -0.7, float64(s*(a+1))-1.3
	setRange(&p.X, xs, 0.02)
	p.Title.Text = t.note
	items := make([]legendItem, a)
	for k, arm := range t.arms {
		items[k] = legendItem{name: arm, clr: seriesColor(k), bar: true}
	}
	drawWithLegend(c, p, items)
}

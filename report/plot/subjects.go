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
// Reference marks the reference arm's cells (drawn in every panel of
// small multiples).
type SubjectCell struct {
	Subject, Arm     string
	Count            int
	Accuracy, Lo, Hi float64
	Reference        bool
}

// MaxSubjects is the most subjects the per-subject figure shows: past it,
// the top subjects by question count, and the figure says so. Every arm is
// drawn: past MaxOverlaid arms the figure becomes small multiples.
const MaxSubjects = 20

// subjectTable is the cells arranged for drawing.
type subjectTable struct {
	subjects []string       // top to bottom
	counts   map[string]int // questions per subject (the largest Count given)
	arms     []string       // in order of first appearance
	ref      map[string]bool
	cell     map[[2]string]SubjectCell
	note     string
}

func tabulateSubjects(cells []SubjectCell) subjectTable {
	t := subjectTable{counts: map[string]int{}, cell: map[[2]string]SubjectCell{}, ref: map[string]bool{}}
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
		if c.Reference {
			t.ref[c.Arm] = true
		}
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
	t.note = strings.Join(notes, "; ")
	return t
}

// SubjectBreakdown draws accuracy per subject as grouped horizontal bars:
// one group per subject (most questions at the top, at most MaxSubjects),
// one bar per arm in the order the arms first appear, each with its 95%
// interval. Past MaxOverlaid arms it draws small multiples instead: one
// panel per arm (accuracy as a dot with its interval per subject), the
// reference arm's dots in gray in every panel.
func SubjectBreakdownFigure(cells []SubjectCell) Figure {
	t := tabulateSubjects(cells)
	if len(t.subjects) == 0 {
		return noDataFigure(KindSubjects, "Accuracy by subject")
	}
	if pa := t.panelArms(); pa != nil {
		cols := panelCols(len(pa))
		rows := (len(pa) + cols - 1) / cols
		h := vg.Length(rows)*(vg.Length(len(t.subjects))*11+60) + 2*noteLine
		aria := fmt.Sprintf("Accuracy by subject for %d subjects and %d arms, one panel per arm, with 95%% intervals", len(t.subjects), len(t.arms))
		return newFigure(KindSubjects, aria, figWidth, h, func(c draw.Canvas) { drawSubjectPanels(c, t, pa) })
	}
	unit := vg.Length(10)
	if len(t.arms) >= 6 {
		unit = 6.5
	}
	units := len(t.subjects) * (len(t.arms) + 1)
	h := 72 + unit*vg.Length(units)
	aria := fmt.Sprintf("Accuracy by subject for %d subjects and %d arms, with 95%% intervals", len(t.subjects), len(t.arms))
	return newFigure(KindSubjects, aria, figWidth, h, func(c draw.Canvas) { drawSubjects(c, t) })
}

// SubjectBreakdown is SubjectBreakdownFigure drawn as SVG.
func SubjectBreakdown(cells []SubjectCell) ([]byte, error) {
	return SubjectBreakdownFigure(cells).SVG()
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

// panelArms is the arms that get a panel of their own, or nil when one
// panel of grouped bars shows them all.
func (t subjectTable) panelArms() []string {
	if len(t.arms) <= MaxOverlaid {
		return nil
	}
	var out []string
	for _, a := range t.arms {
		if !t.ref[a] {
			out = append(out, a)
		}
	}
	return out
}

// drawSubjectPanels draws one panel per arm of pa: a dot and a 95%
// interval per subject, on a shared accuracy axis, the reference arms'
// dots in gray beneath.
func drawSubjectPanels(c draw.Canvas, t subjectTable, pa []string) {
	c = drawHead(c, subjectPanelsHead(t))
	sp := subjectPanels{t: t, xs: span{0, 100, true}, s: len(t.subjects)}
	for _, cell := range t.cell {
		if lo, hi, has := ci(cell.Lo, cell.Hi); has {
			sp.xs.add(lo, hi)
		}
	}
	for j, subj := range t.subjects {
		y := float64(sp.s - 1 - j)
		sp.ticks = append(sp.ticks, gplot.Tick{Value: y, Label: fmt.Sprintf("%s (n=%d)", cleanLabel(subj, 22), t.counts[subj])})
		sp.blank = append(sp.blank, gplot.Tick{Value: y})
	}
	cols := panelCols(len(pa))
	rows := (len(pa) + cols - 1) / cols
	plots := make([][]*gplot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*gplot.Plot, cols)
	}
	for i, arm := range pa {
		plots[i/cols][i%cols] = sp.panel(arm, i%cols)
	}
	drawPanelGrid(c, plots, "accuracy (%)", "")
}

// subjectPanelsHead is the line above the panels: what they show and which
// arms are the gray reference.
func subjectPanelsHead(t subjectTable) string {
	var refs []string
	for _, a := range t.arms {
		if t.ref[a] {
			refs = append(refs, cleanLabel(a, labelRunes))
		}
	}
	head := "One panel per arm"
	if len(refs) > 0 {
		head += "; gray rings: the reference, " + strings.Join(refs, ", ") + ", in every panel"
	}
	if t.note != "" {
		head += "; " + t.note
	}
	return head + "."
}

// subjectPanels is what every panel of drawSubjectPanels shares: the table,
// the accuracy span, the subject ticks (labelled in the first column).
type subjectPanels struct {
	t            subjectTable
	xs           span
	s            int // subjects
	ticks, blank gplot.ConstantTicks
}

// panel is one arm's panel; col 0 carries the subject labels.
func (sp subjectPanels) panel(arm string, col int) *gplot.Plot {
	t, s := sp.t, sp.s
	p := newPlot("", "")
	p.Title.Text = cleanLabel(arm, labelRunes)
	p.Title.TextStyle.Font.Size = tickSize
	var ms marks
	ws := whiskers{horizontal: true, style: draw.LineStyle{Color: palette[0], Width: 0.8}, cap: 3}
	for j, subj := range t.subjects {
		y := float64(s - 1 - j)
		ms = append(ms, sp.refMarks(subj, y)...)
		cell, found := t.cell[[2]string{subj, arm}]
		if !found {
			continue
		}
		if lo, hi, has := ci(cell.Lo, cell.Hi); has {
			ws.ivs = append(ws.ivs, interval{at: y, lo: lo, hi: hi})
		}
		ms = append(ms, mark{x: pct(cell.Accuracy), y: y, g: draw.GlyphStyle{Color: palette[0], Radius: 2.5, Shape: draw.CircleGlyph{}}})
	}
	p.Add(grid(true, true), ws, ms)
	p.X.Tick.Marker = fewTicks{}
	p.Y.Tick.Marker = sp.blank
	if col == 0 {
		p.Y.Tick.Marker = sp.ticks
	}
	p.Y.Tick.Length = 0
	p.Y.Min, p.Y.Max = -0.7, float64(s)-0.3
	setRange(&p.X, sp.xs, 0.02)
	return p
}

// refMarks are the reference arms' gray rings of one subject row.
func (sp subjectPanels) refMarks(subj string, y float64) marks {
	var ms marks
	for _, ra := range sp.t.arms {
		if !sp.t.ref[ra] {
			continue
		}
		if rc, found := sp.t.cell[[2]string{subj, ra}]; found {
			ms = append(ms, mark{x: pct(rc.Accuracy), y: y, g: draw.GlyphStyle{Color: refColor, Radius: 3, Shape: draw.RingGlyph{}}})
		}
	}
	return ms
}

package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/medteam-bench/medteam/results"
)

// progressCounts are what a progress line shows: the whole plan's units and
// the tallies of every committed unit, those an earlier invocation
// committed (a resume) included, so that accuracy, calls, tokens and errors
// describe the same units as done/total.
type progressCounts struct {
	total  int // units of the plan
	done   int // units committed, before included
	before int // of done, those committed before this invocation
	// Tallies of the done units: calls and tokens are logical totals, as
	// the rows count them (every arm's calls and their prompt + completion
	// tokens, shared or cached ones included).
	correct, errors int
	calls, tokens   int64
}

// add counts one committed unit's row.
func (c *progressCounts) add(r *results.QuestionRow) {
	c.done++
	if r.Correct {
		c.correct++
	}
	if r.Error != "" {
		c.errors++
	}
	c.calls += int64(r.Calls)
	c.tokens += r.PromptTokens + r.CompletionTokens
}

// status is the tallies: "acc 71.0% · 1109 calls · … · 0 errors".
func (c progressCounts) status() string {
	return fmt.Sprintf("acc %.1f%% · %d calls · %d tokens (prompt+completion, all arms) · %d errors",
		100*float64(c.correct)/float64(max(1, c.done)), c.calls, c.tokens, c.errors)
}

// eta is the time the units left take at this invocation's pace (the
// units done before it took no time in it); "" before its first unit and
// at the end.
func (c progressCounts) eta(elapsed time.Duration) string {
	now := c.done - c.before
	if now <= 0 || c.done >= c.total {
		return ""
	}
	return (elapsed / time.Duration(now) * time.Duration(c.total-c.done)).Round(time.Second).String()
}

// pct is done as a whole percentage of the plan.
func (c progressCounts) pct() int { return 100 * c.done / max(1, c.total) }

// line is the plain progress line (CI logs): "  22/100 (22%, 21 done
// before) in 2ms, eta 0s: acc …".
func (c progressCounts) line(elapsed time.Duration) string {
	where := fmt.Sprintf("%d%%", c.pct())
	if c.before > 0 {
		where += fmt.Sprintf(", %d done before", c.before)
	}
	eta := ""
	if e := c.eta(elapsed); e != "" {
		eta = ", eta " + e
	}
	return fmt.Sprintf("  %d/%d (%s) in %s%s: %s", c.done, c.total, where, elapsed.Round(time.Millisecond), eta, c.status())
}

// barText is the description beside a terminal bar, which itself shows
// done/total of the whole plan and the elapsed time.
func (c progressCounts) barText(elapsed time.Duration) string {
	s := c.status()
	if c.before > 0 {
		s += fmt.Sprintf(" · %d done before", c.before)
	}
	if e := c.eta(elapsed); e != "" {
		s += " · eta " + e
	}
	return s
}

// progress shows how a run stands: a live bar on a terminal, plain log lines
// (every 10% of the plan and at least every 30 s) otherwise, e.g. in CI.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      *progressbar.ProgressBar
	start    time.Time
	counts   progressCounts
	lastLine time.Time
	nextPct  int
}

// newProgress prints to w; a bar is used when w is a terminal.
func newProgress(w io.Writer, total int, label string) *progress {
	p := &progress{w: w, start: time.Now(), counts: progressCounts{total: total}, lastLine: time.Now(), nextPct: 10}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false), // the description has the eta at this invocation's pace
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	}
	return p
}

// note prints a line (a warning) between progress updates.
func (p *progress) note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(p.w, msg)
}

// committed accounts for a unit an earlier invocation committed (a
// resume): counted in done and in every tally, not in this invocation's
// pace.
func (p *progress) committed(r *results.QuestionRow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.add(r)
	p.counts.before++
	p.nextPct = max(p.nextPct, (p.counts.pct()/10+1)*10)
}

// resumed starts the bar at the units committed before this invocation
// (one step, not one per unit), with their tallies beside it.
func (p *progress) resumed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil && p.counts.before > 0 {
		p.bar.Set(p.counts.done)
		p.bar.Describe(p.counts.barText(0))
	}
}

// add records one finished unit.
func (p *progress) add(r *results.QuestionRow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts.add(r)
	c := p.counts
	if p.bar != nil {
		p.bar.Describe(c.barText(time.Since(p.start)))
		p.bar.Add(1)
		return
	}
	if pct := c.pct(); pct >= p.nextPct || c.done == c.total || time.Since(p.lastLine) >= 30*time.Second {
		for p.nextPct <= pct {
			p.nextPct += 10
		}
		p.lastLine = time.Now()
		fmt.Fprintln(p.w, c.line(time.Since(p.start)))
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

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

// progress shows how a run stands: a live bar on a terminal, plain log lines
// (every 10% of the plan and at least every 30 s) otherwise, e.g. in CI.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	bar      *progressbar.ProgressBar
	start    time.Time
	total    int
	done     int
	correct  int
	errors   int
	calls    int64
	tokens   int64
	lastLine time.Time
	nextPct  int
}

// newProgress prints to w; a bar is used when w is a terminal.
func newProgress(w io.Writer, total int, label string) *progress {
	p := &progress{w: w, start: time.Now(), total: total, lastLine: time.Now(), nextPct: 10}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
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

// skip accounts for units finished by an earlier (resumed) invocation.
func (p *progress) skip(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.bar != nil {
		p.bar.Add(n)
	}
}

// add records one finished unit.
func (p *progress) add(r *results.QuestionRow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Correct {
		p.correct++
	}
	if r.Error != "" {
		p.errors++
	}
	p.calls += int64(r.Calls)
	p.tokens += r.PromptTokens + r.CompletionTokens
	// Logical totals, as the rows count them: every arm's calls and their
	// prompt + completion tokens, shared or cached ones included.
	status := fmt.Sprintf("acc %.1f%% · %d calls · %d tokens (prompt+completion, all arms) · %d errors", 100*float64(p.correct)/float64(max(1, p.done)), p.calls, p.tokens, p.errors)
	if p.bar != nil {
		p.bar.Describe(status)
		p.bar.Add(1)
		return
	}
	pct := 100 * p.done / max(1, p.total)
	if pct >= p.nextPct || p.done == p.total || time.Since(p.lastLine) >= 30*time.Second {
		for p.nextPct <= pct {
			p.nextPct += 10
		}
		p.lastLine = time.Now()
		el := time.Since(p.start)
		eta := ""
		if p.done > 0 && p.done < p.total {
			eta = fmt.Sprintf(", eta %s", (el / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second))
		}
		fmt.Fprintf(p.w, "  %d/%d (%d%%) in %s%s: %s\n", p.done, p.total, pct, el.Round(time.Millisecond), eta, status)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

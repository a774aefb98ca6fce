package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/plan"
)

// load measures what the endpoints served during a run, so that the end of
// a run says whether the endpoint or the harness was the limit.
type load struct {
	start  time.Time
	eps    []*plan.Endpoint
	before []llm.LimiterStats
}

func startLoad(eps []*plan.Endpoint) *load {
	l := &load{start: time.Now(), eps: eps}
	for _, ep := range eps {
		var st llm.LimiterStats
		if ep.Limits != nil {
			st = ep.Limits()
		}
		l.before = append(l.before, st)
	}
	return l
}

// report prints, per real endpoint with a limiter, the requests sent and their
// rate, the mean and peak calls in flight against the limiter's cap, and the
// 429s seen; and which was the limit.
func (l *load) report(w io.Writer, parallel int) {
	wall := time.Since(l.start)
	for i, ep := range l.eps {
		if ep.Limits == nil || ep.Sim || wall <= 0 { // the simulator's timing means nothing
			continue
		}
		now := ep.Limits()
		attempts := now.Attempts - l.before[i].Attempts
		if attempts == 0 {
			continue
		}
		mean := float64(now.SlotTime-l.before[i].SlotTime) / float64(wall)
		fmt.Fprintf(w, "endpoint %s: %d requests in %.1f s (%.1f/s), %.1f in flight on average and %d at most, limiter cap %d now; %d answered 429\n",
			ep.Ref.Name, attempts, wall.Seconds(), float64(attempts)/wall.Seconds(), mean, now.Peak, now.Limit, now.RateLimited-l.before[i].RateLimited)
		if mean < 0.8*float64(now.Limit) {
			fmt.Fprintln(w, harnessHint(parallel))
		}
	}
}

// harnessHint says what to do when the harness kept fewer calls in flight
// than the endpoint's cap allowed.
func harnessHint(parallel int) string {
	if parallel > 0 {
		return fmt.Sprintf("  the harness kept fewer calls in flight than the endpoint's cap allowed: --parallel %d fixes the questions in flight; drop it (0, the default, follows the endpoint's capacity) or raise it", parallel)
	}
	return "  the harness kept fewer calls in flight than the endpoint's cap allowed (ramp-up and the run's last questions count in the mean; on a long run, the ceiling of 1024 questions in flight, or the CPU, was the limit)"
}

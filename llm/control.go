package llm

import (
	"math"
	"time"
)

// Controller constants (see controller).
const (
	ctlWarmup    = 10    // samples averaged before the gradient applies
	ctlShort     = 0.1   // EWMA weight of the short-term latency (≈ the last 10 samples)
	ctlLong      = 0.1   // EWMA weight per round trip of the long-term latency while not queueing (≈ 10 round trips)
	ctlLongSlow  = 0.002 // … while queueing (≈ 500 round trips), so a queue does not soon become the baseline
	ctlTolerance = 1.5   // latency may grow to this multiple of the baseline before the cap shrinks
	ctlQueue     = 4     // calls the controller aims to keep queued at the endpoint beyond its capacity
	ctlSmoothing = 0.2   // weight per round trip of each new target in the cap
)

// controller is the Limiter's decision rule, a pure function of what the
// attempts report (no clock, no locks): it turns each attempt's outcome and
// latency into the cap on calls in flight. Like TCP congestion control it
// has a slow start and two congestion signals:
//
//   - Slow start: from the initial cap, every success with at least half of
//     the slots in use grows the cap by one, so it doubles every round trip
//     until the first sign of congestion (or Max).
//   - Latency gradient (Netflix concurrency-limits, Gradient2): a long-term
//     latency baseline (an EWMA over ≈10 round trips of the cap's calls,
//     learnt ten times slower while the endpoint is queueing, so a queue
//     takes ≈100 round trips to pass for normal) and a short-term one (≈10
//     samples) give gradient = clamp(1.5 × long / short, 0.5, 1): 1 while
//     latency stays within 1.5× the baseline, below 1 once calls queue at
//     the endpoint. Below 1 it ends slow start; from then on, each round
//     trip moves the cap a fifth of the way to cap × gradient + 4 (the
//     update is spread over the round trip's successes), so it grows by
//     0.8 per round trip while latency is flat and settles where latency is
//     about 1.5× the baseline: a little above what the endpoint serves at
//     once, which keeps an endpoint that queues busy. Weighting per round
//     trip rather than per sample keeps the loop stable and the baseline's
//     drift independent of the cap.
//   - AIMD on 429: a 429 ends slow start and cuts the cap by the policy's
//     Decrease (×0.8; several 429s from calls issued under the same cap count
//     once) and remembers the cap below the one refused as the endpoint's
//     ceiling; then the cap grows by one per RecoverAfter successes: by
//     default one per round trip (the cap's worth of successes) back up to
//     that ceiling, as TCP CUBIC returns quickly to its last maximum, and one
//     per four round trips beyond it, probing slowly. A 429 at or above the
//     ceiling only steps back by one (the ceiling held, or the endpoint freed
//     a slot a moment late); a 429 below it means the endpoint's capacity
//     fell, and cuts again.
//
// The cap never grows while fewer than half of its slots are used (the
// harness, not the endpoint, is then the limit).
type controller struct {
	p           LimitPolicy
	limit       float64
	avoid       bool    // slow start is over (queueing or a 429 was seen)
	limited     bool    // a 429 was seen: additive growth
	successes   int     // since the last additive step
	lastMax     float64 // the cap the last 429 cut (TCP CUBIC's W_max)
	samples     int
	short, long float64 // latency EWMAs, seconds
}

func newController(p LimitPolicy) controller {
	return controller{p: p, limit: float64(p.Initial)}
}

// cap is the current cap on calls in flight.
func (c *controller) cap() int {
	return min(max(int(c.limit), c.p.Min), c.p.Max)
}

// fixed reports whether the policy leaves nothing to adapt.
func (c *controller) fixed() bool { return c.p.Min == c.p.Max }

// success records a successful attempt that took rtt with inFlight calls
// holding slots; it reports whether the cap changed.
func (c *controller) success(rtt time.Duration, inFlight int) bool {
	before := c.cap()
	if c.fixed() {
		return false
	}
	grad := c.gradient(rtt.Seconds())
	if grad < 1 {
		c.avoid = true
	}
	busy := inFlight >= before/2
	target := c.limit*grad + ctlQueue
	step := ctlSmoothing / float64(before) * (target - c.limit)
	switch {
	case !c.avoid:
		if busy {
			c.limit++
		}
	case c.limited:
		c.successes++
		after := c.p.RecoverAfter
		if after == 0 {
			after = 4 * before
			if c.limit < c.lastMax { // back to where the 429 came quickly, beyond it slowly
				after = before
			}
		}
		if c.successes >= after && busy {
			c.successes = 0
			c.limit = math.Floor(c.limit) + 1
		}
		c.limit += min(0, step)
	case step < 0 || busy:
		c.limit += step
	}
	c.limit = min(max(c.limit, float64(c.p.Min)), float64(c.p.Max))
	return c.cap() != before
}

// gradient updates the latency averages with one sample (seconds) and
// returns clamp(tolerance × long / short, 0.5, 1); 1 during the warm-up.
func (c *controller) gradient(s float64) float64 {
	c.samples++
	if c.samples <= ctlWarmup {
		c.long += (s - c.long) / float64(c.samples)
		c.short = c.long
		return 1
	}
	c.short += ctlShort * (s - c.short)
	w := ctlLong
	if c.short > ctlTolerance*c.long {
		w = ctlLongSlow
	}
	c.long += w / float64(c.cap()) * (s - c.long)
	if c.short <= 0 {
		return 1
	}
	return min(1, max(0.5, ctlTolerance*c.long/c.short))
}

// overloaded records a server error or timeout (a 5xx storm, a hanging
// endpoint); cut says whether it is the first of its burst. The cap is cut
// by Decrease as for a 429 (never raised by the errors, as a success of
// short latency would), without taking the cap as the endpoint's known
// ceiling. It reports whether the cap changed.
func (c *controller) overloaded(cut bool) bool {
	if !cut || c.fixed() {
		return false
	}
	before := c.cap()
	c.avoid, c.successes = true, 0
	c.limit = math.Floor(c.limit * c.p.Decrease)
	if int(c.limit) >= before {
		c.limit = float64(before - 1)
	}
	c.limit = max(c.limit, float64(c.p.Min))
	return c.cap() != before
}

// rateLimited records a 429; cut says whether it is the first of its burst
// (issued under the current cap), which alone changes the cap. A 429 at or
// above the known ceiling (the cap below the one a 429 last refused) steps
// back by one; one below it cuts by Decrease. It reports whether the cap
// changed.
func (c *controller) rateLimited(cut bool) bool {
	if !cut || c.fixed() {
		return false
	}
	before := c.cap()
	probing := c.limited && c.lastMax > 0 && float64(before) >= c.lastMax
	c.avoid, c.limited, c.successes = true, true, 0
	if probing {
		c.limit = float64(before - 1)
		c.lastMax = c.limit
	} else {
		c.lastMax = float64(before - 1)
		c.limit = math.Floor(c.limit * c.p.Decrease)
		if int(c.limit) >= before {
			c.limit = float64(before - 1)
		}
	}
	c.limit = max(c.limit, float64(c.p.Min))
	return c.cap() != before
}

package runner

import (
	"context"
	"sync/atomic"
	"time"
)

// DefaultMaxParallel is the ceiling on units in flight when the plan lets
// them follow the endpoints' capacity (Plan.MaxParallel < 0).
const DefaultMaxParallel = 1024

// admitTick is how long the scheduler waits before it looks at the
// endpoints' spare capacity again when no unit has finished: long enough for
// the units it just started to reach their limiter, short enough to fill a
// freshly grown cap within a round trip.
const admitTick = 2 * time.Millisecond

// admission decides when the next unit may start. Units in flight follow
// the endpoint's capacity: below the floor (Plan.Parallel) a unit always
// starts; between the floor and the ceiling it starts only while its
// model's limiter has spare slots (calls it would let through that nobody
// asks for), so a question is added whenever the endpoint could serve more
// calls than the questions in flight are making. A model without a Spare
// (the simulator, or a fixed plan) runs at the floor.
type admission struct {
	floor, ceiling int
	running        atomic.Int64
	peak           int           // most units in flight at once (the scheduler's goroutine only)
	finished       chan struct{} // a token when a unit has finished since the last look
}

func newAdmission(p Plan) *admission {
	a := &admission{floor: max(1, p.Parallel), finished: make(chan struct{}, 1)}
	switch {
	case p.MaxParallel < 0:
		a.ceiling = max(a.floor, DefaultMaxParallel)
	default:
		a.ceiling = max(a.floor, p.MaxParallel)
	}
	return a
}

// mayStart is the decision: running units, the ceiling and floor, and the
// spare slots of the unit's model (spare nil: none known).
func mayStart(running, floor, ceiling int, spare func() int) bool {
	switch {
	case running < floor:
		return true
	case running >= ceiling || spare == nil:
		return false
	}
	return spare() > 0
}

// wait blocks until a unit whose model has spare (nil: unknown) may start,
// or ctx or stop ends; it reports false in the latter case.
func (a *admission) wait(ctx context.Context, stop <-chan struct{}, spare func() int) bool {
	var tick *time.Timer
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		running := int(a.running.Load())
		if mayStart(running, a.floor, a.ceiling, spare) {
			a.peak = max(a.peak, int(a.running.Add(1)))
			return true
		}
		var tc <-chan time.Time
		if running < a.ceiling && spare != nil {
			if tick == nil {
				tick = time.NewTimer(admitTick)
			} else {
				tick.Reset(admitTick)
			}
			tc = tick.C
		}
		select {
		case <-a.finished:
		case <-tc:
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		}
	}
}

// done is called by a unit's goroutine when it ends; it never blocks.
func (a *admission) done() {
	a.running.Add(-1)
	select {
	case a.finished <- struct{}{}:
	default:
	}
}

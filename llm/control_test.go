package llm

import (
	"math"
	"testing"
	"time"
)

// TestControllerColdStart: in slow start, with no queueing and every slot
// in use, each success grows the cap by one: it doubles every round trip.
func TestControllerColdStart(t *testing.T) {
	c := newController(LimitPolicy{Initial: 8, Min: 1, Max: 512}.withDefaults())
	for range 10 {
		c.success(20*time.Millisecond, c.cap())
	}
	if got := c.cap(); got != 18 {
		t.Fatalf("cap after 10 successes %d, want 18", got)
	}
	// A round trip is cap successes: from 18 to 512 in a handful of them.
	rounds := 0
	for c.cap() < 512 {
		for range c.cap() {
			c.success(20*time.Millisecond, c.cap())
		}
		rounds++
	}
	if rounds > 5 {
		t.Fatalf("%d round trips from 18 to 512, want ≤ 5", rounds)
	}
}

// TestControllerAppLimited: a cap the caller leaves mostly idle does not
// grow (it would grow without bound and mean nothing).
func TestControllerAppLimited(t *testing.T) {
	c := newController(LimitPolicy{Initial: 8}.withDefaults())
	for range 100 {
		c.success(20*time.Millisecond, 3)
	}
	if c.cap() != 8 {
		t.Fatalf("cap %d with 3 of 8 slots used, want 8", c.cap())
	}
}

// TestControllerFixed: Min == Max fixes the cap whatever happens.
func TestControllerFixed(t *testing.T) {
	c := newController(LimitPolicy{Initial: 3, Min: 3, Max: 3}.withDefaults())
	for i := range 50 {
		c.success(time.Duration(i+1)*time.Millisecond, 3)
		c.rateLimited(i%7 == 0)
	}
	if c.cap() != 3 {
		t.Fatalf("cap %d, want 3", c.cap())
	}
}

// TestControllerRateLimited: a 429 cuts by Decrease (at least one), a
// later 429 of the same burst does not, and growth is then additive: one
// step per cap successes up to the cap that was cut, one per 4 × cap beyond.
func TestControllerRateLimited(t *testing.T) {
	c := newController(LimitPolicy{Initial: 20, Max: 64}.withDefaults())
	if !c.rateLimited(true) || c.cap() != 16 {
		t.Fatalf("cap %d after a 429, want 16", c.cap())
	}
	if c.rateLimited(false) || c.cap() != 16 {
		t.Fatalf("cap %d after a second 429 of the burst, want 16", c.cap())
	}
	// Back to the ceiling (19, below the refused 20) at one step per round
	// trip (the cap's worth of successes), beyond it at one per four.
	steps := []struct{ successes, cap int }{{15, 16}, {1, 17}, {17, 18}, {18, 19}, {75, 19}, {1, 20}}
	for _, st := range steps {
		for range st.successes {
			c.success(20*time.Millisecond, c.cap())
		}
		if c.cap() != st.cap {
			t.Fatalf("cap %d after %d more successes, want %d", c.cap(), st.successes, st.cap)
		}
	}
	// A 429 on the probe above the ceiling, or at it, steps back by one;
	// one below the ceiling means capacity fell: a cut.
	for _, want := range []int{19, 18} {
		if c.rateLimited(true); c.cap() != want {
			t.Fatalf("cap %d after a 429 at the ceiling, want %d", c.cap(), want)
		}
	}
	c.limit = 15
	if c.rateLimited(true); c.cap() != 12 {
		t.Fatalf("cap %d after a 429 at 15 under the ceiling 17, want 12", c.cap())
	}
	small := newController(LimitPolicy{Initial: 2, Min: 1}.withDefaults())
	small.rateLimited(true)
	if small.cap() != 1 {
		t.Fatalf("cap %d after a 429 at 2, want 1 (at least one less)", small.cap())
	}
}

// endpoint models a server that serves cap requests at once, each in d,
// and either queues the rest (latency grows with the queue) or answers 429
// beyond cap.
type endpoint struct {
	capacity int
	d        time.Duration
	rejects  bool
}

// step runs one round trip with the controller's cap in flight: every call
// gets its outcome; it returns the requests served and rejected.
func (e endpoint) step(c *controller) (served, rejected int) {
	n := c.cap()
	rtt := e.d
	if !e.rejects && n > e.capacity {
		rtt = time.Duration(float64(e.d) * float64(n) / float64(e.capacity))
	}
	cut := true
	for i := range n {
		if e.rejects && i >= e.capacity {
			c.rateLimited(cut)
			cut = false
			rejected++
			continue
		}
		c.success(rtt, n)
		served++
	}
	return served, rejected
}

// TestControllerFindsCapacity models whole runs against the two kinds of
// server the throughput benchmark uses: the cap must reach the capacity
// quickly from the cold start and keep the server busy (throughput at the
// bound) without an unbounded queue, and against a 429 server keep its
// 429s under 5% while serving ≥ 90% of capacity.
func TestControllerFindsCapacity(t *testing.T) {
	for _, capacity := range []int{4, 16, 64, 256} {
		e := endpoint{capacity: capacity, d: 20 * time.Millisecond}
		c := newController(DefaultLimitPolicy("openai").withDefaults())
		full := -1
		for r := range 200 {
			e.step(&c)
			if full < 0 && c.cap() >= capacity {
				full = r
			}
		}
		if full < 0 || full > 12 {
			t.Errorf("C=%d: cap reached capacity after %d round trips, want ≤ 12", capacity, full)
		}
		if got := c.cap(); got < capacity || got > 2*capacity+20 {
			t.Errorf("C=%d queueing server: cap %d after 200 round trips, want in [C, 2C+20]", capacity, got)
		}
	}
	for _, capacity := range []int{16, 64} {
		e := endpoint{capacity: capacity, d: 20 * time.Millisecond, rejects: true}
		c := newController(DefaultLimitPolicy("openai").withDefaults())
		var served, rejected int
		const warm, rounds = 20, 400
		for r := range rounds {
			s, j := e.step(&c)
			if r >= warm {
				served, rejected = served+s, rejected+j
			}
		}
		util := float64(served) / float64(capacity*(rounds-warm))
		rate := float64(rejected) / float64(served+rejected)
		if util < 0.9 || rate > 0.05 || math.IsNaN(rate) {
			t.Errorf("C=%d 429 server: served %.3f of capacity with %.2f%% 429s, want ≥ 0.9 and < 5%%", capacity, util, 100*rate)
		}
	}
}

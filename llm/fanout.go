package llm

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// Brancher is told of the concurrent branches a caller starts and waits
// for (batch mode's barrier counts them: a unit has made every call of a
// stage only once each of its branches waits in a call or has ended).
type Brancher interface {
	// Branch says n branches start while the caller waits for them; each
	// branch calls the returned end once when it returns.
	Branch(n int) (end func())
}

// BrancherOf is c's Brancher when c is one (batch mode's unit client), else
// nil: what a caller holding the unit's client passes to Parallel.
func BrancherOf(c Client) Brancher {
	b, _ := c.(Brancher)
	return b
}

// Parallel runs f for i = 0…n−1 at once and waits for them; the first error
// cancels the rest. b, if not nil, is told of the branches before any
// starts (it is passed explicitly, as the limiter's slot is, never through
// ctx).
func Parallel(ctx context.Context, b Brancher, n int, f func(ctx context.Context, i int) error) error {
	end := func() {}
	if b != nil && n > 0 {
		end = b.Branch(n)
	}
	g, gctx := errgroup.WithContext(ctx)
	for i := range n {
		g.Go(func() error {
			defer end()
			return f(gctx, i)
		})
	}
	return g.Wait()
}

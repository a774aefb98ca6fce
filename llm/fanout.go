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

type brancherKey struct{}

// WithBrancher returns ctx carrying b, for Parallel to tell.
func WithBrancher(ctx context.Context, b Brancher) context.Context {
	return context.WithValue(ctx, brancherKey{}, b)
}

// Parallel runs f for i = 0…n−1 at once and waits for them; the first error
// cancels the rest. The Brancher in ctx, if any, is told of the branches
// before any starts.
func Parallel(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	end := func() {}
	if b, ok := ctx.Value(brancherKey{}).(Brancher); ok && n > 0 {
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

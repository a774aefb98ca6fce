package mdagents

import (
	"context"
	"sync/atomic"

	"github.com/medteam-bench/medteam/llm"
)

// countClient counts the calls it passes to c.
type countClient struct {
	c llm.Client
	n int64
}

func (k *countClient) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	atomic.AddInt64(&k.n, 1)
	return k.c.Chat(ctx, req)
}

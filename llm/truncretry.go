package llm

import (
	"context"
	"slices"
)

// NewTruncationRetry returns a client that asks again, once, for a reply cut
// off at its token limit (finish reason FinishLength, no refusal) with twice
// the tokens (--retry-truncated). The retry is part of the same logical
// call: the Response is the retry's, its Attempts, AttemptErrors, Usage and
// Latency the sums of both requests' (both were sent and billed), Cached
// only when both were cache hits. A request with MaxTokens 0 leaves the
// limit to the backend's default, which cannot be doubled: its cut reply is
// returned as is (an abstention with reason truncated).
//
// The retry is a different request (its max_tokens differs), so it has its
// own request hash and cache key: placed above the response cache, a rerun
// is served both the cut reply and the retry from the cache, and the call's
// recorded request_hash stays the first request's. When the retry fails
// (other than by cancellation: e.g. the doubled limit exceeds the model's
// context), the cut reply is returned, the retry's attempts and error class
// counted; a canceled retry returns its error.
func NewTruncationRetry(next Client) Client { return &truncationRetry{next: next} }

type truncationRetry struct{ next Client }

func (t *truncationRetry) Chat(ctx context.Context, req Request) (Response, error) {
	resp, err := t.next.Chat(ctx, req)
	if err != nil || resp.FinishReason != FinishLength || resp.Refusal != "" || req.MaxTokens <= 0 {
		return resp, err
	}
	again := req
	again.MaxTokens = 2 * req.MaxTokens
	again.Meta.RequestHash = "" // another request: its own hash and cache key
	r2, err2 := t.next.Chat(ctx, again)
	attempts := resp.Attempts + r2.Attempts
	errs := append(slices.Clone(resp.AttemptErrors), r2.AttemptErrors...)
	if err2 != nil {
		if ctx.Err() != nil {
			r2.Attempts, r2.AttemptErrors = attempts, errs
			return r2, err2
		}
		if len(r2.AttemptErrors) == 0 || r2.AttemptErrors[len(r2.AttemptErrors)-1] != ClassOf(err2) {
			errs = append(errs, ClassOf(err2))
		}
		resp.Attempts, resp.AttemptErrors, resp.Cached = attempts, errs, false
		return resp, nil
	}
	r2.Attempts, r2.AttemptErrors = attempts, errs
	r2.Usage = sumUsage(resp.Usage, r2.Usage)
	r2.Latency = resp.Latency + r2.Latency
	r2.Cached = resp.Cached && r2.Cached
	return r2, nil
}

// sumUsage adds two requests' usage; unknown when either is.
func sumUsage(a, b Usage) Usage {
	if a.Missing || b.Missing {
		return Usage{Missing: true}
	}
	return Usage{PromptTokens: a.PromptTokens + b.PromptTokens, CompletionTokens: a.CompletionTokens + b.CompletionTokens}
}

package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// A question whose every attempt fails with a retryable error (a 500 its
// prompt triggers, or a generation that always outlasts --timeout) while the
// endpoint answers everything else (and the probe): it should be committed
// as an error row after UnitTries, not end the run as an outage.
func TestQuestionFailingAloneIsCommitted(t *testing.T) {
	plan, model := simPlan(t, "default", []string{"base"}, 1)
	plan.Sets[0].Questions = plan.Sets[0].Questions[:3]
	poison := plan.Sets[0].Questions[2].ID // last in plan order: alone at the tail
	c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Meta.QuestionID == poison {
			return llm.Response{Attempts: 1}, &llm.Error{Class: llm.ClassServer, Status: 500, Err: errors.New("boom")}
		}
		return model.Chat(ctx, req)
	})
	sock := &llm.GateSocket{}
	plan.Models[0].Client = llm.NewGatedRetry(c, llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond}, nil, sock)
	plan.Models[0].Attempts = sock
	plan.Models[0].Probe = func(ctx context.Context) (llm.Response, error) { return llm.Response{Attempts: 1}, nil }
	plan.Breaker = BreakerPolicy{Backoff: 10 * time.Millisecond, MaxOutage: 2 * time.Second, Grace: 100 * time.Millisecond}
	sink := &countSink{}
	st, err := Execute(context.Background(), plan, Options{Sink: sink})
	t.Logf("units %d committed, stats %+v, err %v", sink.units, st, err)
	if err != nil || sink.units != 3 {
		t.Errorf("want 3 units committed (the poison one as an error row), got %d, err %v", sink.units, err)
	}
}

// Every call reports all its prompt tokens as cached; the budget's price
// honours Usage.CachedTokens (as cli's priceTable.price does): the spend
// must be the cached rate's, not the full prompt rate's.
func TestBudgetPricesCachedTokens(t *testing.T) {
	plan, model := simPlan(t, "default", []string{"base"}, 1)
	plan.Sets[0].Questions = plan.Sets[0].Questions[:2]
	plan.Models[0].Client = llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		r, err := model.Chat(ctx, req)
		r.Usage.CachedTokens, r.Usage.CachedReported = r.Usage.PromptTokens, true
		return r, err
	})
	var seenCached bool
	price := func(_ string, u llm.Usage) float64 {
		if u.CachedReported {
			seenCached = true
			return float64(u.PromptTokens-u.CachedTokens+u.CompletionTokens) / 1e6
		}
		return float64(u.PromptTokens+u.CompletionTokens) / 1e6
	}
	sink := &countSink{}
	st, err := Execute(context.Background(), plan, Options{Sink: sink, Budget: Budget{USD: 1000, Price: price}})
	if err != nil {
		t.Fatal(err)
	}
	var compl int64
	for _, q := range sink.qs {
		compl += q.PaidCompletionTokens
	}
	t.Logf("spent %.6f; completion-only price %.6f; price saw a cached count: %v", st.SpentUSD, float64(compl)/1e6, seenCached)
	if !seenCached {
		t.Errorf("the budget priced usage without its cached count (spent $%.6f, the cached rate gives $%.6f)", st.SpentUSD, float64(compl)/1e6)
	}
}

// An endpoint that answers every call with HTTP 200 and a body that cannot
// be used (a real Ollama server's "response is not final" in e2e-ollama.sh)
// is up: its questions end as error rows after their tries; the run is no
// outage (before, it stopped after --max-outage with every unit abandoned).
func TestUnusableRepliesAreNoOutage(t *testing.T) {
	plan, _ := simPlan(t, "default", []string{"base"}, 2)
	plan.Sets[0].Questions = plan.Sets[0].Questions[:3]
	c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Attempts: 1}, &llm.Error{Class: llm.ClassMalformed, Status: 200, Err: errors.New(`response is not final ("done" is not true)`)}
	})
	sock := &llm.GateSocket{}
	plan.Models[0].Client = llm.NewGatedRetry(c, llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond}, nil, sock)
	plan.Models[0].Attempts = sock
	plan.Models[0].Probe = func(ctx context.Context) (llm.Response, error) { return llm.Response{Attempts: 1}, nil }
	plan.Breaker = BreakerPolicy{Backoff: 10 * time.Millisecond, MaxOutage: time.Second, Grace: 100 * time.Millisecond}
	sink := &countSink{}
	st, err := Execute(context.Background(), plan, Options{Sink: sink})
	t.Logf("units %d committed, stats %+v, err %v", sink.units, st, err)
	if err != nil || sink.units != 3 || st.Failed != 3 {
		t.Errorf("want 3 units committed as error rows, got %d (%d failed), err %v", sink.units, st.Failed, err)
	}
}

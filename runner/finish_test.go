package runner

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// TestFinishColumns: the served model and refusal of every call reach
// calls.parquet, and each question row counts its calls cut off, filtered
// and refused as its call rows show them.
func TestFinishColumns(t *testing.T) {
	plan, model := simPlan(t, "default", []string{"base"}, 1)
	var n atomic.Int64
	plan.Models[0].Client = llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := model.Chat(ctx, req)
		resp.ServedModel = "sim-served"
		switch llm.HashOf(&req)[0] % 4 {
		case 0:
			resp.FinishReason = llm.FinishLength
		case 1:
			resp.FinishReason = llm.FinishContentFilter
		case 2:
			resp.Refusal = "I can't help with that."
		}
		n.Add(1)
		return resp, err
	})
	sink := &countSink{}
	if _, err := Execute(context.Background(), plan, Options{Sink: sink}); err != nil {
		t.Fatal(err)
	}
	type counts struct{ t, f, r int32 }
	fromCalls := map[string]counts{}
	for _, c := range sink.calls {
		if c.ServedModel != "sim-served" {
			t.Fatalf("call %s/%d: served model %q", c.QuestionID, c.Seq, c.ServedModel)
		}
		k := fromCalls[c.QuestionID]
		switch {
		case c.Refusal != "":
			k.r++
		case c.FinishReason == llm.FinishLength:
			k.t++
		case c.FinishReason == llm.FinishContentFilter:
			k.f++
		}
		fromCalls[c.QuestionID] = k
	}
	var sum counts
	for _, q := range sink.qs {
		got := counts{q.CallsTruncated, q.CallsFiltered, q.CallsRefused}
		if got != fromCalls[q.QuestionID] {
			t.Errorf("question %s: counts %+v, its calls show %+v", q.QuestionID, got, fromCalls[q.QuestionID])
		}
		sum.t, sum.f, sum.r = sum.t+got.t, sum.f+got.f, sum.r+got.r
	}
	if sum.t == 0 || sum.f == 0 || sum.r == 0 {
		t.Fatalf("the test marks no call of some kind: %+v of %d calls", sum, n.Load())
	}
}

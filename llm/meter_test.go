package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// TestMeterRecordsFinish: the meter records each call's finish reason,
// served model and refusal, and its totals count the answered calls cut
// off (length), filtered (content_filter) and refused — a refusal once,
// whatever its finish reason; a failed call none.
func TestMeterRecordsFinish(t *testing.T) {
	replies := []llm.Response{
		{Text: "A", FinishReason: "stop", ServedModel: "m-1"},
		{Text: "The answer", FinishReason: llm.FinishLength, ServedModel: "m-1"},
		{Text: "", FinishReason: llm.FinishContentFilter},
		{Refusal: "I can't help with that.", FinishReason: "stop"},
		{Refusal: "No.", FinishReason: llm.FinishLength},
		{FinishReason: llm.FinishLength}, // failed: not counted
	}
	i := 0
	m := llm.NewMeter(llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		r := replies[i]
		i++
		if i == len(replies) {
			return r, errors.New("boom")
		}
		return r, nil
	}), false)
	for range replies {
		_, _ = m.Chat(context.Background(), llm.Request{Model: "m"})
	}
	tot := m.Totals()
	if tot.Truncated != 1 || tot.Filtered != 1 || tot.Refused != 2 {
		t.Errorf("truncated/filtered/refused = %d/%d/%d, want 1/1/2", tot.Truncated, tot.Filtered, tot.Refused)
	}
	calls := m.Calls()
	if calls[1].FinishReason != "length" || calls[1].ServedModel != "m-1" || calls[3].Refusal != "I can't help with that." {
		t.Errorf("records: %+v", calls[:4])
	}
}

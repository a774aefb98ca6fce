package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// texts is a TranscriptSink keeping texts by id; fail makes it refuse.
type texts struct {
	mu   sync.Mutex
	got  map[int64][2]string
	fail bool
}

func (s *texts) Transcript(prompt, response string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return 0, errors.New("disk full")
	}
	id := int64(len(s.got) + 1)
	s.got[id] = [2]string{prompt, response}
	return id, nil
}

// TestStreamingMeter (issue 28 item 10): a streaming meter hands each
// call's rendered prompt and response to its sink as the call ends and its
// record keeps only the id; when the sink fails, the texts stay in the
// record (none is lost). A plain transcript meter keeps them inline.
func TestStreamingMeter(t *testing.T) {
	echo := llm.ClientFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Text: "reply to " + req.Messages[len(req.Messages)-1].Content}, nil
	})
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "question"}}}
	wantPrompt := llm.RenderMessages(req.Messages)

	sink := &texts{got: map[int64][2]string{}}
	m := llm.NewStreamingMeter(echo, sink)
	for range 3 {
		if _, err := m.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range m.Calls() {
		if c.Prompt != "" || c.Response != "" || c.Transcript == 0 {
			t.Fatalf("streamed record keeps %q/%q, id %d", c.Prompt, c.Response, c.Transcript)
		}
		if got := sink.got[c.Transcript]; got != [2]string{wantPrompt, "reply to question"} {
			t.Fatalf("sink holds %q for id %d", got, c.Transcript)
		}
	}
	if len(sink.got) != 3 {
		t.Fatalf("sink got %d transcripts, want 3", len(sink.got))
	}

	failing := llm.NewStreamingMeter(echo, &texts{got: map[int64][2]string{}, fail: true})
	inline := llm.NewMeter(echo, true)
	for _, m := range []*llm.Meter{failing, inline} {
		if _, err := m.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if c := m.Calls()[0]; c.Prompt != wantPrompt || c.Response != "reply to question" || c.Transcript != 0 {
			t.Fatalf("inline record: %q/%q, id %d", c.Prompt, c.Response, c.Transcript)
		}
	}
}

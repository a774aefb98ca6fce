package runner_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
)

// rowSink keeps every row.
type rowSink struct {
	qs    []results.QuestionRow
	calls []results.CallRow
}

func (s *rowSink) Put(_ string, _ int64, q results.QuestionRow, calls []results.CallRow) error {
	s.qs = append(s.qs, q)
	s.calls = append(s.calls, calls...)
	return nil
}

// TestCachedTokensRecordedAsServed: a run of the full arm against the fake
// server under each cache rule records, call by call, the cached prompt
// tokens the server reported (calls.parquet's cached_prompt_tokens), and
// the question rows sum them; without a rule the column is null and the
// question rows count every call as unreported.
func TestCachedTokensRecordedAsServed(t *testing.T) {
	qs := tpQuestionsFor(t, 4)
	for _, rule := range []llmtest.CacheRule{llmtest.CacheVLLM, llmtest.CacheOpenAI, llmtest.CacheNone} {
		t.Run(rule.String(), func(t *testing.T) {
			srv := llmtest.NewLatencyServerWith(8, 0, false, llmtest.LatencyOptions{Cache: rule, PadWords: 300})
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			backend, err := openai.New(openai.Config{BaseURL: ts.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			sink := cachedRun(t, qs, backend)
			var got, want []string // "prompt/cached" per call
			var sumCached, rowCached, unreported int64
			for _, c := range sink.calls {
				p, _, ok := c.Tokens()
				if !ok {
					t.Fatalf("call %d of %s without usage", c.Seq, c.QuestionID)
				}
				cached := "null"
				if c.CachedPromptTokens != nil {
					cached = fmt.Sprint(*c.CachedPromptTokens)
					sumCached += *c.CachedPromptTokens
				}
				got = append(got, fmt.Sprintf("%d/%s", p, cached))
			}
			for _, q := range sink.qs {
				rowCached += q.PaidCachedPromptTokens
				unreported += int64(q.CallsCachedUnreported)
			}
			if rule == llmtest.CacheNone {
				if sumCached != 0 || unreported != int64(len(sink.calls)) || srv.PrefixCache() != nil {
					t.Errorf("no rule: recorded %d cached, %d of %d calls unreported", sumCached, unreported, len(sink.calls))
				}
				return
			}
			for _, h := range srv.PrefixCache().Hits() {
				want = append(want, fmt.Sprintf("%d/%d", h.Prompt, h.Cached))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("recorded per call (prompt/cached)\n%v\nserved\n%v", got, want)
			}
			if _, served := srv.PrefixCache().Totals(); sumCached != served || rowCached != served || served == 0 || unreported != 0 {
				t.Errorf("recorded %d cached tokens in calls, %d in question rows (%d calls unreported); the server served %d (want equal and > 0)",
					sumCached, rowCached, unreported, served)
			}
			t.Logf("%s: %d calls, %d cached tokens served and recorded", rule, len(sink.calls), sumCached)
		})
	}
}

// cachedRun runs the full arm (3 agents) on qs, one question at a time.
func cachedRun(t *testing.T, qs []qa.Question, client llm.Client) *rowSink {
	t.Helper()
	plan := runner.Plan{
		Tasks:    tasks.All(),
		RunID:    "cached",
		Sets:     []runner.QuestionSet{{Name: "medqa-sample", Questions: qs}},
		Models:   []runner.Model{{Name: "openai/bench", Request: "bench", Client: client}},
		Arms:     []runner.Arm{tpFullArm(t)},
		Repeats:  1,
		Seed:     1,
		Parallel: 1,
	}
	sink := &rowSink{}
	st, err := runner.Execute(context.Background(), plan, runner.Options{Sink: sink})
	if err != nil || st.Failed > 0 || st.Finished != len(qs) {
		t.Fatalf("run: %v; %d of %d finished, %d failed", err, st.Finished, len(qs), st.Failed)
	}
	return sink
}

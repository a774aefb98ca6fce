package triage

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocol/protocoltest"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/task"
	"github.com/medteam-bench/medteam/tasks/choice"
)

func TestReadVerdict(t *testing.T) {
	for _, c := range []struct {
		text      string
		match, ok bool
	}{
		{"MATCH: yes", true, true},
		{"match: No", false, true},
		{"**MATCH:** yes", true, true},
		{"Reasoning: both name a UTI.\nMATCH: yes\n", true, true},
		{"MATCH: no\nMATCH: no", false, true},
		{"MATCH: yes\nMATCH: no", false, false}, // conflicting: unread
		{"Yes.", true, true},
		{"no", false, true},
		{"yes, mostly", false, false}, // not a lone verdict
		{"The diagnoses match: yes they do", false, false},
		{"", false, false},
		{"MATCH: maybe", false, false},
	} {
		m, ok := ReadVerdict(c.text)
		if m != c.match || ok != c.ok {
			t.Errorf("ReadVerdict(%q) = %v, %v; want %v, %v", c.text, m, ok, c.match, c.ok)
		}
	}
}

func FuzzReadVerdict(f *testing.F) {
	for _, s := range []string{"MATCH: yes", "match: no\nMATCH: yes", "yes", "**MATCH**: no"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, ok := ReadVerdict(s)
		if !ok && m {
			t.Fatalf("unread verdict reports a match: %q", s)
		}
		if ok && !strings.Contains(strings.ToLower(s), map[bool]string{true: "yes", false: "no"}[m]) {
			t.Fatalf("verdict %v read from %q, which does not say it", m, s)
		}
	})
}

// dxArm is a protocol that makes no call and states a diagnosis.
type dxArm struct{ protocol.Arm }

func (dxArm) Run(context.Context, llm.Client, qa.Item, protocol.Unit) (*protocol.Outcome, error) {
	return &protocol.Outcome{Predicted: "C", Diagnosis: "urinary tract infection"}, nil
}

// judgePlan runs triageQ under dxArm with the diagnosis judge, the model
// answering reply (or failing with err); it returns the row, its calls and
// the requests the model saw.
func judgePlan(t *testing.T, reply string, fail error) (*runner.Result, []llm.Request) {
	t.Helper()
	base, _, err := protocoltest.AlwaysFirst.Parse("always-first", protocol.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []llm.Request
	client := llm.ClientFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		if fail != nil {
			return llm.Response{}, fail
		}
		return llm.Response{Text: reply, Usage: llm.Usage{PromptTokens: 50, CompletionTokens: 3}}, nil
	})
	p := runner.Plan{RunID: "t", Sets: []runner.QuestionSet{{Name: "triage", Questions: []qa.Question{triageQ()}}},
		Arms:   []runner.Arm{{Label: "dx", Protocol: dxArm{base}}},
		Models: []runner.Model{{Name: "test/m", Request: "m", Client: client}}, Repeats: 1, Seed: 1, Parallel: 1,
		Tasks: task.Registry{choice.Task, Task}, Judge: true}
	res, err := runner.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, seen
}

// TestDiagnosisJudge: one extra call of its own kind, shown both diagnoses,
// whose verdict becomes the row's match (method llm_judge); an unreadable
// verdict keeps the normalised match; a failed call fails the question.
func TestDiagnosisJudge(t *testing.T) {
	res, seen := judgePlan(t, "MATCH: no", nil)
	if len(seen) != 1 || len(res.Calls) != 1 || res.Questions[0].Calls != 1 {
		t.Fatalf("model saw %d requests, calls.parquet %d rows, row calls %d; want 1 each", len(seen), len(res.Calls), res.Questions[0].Calls)
	}
	req, c, r := seen[0], res.Calls[0], res.Questions[0]
	user := req.Messages[1].Content
	if !strings.Contains(user, "Correct diagnosis: Urinary tract infection") || !strings.Contains(user, "Stated diagnosis: urinary tract infection") {
		t.Errorf("judge prompt lacks the two diagnoses:\n%s", user)
	}
	if c.Phase != PhaseScore || c.Kind != KindDiagnosisJudge || c.Agent != -1 || c.ParseMethod != "answer_line" {
		t.Errorf("judge call row = phase %q kind %q agent %d parse %q", c.Phase, c.Kind, c.Agent, c.ParseMethod)
	}
	// the normalised rule matches these two; the judge said no, and rules
	if r.DiagnosisMatch == nil || *r.DiagnosisMatch || r.DiagnosisMethod != MethodLLMJudge || r.PromptTokens != 50 {
		t.Errorf("row: match %v method %q prompt tokens %d; want false, llm_judge, 50", r.DiagnosisMatch, r.DiagnosisMethod, r.PromptTokens)
	}

	res, _ = judgePlan(t, "I cannot say.", nil)
	r, c = res.Questions[0], res.Calls[0]
	if r.DiagnosisMatch == nil || !*r.DiagnosisMatch || r.DiagnosisMethod != "normalized" || c.ParseMethod != "none" {
		t.Errorf("unread verdict: match %v method %q call parse %q; want the normalised true, normalized, none", r.DiagnosisMatch, r.DiagnosisMethod, c.ParseMethod)
	}

	res, _ = judgePlan(t, "", &llm.Error{Class: llm.ClassBadRequest, Err: errors.New("refused")})
	if r := res.Questions[0]; r.Error == "" || !strings.Contains(r.Error, "diagnosis judge") || r.PredictedRank != -1 {
		t.Errorf("failed judge call: error %q predicted rank %d; want the question failed", r.Error, r.PredictedRank)
	}
}

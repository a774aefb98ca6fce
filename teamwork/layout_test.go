package teamwork

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// TestSharedLayoutSameDeliberation (issue 37): --prompt-layout shared only
// moves text, so the simulator — which reads marker lines wherever they
// are — deliberates exactly as in the source layout: the same outcome
// (answers, parses, monitoring, trust, decision) for every preset, text and
// JSON, round robin and parallel. Only the first-answer prompt of an arm
// that shows both the analysis and a role (SMM with TO∧L) differs: its
// analysis now comes before the role.
func TestSharedLayoutSameDeliberation(t *testing.T) {
	qs := sampleQuestions(t, 12)
	model := simFor(t, "noisy", qs)
	for _, preset := range PresetNames() {
		for _, structured := range []bool{false, true} {
			for _, mode := range []DiscussionMode{RoundRobin, Parallel} {
				c, err := ParseComponents(preset, Default())
				if err != nil {
					t.Fatal(err)
				}
				c.Structured, c.Discussion = structured, mode
				shared := c
				shared.SharedLayout = true
				for _, q := range qs {
					a, err := (&Team{Config: c, Model: "sim", Arm: "x", RunSeed: 5}).Run(context.Background(), model, q.Item())
					if err != nil {
						t.Fatal(err)
					}
					b, err := (&Team{Config: shared, Model: "sim", Arm: "x", RunSeed: 5}).Run(context.Background(), model, q.Item())
					if err != nil {
						t.Fatal(err)
					}
					if c.SMM && c.Orientation && c.Leadership {
						b.FirstPrompt = a.FirstPrompt
					}
					if !reflect.DeepEqual(a, b) {
						t.Fatalf("%s json=%v %s %s: shared layout deliberates differently:\nsource %+v\nshared %+v", preset, structured, mode, q.ID, a, b)
					}
				}
			}
		}
	}
}

// TestSharedLayoutPrefix (issue 37): in the shared layout every call of a
// question from the first discussion turn on — agents' and leader's alike,
// but the rating of a monitoring reply, which shows no discussion — opens
// with the same bytes: the question, the analysis, the facts, the report
// and the discussion so far, which only grows; each one's system text comes
// after that block, in a single user message. The shared first answer of an
// arm whose components add nothing to it is the source layout's request.
func TestSharedLayoutPrefix(t *testing.T) {
	qs := sampleQuestions(t, 3)
	model := simFor(t, "default", qs)
	for _, preset := range []string{"base", "full", "c6"} {
		c, err := ParseComponents(preset, Default())
		if err != nil {
			t.Fatal(err)
		}
		c.Agents, c.SharedLayout = 3, true
		for _, q := range qs {
			log := &requestLog{next: model}
			out, err := (&Team{Config: c, Model: "sim", Arm: "x", RunSeed: 5}).Run(context.Background(), log, q.Item())
			if err != nil {
				t.Fatal(err)
			}
			checkSharedPrefix(t, preset, c, out, log.sorted())
		}
	}
}

func checkSharedPrefix(t *testing.T, preset string, c Config, out *protocol.Outcome, reqs []llm.Request) {
	t.Helper()
	var block string // the shared block of the first discussion call: the question … the initial answers
	for _, req := range reqs {
		switch {
		case req.Meta.Kind == kit.KindFirst:
			if len(req.Messages) != 2 || req.Messages[0].Role != llm.RoleSystem {
				t.Errorf("%s: the first answer is not the shared request's shape: %+v", preset, req.Messages)
			}
			continue
		case len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser:
			t.Fatalf("%s %s: %d messages, want one user message", preset, req.Meta.Kind, len(req.Messages))
		}
		u := req.Messages[0].Content
		if !strings.HasPrefix(u, "QUESTION:\n") || !strings.Contains(u, "\nYou are ") {
			t.Errorf("%s %s: not the question first and the system text after it:\n%s", preset, req.Meta.Kind, u)
		}
		if req.Meta.Phase != PhaseDiscussion || req.Meta.Kind == KindMonitorRate {
			continue
		}
		head, _, ok := strings.Cut(u, "\nYou are ")
		if !ok {
			continue
		}
		if block == "" {
			block = head
			if !strings.Contains(block, "DISCUSSION SO FAR:\n") || (c.SMM && !strings.Contains(block, out.Analysis)) {
				t.Errorf("%s: the shared block lacks the discussion or the analysis:\n%s", preset, block)
			}
			continue
		}
		if !strings.HasPrefix(u, block) {
			t.Errorf("%s %s turn %d agent %d: does not open with the shared block\nblock:\n%s\nprompt:\n%s", preset, req.Meta.Kind, req.Meta.Turn, req.Meta.Agent, block, u)
		}
	}
	if block == "" {
		t.Errorf("%s: no discussion call", preset)
	}
}

// TestFirstAnswerSameInBothLayouts: base's first answers — the shared first
// answer of every family — are the same requests in both layouts, so the
// arms of a sweep still share them whatever the layout.
func TestFirstAnswerSameInBothLayouts(t *testing.T) {
	qs := sampleQuestions(t, 3)
	model := simFor(t, "default", qs)
	for _, preset := range []string{"base", "c2", "c5"} {
		c, err := ParseComponents(preset, Default())
		if err != nil {
			t.Fatal(err)
		}
		first := map[bool][]string{}
		for _, shared := range []bool{false, true} {
			c.SharedLayout = shared
			log := &requestLog{next: model}
			if _, err := (&Team{Config: c, Model: "sim", Arm: "x", RunSeed: 5}).Run(context.Background(), log, qs[0].Item()); err != nil {
				t.Fatal(err)
			}
			for _, req := range log.sorted() {
				if req.Meta.Kind == kit.KindFirst {
					first[shared] = append(first[shared], llm.HashOf(&req))
				}
			}
		}
		if len(first[false]) == 0 || !reflect.DeepEqual(first[false], first[true]) {
			t.Errorf("%s: first answers differ between layouts: %v vs %v", preset, first[false], first[true])
		}
	}
}

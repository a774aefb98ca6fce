package kit

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec, name string
		ok         bool
		bare       string
		keyed      string
		err        string
	}{
		{"vote", "vote", true, "", "", ""},
		{" VOTE:Weighted ", "vote", true, "weighted", "", ""},
		{"vote:weighted,n=5", "vote", true, "weighted", "n=5", ""},
		{"debate:3,2", "debate", true, "3 2", "", ""},
		{"voter", "vote", false, "", "", ""},
		{"base", "vote", false, "", "", ""},
		{"vote:", "vote", true, "", "", "empty option"},
		{"vote:n=3,n=4", "vote", true, "", "", "given twice"},
	} {
		s, ok, err := ParseSpec(tc.spec, tc.name)
		if ok != tc.ok || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%q: ok %v err %v", tc.spec, ok, err)
		}
		if err != nil || !ok {
			continue
		}
		var kv []string
		for k, v := range s.Keyed {
			kv = append(kv, k+"="+v)
		}
		if strings.Join(s.Bare, " ") != tc.bare || strings.Join(kv, ",") != tc.keyed {
			t.Fatalf("%q: bare %q keyed %v", tc.spec, s.Bare, s.Keyed)
		}
	}
	s, _, _ := ParseSpec("x:7,k=9", "x")
	if v, err := s.Int("k", 0, 1, 1, 10); v != 9 || err != nil {
		t.Fatalf("keyed wins: %d %v", v, err)
	}
	if v, err := s.Int("r", 0, 1, 1, 10); v != 7 || err != nil {
		t.Fatalf("positional: %d %v", v, err)
	}
	if _, err := s.Int("k", -1, 1, 1, 5); err == nil {
		t.Fatal("out of range accepted")
	}
	if err := s.Check("n"); err == nil {
		t.Fatal("unknown key accepted")
	}
}

func TestPanelLabel(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		agents int
		want   string
	}{
		{"vote", 0, "vote"}, {"vote:n=3", 0, "vote"}, {"vote:n=5", 0, "vote:n=5"}, {"vote", 5, "vote/n5"}, {"vote:n=3", 5, "vote:n=3"},
		{"vote/n5", 5, "vote/n5"}, {"vote/n3", 5, "vote:n=3"}, // the suffix reads back as n
	} {
		sp, _, _ := ParseSpec(tc.spec, "vote")
		p, err := NewPanel(sp, protocol.Settings{Agents: tc.agents})
		if err != nil || p.Label("vote") != tc.want {
			t.Fatalf("%s agents %d: %q %v", tc.spec, tc.agents, p.Label("vote"), err)
		}
	}
}

func TestQuestionBlock(t *testing.T) {
	it := qa.Item{Stem: "Stem?", Context: []string{"c1", "c2"}, Options: []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}}}
	if got := QuestionBlock(it); got != "QUESTION:\nStem?\n\nCONTEXT:\nc1\nc2\n\nOPTIONS:\nA) yes\nB) no\n" {
		t.Fatalf("%q", got)
	}
	it.Context = nil
	if got := QuestionBlock(it); got != "QUESTION:\nStem?\n\nOPTIONS:\nA) yes\nB) no\n" {
		t.Fatalf("%q", got)
	}
}

func TestPositionLines(t *testing.T) {
	a := answer.Answer{Ranking: []string{"B", "A"}, Confidence: 0.7, Reasoning: "  It fits\n the timing.  "}
	if PositionLine("agent 2", a) != "POSITION agent 2: B > A (confidence 0.70)\n" || ReasoningLine("agent 2", a, 0) != "REASONING agent 2: It fits the timing.\n" {
		t.Fatal(PositionLine("agent 2", a), ReasoningLine("agent 2", a, 0))
	}
	// --peer-chars bounds the reasoning shown; 0 shows all of it, however long.
	long := answer.Answer{Ranking: []string{"B"}, Reasoning: strings.Repeat("word ", 400)}
	if got := ReasoningLine("agent 2", long, 0); len(got) != len("REASONING agent 2: ")+len(strings.TrimSpace(long.Reasoning))+1 {
		t.Fatalf("peer chars 0 cut the reasoning to %d bytes", len(got))
	}
	if got := ReasoningLine("agent 2", long, 50); got != "REASONING agent 2: "+Truncate(long.Reasoning, 50)+"\n" || len(got) > len("REASONING agent 2: ")+50+len("…\n") {
		t.Fatalf("peer chars 50: %q", got)
	}
	a.Confidence = -1
	if PositionLine("you", a) != "POSITION you: B > A\n" {
		t.Fatal(PositionLine("you", a))
	}
	if PositionLine("agent 3", answer.Answer{}) != "POSITION agent 3: (no readable answer)\n" || ReasoningLine("agent 3", answer.Answer{Reasoning: "x"}, 0) != "" {
		t.Fatal("abstention")
	}
	if got := Truncate(strings.Repeat("é", 300), 481); len(got) > 484 || !strings.HasSuffix(got, "…") || strings.Contains(got, "\uFFFD") {
		t.Fatalf("truncate: %d bytes", len(got))
	}
}

func TestReadPick(t *testing.T) {
	set := func() *answer.Set {
		return answer.NewSet([]answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}})
	}
	labels := map[string]string{"ANSWER": "answer", "REASONING": "reasoning"}
	for _, tc := range []struct {
		text, answer, reason string
	}{
		{`{"answer":"B"}`, "B", ""},
		{`{"answer":"Warfarin"}`, "C", ""},
		{`{"answer":"D"}`, "", answer.ReasonNotAnOption},
		{"REASONING: A is tempting, but B fits.\nANSWER: B", "B", ""},
		{"ANSWER: A\nANSWER: C", "", answer.ReasonAmbiguous},
		{"**Answer:** C", "C", ""},
		{"The answer is A.", "A", ""},
		{"I decline to choose.", "", answer.ReasonRefusal},
		{"", "", answer.ReasonEmpty},
	} {
		p := ReadPick(tc.text, set(), labels)
		if p.Answer != tc.answer || tc.reason != "" && p.Reason != tc.reason || p.Answer == "" && p.Err == "" {
			t.Fatalf("%q: %+v", tc.text, p)
		}
	}
}

func TestOrderIsUnique(t *testing.T) {
	seen := map[int]string{}
	for _, c := range []struct {
		phase, kind string
		turns       int
	}{{PhaseAnswer, KindFirst, 0}, {PhaseAnswer, KindZeroShot, 0}, {PhaseDebate, KindRevise, 10},
		{PhaseReview, KindPeerReview, 0}, {PhaseDecision, KindChairman, 0}, {PhaseDecision, KindJudge, 0}} {
		for turn := 0; turn <= c.turns; turn++ {
			for agent := -1; agent < 64; agent++ {
				o := Order(c.phase, c.kind, turn, agent)
				if prev, dup := seen[o]; dup {
					t.Fatalf("order %d of %s/%d/%d is also %s", o, c.kind, turn, agent, prev)
				}
				seen[o] = c.kind
			}
		}
	}
	if !(Order(PhaseAnswer, KindFirst, 0, 5) < Order(PhaseDebate, KindRevise, 1, 0) && Order(PhaseDebate, KindRevise, 1, 9) < Order(PhaseDebate, KindRevise, 2, -1) &&
		Order(PhaseReview, KindPeerReview, 0, 15) < Order(PhaseDecision, KindChairman, 0, -1)) {
		t.Fatal("order does not follow the phases")
	}
}

// TestNewSessionAliases: a triage item's options carry their level's names
// (by rank, not position); a multiple-choice item's carry none.
func TestNewSessionAliases(t *testing.T) {
	scale := []qa.Level{{Code: "sc", Name: "Self-care"}, {Code: "ne", Name: "Non-emergency"}, {Code: "em", Name: "Emergency care"}}
	item := qa.Item{ID: "t", Kind: qa.KindTriage, Triage: &qa.Triage{Scale: scale, Ranks: []int{2, 0, 1}},
		Options: []qa.Option{{Letter: "A", Text: "em"}, {Letter: "B", Text: "sc"}, {Letter: "C", Text: "ne"}}}
	s := NewSession(nil, item, protocol.Unit{}, false, 0)
	want := [][]string{
		{"em", "Emergency care", "Emergency"},
		{"sc", "Self-care", "Self care"},
		{"ne", "Non-emergency", "Non emergency", "Non-emergency care", "Non emergency care"},
	}
	for i, o := range s.Options {
		if !slices.Equal(o.Aliases, want[i]) {
			t.Errorf("option %s aliases %q, want %q", o.Letter, o.Aliases, want[i])
		}
	}
	if a := answer.Parse("Urgency: Emergency", s.Options); a.First() != "A" {
		t.Errorf("read %v", a.Ranking)
	}
	mcq := NewSession(nil, qa.Item{ID: "m", Options: []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}}, protocol.Unit{}, false, 0)
	for _, o := range mcq.Options {
		if o.Aliases != nil {
			t.Errorf("multiple-choice option %s has aliases %q", o.Letter, o.Aliases)
		}
	}
}

// TestCallOrder: a call's Order, when set, is its llm.Meta.Order (for a
// protocol whose stages Order does not rank); otherwise Order's.
func TestCallOrder(t *testing.T) {
	s := NewSession(nil, qa.Item{ID: "q"}, protocol.Unit{}, false, 0)
	if got := s.Meta(Call{Phase: "gather", Kind: "question_domains", Agent: -1, Order: 77}).Order; got != 77 {
		t.Fatalf("order %d, want 77", got)
	}
	if got, want := s.Request(Call{Phase: PhaseDebate, Kind: KindRevise, Turn: 2, Agent: 1}).Meta.Order, Order(PhaseDebate, KindRevise, 2, 1); got != want {
		t.Fatalf("order %d, want %d", got, want)
	}
}

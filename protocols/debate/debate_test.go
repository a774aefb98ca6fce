package debate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// answerOf is an answer in the revise format.
func answerOf(first string, conf float64) string {
	return fmt.Sprintf(`{"reasoning":"%s fits.","ranking":["%s"],"confidence":%g}`, first, first, conf)
}

// TestRevisionsSeeThePreviousRound: in round t agent i sees its own answer
// of round t−1 as "POSITION you" and every other agent's as "POSITION agent
// N", with reasoning; never itself as another agent.
func TestRevisionsSeeThePreviousRound(t *testing.T) {
	s := &kittest.Script{Default: func(req llm.Request) string {
		l := string(rune('A' + (req.Meta.Agent+req.Meta.Turn)%4))
		if req.Meta.Kind == kit.KindFirst {
			return kittest.First(l, 0.7, 0.3, false)
		}
		return answerOf(l, 0.6)
	}}
	out := kittest.Run(t, Protocol, "debate:3,2", kittest.Settings(0), s)
	if len(out.Rounds) != 3 || len(s.Keys()) != 9 {
		t.Fatalf("%d rounds, %d calls", len(out.Rounds), len(s.Keys()))
	}
	for round := 1; round <= 2; round++ {
		for i := range 3 {
			p := s.User(t, kittest.Key(kit.KindRevise, round, i))
			prev := out.Rounds[round-1]
			if !strings.Contains(p, kit.PositionLine("you", prev[i])) || !strings.Contains(p, fmt.Sprintf("Debate round %d of 2", round)) {
				t.Fatalf("round %d agent %d: own answer missing:\n%s", round, i+1, p)
			}
			for j := range 3 {
				has := strings.Contains(p, fmt.Sprintf("POSITION agent %d:", j+1))
				if has != (j != i) {
					t.Fatalf("round %d agent %d: shows agent %d = %v:\n%s", round, i+1, j+1, has, p)
				}
				if j != i && !strings.Contains(p, kit.PositionLine(fmt.Sprintf("agent %d", j+1), prev[j])+kit.ReasoningLine(fmt.Sprintf("agent %d", j+1), prev[j], 0)) {
					t.Fatalf("round %d agent %d: agent %d's previous answer missing", round, i+1, j+1)
				}
			}
		}
	}
}

// TestPluralityOfTheLastRound.
func TestPluralityOfTheLastRound(t *testing.T) {
	script := func(last []string) *kittest.Script {
		s := &kittest.Script{Answers: map[string]string{}}
		for i := range 3 {
			s.Answers[kittest.Key(kit.KindFirst, 0, i)] = kittest.First("D", 0.9, 0.1, false) // round 0 unanimous for D
			if last != nil {
				s.Answers[kittest.Key(kit.KindRevise, 1, i)] = last[i]
			}
		}
		return s
	}
	out := kittest.Run(t, Protocol, "debate:n=3,r=1", kittest.Settings(0), script([]string{answerOf("B", 0.6), answerOf("C", 0.6), answerOf("B", 0.6)}))
	if out.Predicted != "B" || out.Decision.Rule != RuleDebate || out.TieBrokenBy != "" {
		t.Fatalf("2-1 for B in the last round: %q %q %q", out.Predicted, out.Decision.Rule, out.TieBrokenBy)
	}
	// A tie of the last round (one answer unreadable) is a seeded draw, recorded.
	tie := []string{answerOf("B", 0.6), answerOf("C", 0.6), "I am not sure."}
	out = kittest.Run(t, Protocol, "debate:n=3,r=1", kittest.Settings(0), script(tie))
	det := out.Details.(Details)
	if !out.Decision.Tie || out.TieBrokenBy != "seeded_draw" || det.Drawn != out.Predicted || (out.Predicted != "B" && out.Predicted != "C") {
		t.Fatalf("tie: predicted %q broken by %q details %+v", out.Predicted, out.TieBrokenBy, det)
	}
	if again := kittest.Run(t, Protocol, "debate:n=3,r=1", kittest.Settings(0), script(tie)); again.Predicted != out.Predicted {
		t.Fatal("the draw is not reproducible")
	}
	// r=0: the plurality of the first answers, n calls.
	s := script(nil)
	out = kittest.Run(t, Protocol, "debate:n=3,r=0", kittest.Settings(0), s)
	if out.Predicted != "D" || len(s.Keys()) != 3 {
		t.Fatalf("r=0: %q after %d calls", out.Predicted, len(s.Keys()))
	}
	// Nobody readable in the last round: abstain.
	out = kittest.Run(t, Protocol, "debate:n=3,r=1", kittest.Settings(0), script([]string{"", "?", "hm"}))
	if out.Predicted != "" || !strings.HasPrefix(out.AbstainReason, "no_votes") {
		t.Fatalf("no votes: %q %q", out.Predicted, out.AbstainReason)
	}
}

func TestArms(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		agents int
		label  string
		calls  int
		err    string
	}{
		{"debate", 0, "debate:n=3,r=2", 9, ""},
		{"debate", 4, "debate:n=4,r=2", 12, ""},
		{"debate:3,2", 0, "debate:n=3,r=2", 9, ""},
		{"debate:n=2,r=0", 0, "debate:n=2,r=0", 2, ""},
		{"debate:r=1", 2, "debate:n=2,r=1", 4, ""},
		{"debate:1,2", 0, "", 0, "from 2 to 16"},
		{"debate:3,2,1", 0, "", 0, "takes n and r"},
		{"debate:k=3", 0, "", 0, "unknown option"},
	} {
		a, ok, err := Protocol.Parse(tt.spec, kittest.Settings(tt.agents))
		if !ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if err != nil {
			continue
		}
		if c, _ := a.Calls(0); a.Info().Label != tt.label || c != tt.calls {
			t.Fatalf("%s: label %q calls %d", tt.spec, a.Info().Label, c)
		}
	}
}

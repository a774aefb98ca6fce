package council

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

func TestDecision(t *testing.T) {
	for _, tt := range []struct {
		name, chair, predicted, rule, reason, attrErr string
		contributors                                  int
	}{
		{"the chairman decides", `{"answer":"B","reasoning":"r","contributors":[{"id":2,"weight":1,"reason":"r"}]}`, "B", RuleChairman, "", "", 1},
		{"a malformed attribution is recorded, the decision stands", "ANSWER: B\nREASONING: r\n```json\n{\"contributors\": [{\"id\": 2, \"weight\": 1}\n```", "B", RuleChairman, "", "does not decode", 0},
		{"an unreadable answer abstains", "I would rather not decide between A and C.", "", RuleChairmanUnparsed, "chairman_unparsed", "no contributors block", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := councilScript(tt.chair)
			out := kittest.Run(t, Protocol, "council:risk-averse", kittest.Settings(3), s)
			det := out.Details.(Details)
			if out.Predicted != tt.predicted || out.Decision.Rule != tt.rule || !strings.HasPrefix(out.AbstainReason, tt.reason) ||
				!strings.Contains(det.AttributionError, tt.attrErr) || len(det.Contributors) != tt.contributors || det.Strategy != "risk-averse" {
				t.Fatalf("predicted %q rule %q reason %q details %+v", out.Predicted, out.Decision.Rule, out.AbstainReason, det)
			}
			if tt.attrErr != "" && !slices.ContainsFunc(out.Parses, func(p protocol.ParseNote) bool {
				return p.Kind == kit.KindChairman && slices.ContainsFunc(p.Notes, func(n string) bool { return strings.HasPrefix(n, "attribution: ") })
			}) {
				t.Fatalf("the attribution failure is not in the chairman's parse notes: %+v", out.Parses)
			}
			if len(s.Keys()) != 2*3+1 {
				t.Fatalf("%d calls, want 7", len(s.Keys()))
			}
		})
	}
}

// TestPeerRankingAggregates: reviews rank labels; the standings rank the
// experts behind them, and the chairman is shown them.
func TestPeerRankingAggregates(t *testing.T) {
	// Every reviewer ranks the labels in the reverse of the order shown; map
	// that back by the recorded labels and recompute the mean positions.
	s := councilScript(`{"answer":"A","contributors":[]}`)
	out := kittest.Run(t, Protocol, "council:n=4", kittest.Settings(3), s)
	det := out.Details.(Details)
	sum, cnt := make([]float64, 4), make([]int, 4)
	for i, rk := range det.PeerRankings {
		if len(rk) != 3 || slices.Contains(rk, i+1) {
			t.Fatalf("reviewer %d ranked %v", i+1, rk)
		}
		for p, agent := range rk {
			sum[agent-1] += float64(p + 1)
			cnt[agent-1]++
		}
	}
	chair := s.User(t, kittest.Key(kit.KindChairman, 0, -1))
	for _, st := range det.Standings {
		if want := sum[st.Agent-1] / float64(cnt[st.Agent-1]); st.MeanRank != want || st.Count != 3 {
			t.Fatalf("standing %+v, want mean %v", st, want)
		}
		line := fmt.Sprintf("PEER RANK agent %d: %.2f (ranked by 3 of 3 reviewers)", st.Agent, st.MeanRank)
		if !strings.Contains(chair, line) {
			t.Fatalf("chairman prompt lacks %q:\n%s", line, chair)
		}
	}
	for k := 1; k < len(det.Standings); k++ {
		if det.Standings[k].MeanRank < det.Standings[k-1].MeanRank {
			t.Fatalf("standings not best first: %+v", det.Standings)
		}
	}
	if !strings.Contains(chair, "STRATEGY: balanced\n"+Strategies[0].Directive) {
		t.Fatalf("chairman prompt lacks the directive:\n%s", chair)
	}
}

// TestStrategiesShareStagesOneAndTwo: only the chairman's request differs
// between strategies.
func TestStrategiesShareStagesOneAndTwo(t *testing.T) {
	hashes := map[string]map[string]string{}
	for _, st := range StrategyNames() {
		s := councilScript(`{"answer":"A","contributors":[]}`)
		kittest.Run(t, Protocol, "council:"+st, kittest.Settings(3), s)
		hashes[st] = map[string]string{}
		for _, k := range s.Keys() {
			hashes[st][k] = llm.RequestHash(s.Reqs[k])
		}
	}
	for k, h := range hashes["balanced"] {
		for _, st := range StrategyNames()[1:] {
			same := hashes[st][k] == h
			if chair := strings.HasPrefix(k, kit.KindChairman); same == chair {
				t.Fatalf("%s: request %s shared=%v between balanced and %s", k, h, same, st)
			}
		}
	}
}

func TestArms(t *testing.T) {
	for _, tt := range []struct{ spec, label, err string }{
		{"council", "council:balanced/n3", ""},
		{"council:balanced/n3", "council:balanced/n3", ""},
		{"council:risk-averse", "council:risk-averse/n3", ""},
		{"council:strategy=goal-seeking", "council:goal-seeking/n3", ""},
		{"council:novelty,n=5", "council:novelty,n=5", ""},
		{"council:reckless", "", "unknown strategy"},
		{"council:novelty,strategy=balanced", "", "one strategy"},
		{"council:n=1", "", "from 2 to 16"},
	} {
		a, ok, err := Protocol.Parse(tt.spec, kittest.Settings(3))
		if !ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if err == nil && a.Info().Label != tt.label {
			t.Fatalf("%s: label %q", tt.spec, a.Info().Label)
		}
	}
}

// TestRiskAverseSeedWords (issue 36 item 6): the risk-averse directive is
// seed 001's words — §5.2's use case and §6.2's example directive verbatim,
// its "high-reward option" qualifier included — and the directives are part
// of the protocol's prompt hash, so changed words are a changed plan.
func TestRiskAverseSeedWords(t *testing.T) {
	d, err := directive("risk-averse")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{
		"Prioritize safety and stability. Reject any high-risk proposals.",
		"Your goal is to parse the inputs for any risks identified by the Council. If a high-reward option has a significant weakness, it MUST be discarded. Synthesize the safest, most robust path forward.",
	} {
		if !strings.Contains(d, seed) {
			t.Errorf("risk-averse directive %q lacks the seed's words %q", d, seed)
		}
	}
	before := Protocol.Prompts()
	i := slices.IndexFunc(Strategies, func(s struct{ Name, Directive string }) bool { return s.Name == "risk-averse" })
	old := Strategies[i].Directive
	Strategies[i].Directive = old + " (changed)"
	after := Protocol.Prompts()
	Strategies[i].Directive = old
	if before == after {
		t.Error("a changed directive leaves the prompt hash unchanged: a plan would resume under other words")
	}
}

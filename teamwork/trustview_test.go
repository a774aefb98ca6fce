package teamwork

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
)

var (
	trustScoreLine = regexp.MustCompile(`(?m)^agent \d: \d\.\d\d$`)
	trustLevelLine = regexp.MustCompile(`(?m)^agent \d: (highly trusted|trusted|moderate trust|developing trust)$`)
)

// trustBlock is what a prompt shows after "TRUST:" ("" when it has none).
func trustBlock(p string) string {
	_, after, ok := strings.Cut(p, "\nTRUST:\n")
	if !ok {
		return ""
	}
	block, _, _ := strings.Cut(after, "\n\n")
	return block
}

// TestTrustViewInAgentPrompts (issue 36 item 1): in every trust arm the
// agents' discussion and monitoring prompts show each agent's exact trust
// score by default (seed 002 §3, BuildR3Context(…, T_scores, …)), a level
// per agent with trust=levels (the reference's get_trust_hints_for_prompt)
// and no trust at all with trust=hidden (the reference's trust_network.py:
// "agents don't see trust scores"); the weights of the vote are the same
// trust scores in every view.
func TestTrustViewInAgentPrompts(t *testing.T) {
	qs := sampleQuestions(t, 3)
	model := simFor(t, "default", qs)
	settings := protocol.Settings{Turns: 2, Agents: 3, Discussion: string(RoundRobin), Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	for _, preset := range []string{"c4", "c5", "c7", "full"} {
		for _, view := range []string{"", "scores", "levels", "hidden"} {
			spec := preset
			if view != "" {
				spec += ":trust=" + view
			}
			a, _, err := Protocol.Parse(spec, settings)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			c := a.(Arm).Config
			wantLabel := preset + "/n3"
			if view == "levels" || view == "hidden" {
				wantLabel += "/trust-" + view
			}
			if c.Label() != wantLabel {
				t.Fatalf("%s: label %q, want %q", spec, c.Label(), wantLabel)
			}
			for _, q := range qs {
				out, reqs := runLogged(t, c, q.Item(), model)
				if len(out.Trust) != out.N {
					t.Fatalf("%s: trust %v for %d agents", spec, out.Trust, out.N)
				}
				shown := map[string]int{}
				for k, req := range reqs {
					if req.Meta.Agent < 0 || (req.Meta.Kind != KindDiscuss && req.Meta.Kind != KindFinal && req.Meta.Kind != KindMonitorRespond) {
						continue
					}
					shown[req.Meta.Kind]++
					block := trustBlock(req.Messages[len(req.Messages)-1].Content)
					lines := strings.Count(block, "\n") + 1
					var ok bool
					switch view {
					case "", "scores":
						ok = len(trustScoreLine.FindAllString(block, -1)) == out.N && lines == out.N
					case "levels":
						ok = len(trustLevelLine.FindAllString(block, -1)) == out.N && lines == out.N
					case "hidden":
						ok = block == "" && !strings.Contains(req.Messages[len(req.Messages)-1].Content, "TRUST")
					}
					if !ok {
						t.Fatalf("%s %s: trust block %q", spec, k, block)
					}
				}
				if shown[KindDiscuss] == 0 || shown[KindFinal] == 0 || (c.Monitoring && shown[KindMonitorRespond] == 0) {
					t.Fatalf("%s: agent prompts checked %v", spec, shown)
				}
			}
		}
	}
	for _, bad := range []string{"c4:trust=secret", "c4:trust", "c2:trust=hidden", "base:trust=levels", "c1:trust=hidden"} {
		if _, _, err := Protocol.Parse(bad, settings); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}

// TestTrustViewTieBreakSeesScores: the leader's tie-break shows the exact
// scores in every view (seed 002 §3 Leader.ResolveTie(Tied, R₃, T_scores,
// M_smm); the reference's resolve_tie prints "(trust: 0.80)"): the views
// change only what the agents see.
func TestTrustViewTieBreakSeesScores(t *testing.T) {
	for _, view := range TrustViews() {
		c, _ := ParseComponents("l+t", Default())
		c.TrustView = view
		reply := func(m llm.Meta, p string) string {
			if m.Kind == KindSynthesize {
				return `{"facts": [], "report": "", "quality": [{"agent": 1, "score": 0.5}, {"agent": 2, "score": 0.5}]}`
			}
			return tieScript(`{"reasoning": "r", "answer": "A"}`)(m, p)
		}
		log := &fullLog{next: &scripted{reply: reply}, reqs: map[string]llm.Request{}}
		out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), noConcurrency{log}, fourOptions)
		if err != nil {
			t.Fatal(err)
		}
		if out.TieBrokenBy != "leader" {
			t.Fatalf("%s: tie broken by %q", view, out.TieBrokenBy)
		}
		tb := log.reqs[callKey(llm.Meta{Kind: KindTieBreak, Agent: -1})].Messages[1].Content
		if got := trustScoreLine.FindAllString(trustBlock(tb), -1); len(got) != 2 {
			t.Fatalf("%s: the tie-break shows trust %q:\n%s", view, got, tb)
		}
	}
}

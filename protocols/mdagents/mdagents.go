// Package mdagents is MDAgents (Kim et al., NeurIPS 2024, "MDAgents: An
// Adaptive Collaboration of LLMs for Medical Decision-Making"; public code
// mitmedialab/MDAgents, main.py and utils.py) as a protocol.Protocol:
// "mdagents", or "mdagents:route=basic|intermediate|advanced" to force one
// path (no router call; for ablations).
//
// A router call decides the query's complexity, and the query takes that
// path, each as the public code runs it (docs/protocols.md#mdagents has
// every count, prompt, rule and deviation):
//
//   - basic: a single agent answers after few-shot exemplars (5, drawn with
//     a seed from the training split of --fewshot-file), each given as a
//     question, the reason the model wrote for its answer (one call per
//     exemplar) and the answer. Without --fewshot-file it answers zero-shot,
//     and the row says so.
//   - intermediate: a recruiter names 5 experts with a hierarchy; each gives
//     a first opinion (with the exemplars); then up to 5 rounds of up to 5
//     turns in which each expert in turn says whether it wants to talk,
//     whom to, and sends each chosen expert a message; a round nobody talks
//     in ends the discussion; after each round every expert gives its final
//     answer; a moderator decides by majority vote.
//   - advanced: a recruiter organises 3 multidisciplinary teams of 3
//     clinicians (an initial assessment team and a final review and
//     decision team among them); in each team the lead asks the assistants
//     for investigations, they report, and the lead answers (the team's
//     report); a final decision maker decides from the reports.
//
// The decision is the moderator's, the decision maker's or the basic
// agent's answer; an unreadable one is the safe default (abstention; on a
// triage item the most urgent level). Rows record the route (column route)
// and protocol_json has how it was read, the team and the discussion.
// Calls vary with the route and the discussion: Calls gives the overall
// bounds, 'medteam calls' each route's.
package mdagents

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// Name is the protocol's name.
const Name = "mdagents"

// Protocol is MDAgents.
var Protocol = &protocol.Protocol{
	Name: Name,
	Doc: "MDAgents (Kim et al. 2024): a router call rates the query basic, intermediate or advanced; basic = one agent " +
		"with few-shot exemplars whose reasons the model writes first; intermediate = 5 recruited experts with a hierarchy " +
		"discuss in up to 5 rounds × 5 turns, a moderator decides by majority; advanced = 3 multidisciplinary teams report, a " +
		"decision maker decides. mdagents:route=… forces a path.",
	Parse:      parseArm,
	Presets:    []string{"mdagents", "mdagents:route=basic", "mdagents:route=intermediate", "mdagents:route=advanced"},
	Accounting: writeAccounting,
	Stub:       Stub,
	Prompts:    kit.HashOf(prompts),
	// No first answer is the shared request (docs/protocols.md).
	OwnFirstAnswer: true,
	Sim:            &Sim,
}

// Decision rules (decision_rule).
const (
	RuleBasic             = "basic"              // the basic agent's answer
	RuleBasicUnparsed     = "basic_unparsed"     // it could not be read
	RuleModerator         = "moderator"          // the moderator's answer
	RuleModeratorUnparsed = "moderator_unparsed" // it could not be read
	RuleDecision          = "decision_maker"     // the advanced decision maker's answer
	RuleDecisionUnparsed  = "decision_unparsed"  // it could not be read
)

func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	sp, ok, err := kit.ParseSpec(spec, Name)
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := sp.Check("route"); err != nil {
		return nil, true, err
	}
	a := Arm{agentTemp: s.AgentTemp, leaderTemp: s.LeaderTemp, structured: s.Structured, maxTokens: s.MaxTokens,
		peerChars: s.PeerChars, fewshot: s.Fewshot}
	route, keyed := sp.Keyed["route"]
	switch {
	case len(sp.Bare) > 1 || len(sp.Bare) == 1 && keyed:
		return nil, true, fmt.Errorf("mdagents takes one option, route (mdagents:route=basic)")
	case len(sp.Bare) == 1:
		route = sp.Bare[0]
	}
	if route != "" && !slices.Contains(RouteNames, route) {
		return nil, true, fmt.Errorf("mdagents: route=%s; use basic, intermediate or advanced (or no route: the router decides)", route)
	}
	a.Forced = route
	return a, true, nil
}

// Arm is one MDAgents configuration: the router, or a forced route.
type Arm struct {
	// Forced is the route every question takes without a router call; ""
	// lets the router decide.
	Forced     string
	agentTemp  float64 // experts, exemplar reasons, team members
	leaderTemp float64 // the router and the recruiters
	structured bool
	maxTokens  int
	peerChars  int
	fewshot    *protocol.Fewshot
}

// Protocol is mdagents' Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Label is "mdagents" or "mdagents:route=…".
func (a Arm) Label() string {
	if a.Forced == "" {
		return Name
	}
	return Name + ":route=" + a.Forced
}

// Info describes the arm: the recruiter decides the team (dynamic); the
// discussion's turns are per round, spoken in order.
func (a Arm) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: a.Label(), Protocol: Name, Turns: Turns, Discussion: "round_robin", AgentPolicy: "dynamic",
		Structured: a.structured, AgentTemp: a.agentTemp, LeaderTemp: a.leaderTemp}
}

// Calls is the fewest calls a question makes and how many more it may
// make, over every route the arm may take (Bounds).
func (a Arm) Calls(int) (int, int) {
	lo, hi := a.Bounds()
	return lo, hi - lo
}

// Run routes the item and runs its path.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	r := &run{Arm: a, s: s, det: &Details{Fewshot: a.fewshotName()}}
	s.Out.Details = r.det
	route := a.Forced
	if route == "" {
		rt, err := r.route(ctx)
		if err != nil {
			return nil, err
		}
		route = rt.Route
		r.det.RouteSource, r.det.RouteParse = "router", rt.Method
	} else {
		r.det.RouteSource = "forced"
	}
	r.det.Route, s.Out.Route = route, route
	var err error
	switch route {
	case RouteBasic:
		err = r.basic(ctx)
	case RouteIntermediate:
		err = r.intermediate(ctx)
	default:
		err = r.advanced(ctx)
	}
	if err != nil {
		return nil, err
	}
	return s.Out, nil
}

// run is one question's run of the arm.
type run struct {
	Arm
	s   *kit.Session
	det *Details
}

// data is a prompt's data: the question block, the answer form and more.
func (r *run) data(kv ...any) map[string]any {
	d := map[string]any{"Question": r.s.Question, "JSON": r.structured}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i].(string)] = kv[i+1]
	}
	return d
}

// render renders template name with d.
func render(name string, d map[string]any) string {
	out, err := prompts.Render(name, d)
	if err != nil {
		panic(err) // a template that does not render is a build-time mistake (TestPromptsRender)
	}
	return out
}

// decide commits the decider's answer (its rule), or falls back to the safe
// default when it cannot be read (unparsed rule). votes are the answers it
// was shown (the scores of the row).
func (r *run) decide(ans answer.Answer, votes []answer.Answer, rule, unparsed string) {
	d := aggregator.Plurality(r.s.Item.Letters(), kit.Firsts(votes))
	r.det.Votes = kit.VoteMap(r.s.Item.Letters(), d.Scores)
	r.det.DeciderAnswer = ans.First()
	d.Tie, d.Tied, d.Winner = false, nil, ans.First()
	if ans.First() == "" {
		r.det.Rule = unparsed
		r.s.SafeDefault(d, unparsed, fmt.Sprintf("%s: %s (%s)", unparsed, ans.Err, ans.Reason))
		return
	}
	r.det.Rule = rule
	r.s.Commit(d, rule)
	if r.s.Item.IsTriage() {
		r.s.Out.Diagnosis, r.s.Out.Specialty = ans.Diagnosis, ans.Specialty
	}
}

// positions renders answers as the prompts show them: for each, a header
// line, its POSITION line and its REASONING line (the reasoning bounded by
// --peer-chars).
func (r *run) positions(heads []string, answers []answer.Answer) string {
	var sb strings.Builder
	for i, ans := range answers {
		who := fmt.Sprintf("agent %d", i+1)
		sb.WriteString(heads[i])
		sb.WriteString("\n")
		sb.WriteString(kit.PositionLine(who, ans))
		if rs := clip(ans.Reasoning, r.peerChars); rs != "" && len(ans.Ranking) > 0 {
			sb.WriteString("REASONING " + who + ": " + rs + "\n")
		}
	}
	return sb.String()
}

// parseAnswer reads an answer of kind and records how.
func (r *run) parseAnswer(text, kind string, turn, agent int) answer.Answer {
	ans := answer.Parse(text, r.s.Options)
	r.s.NoteAnswer(kind, turn, agent, ans)
	return ans
}

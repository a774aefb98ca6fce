// Package protocol is the contract between the runner and the decision
// protocols it runs, in the manner of database/sql/driver: it imports almost
// nothing (the model contract llm, the item a protocol may see, the answer
// type, the pure decision rules), and a protocol is one documented value.
//
// A Protocol (like an x/tools analysis.Analyzer) has a name, a doc, the arm
// specs it reads, its call-accounting formula and a stub model for dry runs;
// an Arm is one configuration of it. Run deliberates on one item through an
// llm.Client and returns an Outcome: what the protocol decided and observed,
// never the gold answer (scoring is the task's: package task). Every call
// carries the protocol's own labels in llm.Meta (Phase, Kind, Order).
//
// # Adding a protocol
//
//  1. Write a package under protocols/ holding one *protocol.Protocol: its
//     Name and Doc, Parse for its arm specs, Presets, Accounting (the calls
//     one question makes) and Stub (dry-run answers); its Arm's Run decides
//     on a qa.Item through the llm.Client it is given.
//  2. Add the value to protocols.All.
//  3. If its calls are kinds of its own (not the shared first answer, a
//     revision, …, which the simulator's core answers), give it a simulated
//     behaviour in its package's sim.go and set Protocol.Sim (below).
//
// A simulated behaviour is a sim.Behaviour: each kind with a code no other
// kind has (the code keys the call's draws) and an Answer written with the
// core's mechanisms (sim.Call's Skill, DrawRanking, Confidence, Cue,
// Finish, …):
//
//	var Sim = sim.Behaviour{Protocol: "mine", Kinds: map[string]uint64{KindPick: 200},
//		Answer: func(c *sim.Call) string {
//			rk := c.DrawRanking(c.Skill())
//			return c.Finish([]byte("ANSWER: "+c.Letter(rk.First())), rk.First(), false)
//		}}
//
// with Protocol.Sim = &Sim. The sim/ backend and protocols.NewSim pass every
// registered behaviour to sim.New (Registry.Sim); llm/sim itself never names
// the protocol (llm's TestLLMKnowsNoProtocol). protocols/medagents/sim.go
// and protocols/mdagents/sim.go are the worked examples, llm/sim's
// TestAddingABehaviour the smallest.
//
// Nothing else changes: the runner, the plan and the tasks know no protocol
// (protocoltest.AlwaysFirst is added this way in runner's
// TestAddingAProtocol). Adding a task is the same, in package task.
package protocol

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/suggest"
	"github.com/medteam-bench/medteam/triage/redflag"
)

// Protocol is one decision protocol.
type Protocol struct {
	// Name identifies the protocol in rows (the protocol column) and specs.
	Name string
	// Doc says what the protocol does, its source and its decision rule.
	Doc string
	// Parse reads one arm spec (a --config entry) with the plan's shared
	// settings. ok is false when spec is not this protocol's; err is a
	// problem with a spec that is.
	Parse func(spec string, s Settings) (a Arm, ok bool, err error)
	// Presets are the named arms, for help texts and the accounting table.
	Presets []string
	// Aliases are other names people call the protocol by (e.g.
	// "self-consistency" for sc): not specs, but an unknown arm close to
	// one is told to use the protocol ("did you mean …?").
	Aliases []string
	// Accounting writes the protocol's call-accounting table: the calls one
	// question makes per arm and team size (what 'medteam calls' prints).
	Accounting func(w io.Writer) error
	// Stub answers every call of the protocol with a typical well-formed
	// response, for dry runs; long asks for answers of a language model's
	// length rather than the simulator's.
	Stub func(long bool) llm.Client
	// Prompts, when set, returns the hash of the prompt set the protocol
	// renders its requests from; a plan that runs the protocol records it,
	// so a changed prompt is a different plan. (teamwork's prompt set is the
	// plan's prompt_set_hash and leaves this nil.)
	Prompts func() string
	// OwnFirstAnswer is true when the method asks its first answers in its
	// own prompts rather than the shared first-answer request
	// (protocols/firstanswer, with or without additions): zeroshot, veto
	// (its roles and ballots from round 1 on), medagents, mdagents. The
	// report names such arms apart from those whose shared request differs
	// (DESIGN §5 "Equal terms").
	OwnFirstAnswer bool
	// Sim, when set, is the protocol's simulated behaviour: how llm/sim
	// answers the call kinds that are the protocol's own (its package's
	// sim.go). Nil for a protocol whose calls are kinds the simulator's core
	// answers (the shared first answer, a revision, …).
	Sim *sim.Behaviour
}

// Sim lists the registry's simulated behaviours (Protocol.Sim), for
// sim.New: sim.New(profile, items, registry.Sim()...).
func (r Registry) Sim() []sim.Behaviour {
	var out []sim.Behaviour
	for _, p := range r {
		if p.Sim != nil {
			out = append(out, *p.Sim)
		}
	}
	return out
}

// OwnFirstAnswer lists the registry's protocols that ask their first
// answers in their own prompts (Protocol.OwnFirstAnswer), by name.
func (r Registry) OwnFirstAnswer() []string {
	var out []string
	for _, p := range r {
		if p.OwnFirstAnswer {
			out = append(out, p.Name)
		}
	}
	return out
}

// Settings are the plan settings every arm of a run shares.
type Settings struct {
	Turns, Agents         int    // discussion turns; team size (0 = the protocol decides)
	Discussion            string // discussion order
	Structured            bool   // JSON structured output rather than labelled text
	AgentTemp, LeaderTemp float64
	MaxTokens             int
	// PeerChars bounds, in bytes, each piece of another agent's text a
	// prompt shows (a peer's reasoning to the leader, discussion history,
	// a debate peer's reply); 0 = the full text (medteam run --peer-chars).
	// Reasoning itself is bounded by MaxTokens only.
	PeerChars int
	// RedFlags are the red-flag rules seed 003's judge applies to triage
	// items before any call (medteam run --red-flags); nil = the embedded
	// configs/redflags.yaml.
	RedFlags *redflag.Rules
	// Fewshot is the training split few-shot exemplars are drawn from
	// (medteam run --fewshot-file; mdagents); nil = none, and a method that
	// asks for exemplars runs zero-shot and says so.
	Fewshot *Fewshot
	// PromptLayout is how the protocols lay out their requests (medteam run
	// --prompt-layout): LayoutShared puts what every call of a question
	// shares first, in the same bytes, so a provider's prefix cache serves
	// it; LayoutSource ("" too) is the seeds' and papers' own order.
	PromptLayout string
}

// Prompt layouts (Settings.PromptLayout).
const (
	LayoutShared = "shared"
	LayoutSource = "source"
)

// SharedLayout reports whether the requests are laid out shared-prefix-first.
func (s Settings) SharedLayout() bool { return s.PromptLayout == LayoutShared }

// Fewshot is a training split whose questions, with their gold answers, a
// protocol may show as worked examples. The plan refuses one that shares a
// question (by content) with a dataset it evaluates; the evaluated
// question's own gold answer never reaches a protocol.
type Fewshot struct {
	Name      string // the file as given
	SHA256    string // its content hash (the plan records it)
	Questions []qa.Question
}

// Unit is what one run of an arm needs to know besides the item: the model
// name sent in requests, and what call seeds derive from.
type Unit struct {
	Model   string
	Arm     string // the arm's label, recorded in call metadata
	RunSeed int64
	Repeat  int
}

// Arm is one configuration of a protocol.
type Arm interface {
	// Protocol is the protocol the arm configures.
	Protocol() *Protocol
	// Info describes the arm for rows, the plan document and the manifest.
	Info() ArmInfo
	// Calls is the accounting formula: the model calls one question makes
	// with a team of n, and at most how many more it may make (a leader's
	// tie-break).
	Calls(n int) (calls, extra int)
	// Run deliberates on one item.
	Run(ctx context.Context, c llm.Client, item qa.Item, u Unit) (*Outcome, error)
}

// ArmInfo describes an arm. The component and team fields are the typed
// optional columns of the question row: a protocol leaves what does not
// apply to it at the zero value.
type ArmInfo struct {
	Label, Protocol                                 string
	SMM, Leadership, Orientation, Trust, Monitoring bool
	Turns                                           int
	Discussion, AgentPolicy                         string
	Structured                                      bool
	AgentTemp, LeaderTemp                           float64
	// RedFlagsSHA256 is the hash of the red-flag rules the arm applies to
	// triage items ("" for arms that apply none); the plan records it.
	RedFlagsSHA256 string
	// RedFlags names the rule set (redflag.Rules.Name), and
	// RedFlagsDevelopedOn says what data it was developed on, when its
	// file says (redflag.Rules.DevelopedOn): the report warns that such a
	// set's figures on that data are in-sample.
	RedFlags, RedFlagsDevelopedOn string
}

// Registry is the protocols a run may use, in the order their specs are
// tried.
type Registry []*Protocol

// Parse reads an arm spec with the first protocol that knows it.
func (r Registry) Parse(spec string, s Settings) (Arm, error) {
	for _, p := range r {
		a, ok, err := p.Parse(spec, s)
		if err != nil {
			return nil, err
		}
		if ok {
			return a, nil
		}
	}
	return nil, r.unknown(spec)
}

// unknown is the error for a spec no protocol claimed: every protocol and
// every preset, and the closest name (Suggest).
func (r Registry) unknown(spec string) error {
	names := make([]string, len(r))
	for i, p := range r {
		names[i] = p.Name
	}
	msg := fmt.Sprintf("unknown arm %q", spec)
	if best, ok := r.Suggest(spec); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("%s; the protocols are %s, and their presets %s (see 'medteam calls' for what each costs)",
		msg, strings.Join(names, ", "), strings.Join(r.Presets(), ", "))
}

// Suggest returns the arm spec closest to a mistyped one: its name (before
// ':') against every preset's name and every protocol's name and aliases,
// by edit distance (suggest.Closest). A protocol's name or alias suggests
// the name with the options given ("self-consistency:k=3" → "sc:k=3"), or,
// without any, the protocol's first preset ("self-consistency" → "sc:k=5").
func (r Registry) Suggest(spec string) (string, bool) {
	name, opts, hasOpts := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), ":")
	suffix := ""
	if hasOpts {
		suffix = ":" + opts
	}
	var keys []string
	to := map[string]string{}
	add := func(key, spec string) {
		if _, dup := to[key]; !dup {
			keys, to[key] = append(keys, key), spec
		}
	}
	for _, p := range r {
		for _, pre := range p.Presets {
			if !strings.Contains(pre, ":") {
				add(pre, pre+suffix)
			}
		}
		whole := p.Name + suffix
		if !hasOpts && len(p.Presets) > 0 {
			whole = p.Presets[0]
		}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			add(n, whole)
		}
	}
	best, ok := suggest.Closest(name, keys)
	return to[best], ok
}

// Lookup returns the protocol named name, nil when none is.
func (r Registry) Lookup(name string) *Protocol {
	for _, p := range r {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Presets lists every protocol's named arms.
func (r Registry) Presets() []string {
	var out []string
	for _, p := range r {
		out = append(out, p.Presets...)
	}
	return out
}

// JoinSpecs rejoins arm specs that a comma-separated list (--config a,b, a
// YAML flow list) split inside one arm's options. An arm spec is a name or a
// teamwork combination, optionally followed by ":" and comma-separated
// options; a token that is a whole number or key=value continues the arm
// before it when that arm has options: "debate:3", "2" → "debate:3,2";
// "vote:weighted", "n=5" → "vote:weighted,n=5". Any other token starts a
// new arm, so teamwork lists ("base", "smm+l") are unchanged, and joining
// joined specs changes nothing.
func JoinSpecs(tokens []string) []string {
	var out []string
	for _, t := range tokens {
		s := strings.TrimSpace(t)
		if n := len(out); n > 0 && strings.Contains(out[n-1], ":") && continuesSpec(s) {
			out[n-1] += "," + s
			continue
		}
		out = append(out, t)
	}
	return out
}

// continuesSpec reports whether an option token (a number or key=value)
// cannot be an arm of its own.
func continuesSpec(s string) bool {
	switch {
	case s == "" || strings.ContainsAny(s, ":,+"): // an arm, or already joined
		return false
	case strings.Contains(s, "="):
		return true
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

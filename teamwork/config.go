package teamwork

import (
	"fmt"
	"slices"
	"strings"
)

// DiscussionMode is how the agents of one discussion turn speak.
type DiscussionMode string

const (
	// RoundRobin: agents speak in a fixed order and each sees what the earlier
	// agents said in the same turn (seed 002).
	RoundRobin DiscussionMode = "round_robin"
	// Parallel: all agents of a turn speak at once and see only earlier turns
	// (what the reference implementation does; a shorter critical path).
	Parallel DiscussionMode = "parallel"
)

// Config is one teamwork arm: the five component flags and the discussion
// parameters.
type Config struct {
	// Name is the preset name ("base", "c1"…"c7", "full") or the canonical
	// component list ("smm+l+to").
	Name string

	SMM         bool // shared mental model
	Leadership  bool // L
	Orientation bool // team orientation (TO)
	Trust       bool // T
	Monitoring  bool // mutual monitoring (MM); requires Leadership

	Turns      int            // discussion turns, 2 or 3
	Agents     int            // 0 = dynamic (2–4, decided by the recruiter); 2–4 = fixed
	Discussion DiscussionMode // round_robin (default) or parallel
	Structured bool           // ask for JSON output through the backend's schema support

	AgentTemperature  float64 // default 0.7
	LeaderTemperature float64 // recruiter and leader; default 0.5
	MaxTokens         int     // completion cap per call; 0 = backend default
	// PeerChars bounds, in bytes, each piece of another member's text a
	// prompt shows (a reasoning in the discussion history or the leader's
	// view, a concern, a reply, a mediation); 0 = the full text.
	PeerChars int
	// SharedLayout lays every call out shared-prefix-first (--prompt-layout
	// shared; protocol.Settings.PromptLayout): one user message that opens
	// with what every call of the question shares — the question, the
	// analysis, the facts and report, the discussion so far — and then the
	// caller's system text, its role and the turn's request. false is seed
	// 002's order: the system prompt, then the user prompt.
	SharedLayout bool

	// ShowLeaning shows the leader's leaning (asked in every mediation) to
	// the agents: a "POSITION leader:" line and "[leaning X]" in the
	// history. Off by default: the mediator is neutral, as in the reference
	// implementation; the arm option "leaning" ("full:leaning") turns it
	// on. It needs leadership (the leaning comes from the mediation).
	ShowLeaning bool

	// TrustView is what the agents' prompts show of the trust scores (with
	// T): TrustScores (the default, "" reads the same), TrustLevels or
	// TrustHidden; the arm option "trust=…" ("c4:trust=hidden") sets it.
	// The leader's tie-break sees the exact scores in every view.
	TrustView TrustView
}

// OptionLeaning is the arm option that sets ShowLeaning ("c2:leaning").
const OptionLeaning = "leaning"

// OptionTrust is the arm option that sets TrustView ("c4:trust=hidden").
const OptionTrust = "trust"

// TrustView is what the agents see of the trust scores.
//
// Seed 002 §3 builds every discussion turn's shared context from the trust
// scores ("Context_shared ← BuildR3Context(R₂, M_smm, T_scores,
// FormalReport)"), so by default the agents see each agent's exact score
// (TrustScores). The public reference implementation reads it two other
// ways: SLM-TeamMedAgents teamwork_components/trust_network.py's module
// docstring says trust "affects aggregation weights only, not agent
// behavior (agents don't see trust scores)" (TrustHidden), while its
// adk_agents/three_round_debate_adk.py (_build_r3_shared_context) puts
// TrustNetwork.get_trust_hints_for_prompt() into every round-3 context: a
// level per agent "without revealing exact scores" (TrustLevels). Visible
// scores invite deference, so the measured effect of T mixes weighting
// with social pressure; TrustHidden isolates the weighting.
type TrustView string

const (
	TrustScores TrustView = "scores" // "TRUST: agent 1: 0.70" (seed 002 §3; the default)
	TrustLevels TrustView = "levels" // "agent 1: trusted" (the reference's get_trust_hints_for_prompt)
	TrustHidden TrustView = "hidden" // no trust block in any agent prompt (the reference's docstring)
)

// TrustViews lists the values of the trust option.
func TrustViews() []TrustView { return []TrustView{TrustScores, TrustLevels, TrustHidden} }

// ParseTrustView reads the value of the trust option.
func ParseTrustView(v string) (TrustView, error) {
	s := TrustView(strings.ToLower(strings.TrimSpace(v)))
	if slices.Contains(TrustViews(), s) {
		return s, nil
	}
	return "", fmt.Errorf("trust=%q: use trust=scores (agents see each exact score, seed 002), trust=levels (a level per agent, the reference's prompt hints) or trust=hidden (agents see none; trust only weights the vote)", v)
}

// trustView is TrustView with "" read as the default.
func (c Config) trustView() TrustView {
	if c.TrustView == "" {
		return TrustScores
	}
	return c.TrustView
}

// Presets are the configurations of seed 002 §6.
var presets = []struct {
	name  string
	combo string
}{
	{"base", ""},
	{"c1", "smm"},
	{"c2", "l"},
	{"c3", "l+to"},
	{"c4", "t"},
	{"c5", "l+t+mm"},
	{"c6", "smm+l+to"},
	{"c7", "l+t+mm"},
	{"full", "smm+l+to+t+mm"},
}

// FactorialName is the --config entry (and sweep-file arm) that stands for
// every valid component combination (Factorial).
const FactorialName = "factorial"

// Factorial lists the 24 valid component combinations — 2⁵ less the 8 with
// mutual monitoring but no leadership (Validate) — as canonical component
// lists (Combo: "base", "smm", "l", …, "smm+l+to+t+mm"), by number of
// components, then in binary order of (smm, l, to, t, mm). Run together
// they are a full factorial design of the five components under that one
// constraint, from which the report estimates main effects and two-way
// interactions.
func Factorial() []string {
	var cs []Config
	for m := range 32 {
		c := Config{SMM: m&1 != 0, Leadership: m&2 != 0, Orientation: m&4 != 0, Trust: m&8 != 0, Monitoring: m&16 != 0}
		if !c.Monitoring || c.Leadership {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b Config) int { return a.components() - b.components() })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Combo()
	}
	return out
}

// components is the number of components switched on.
func (c Config) components() int {
	n := 0
	for _, on := range []bool{c.SMM, c.Leadership, c.Orientation, c.Trust, c.Monitoring} {
		if on {
			n++
		}
	}
	return n
}

// PresetNames lists the presets in seed order.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.name
	}
	return out
}

// Default returns the defaults every arm starts from: round-robin
// discussion, 2 turns, a dynamic team, structured output, the reference's
// temperatures (agents 0.7, recruiter and leader 0.5).
func Default() Config {
	return Config{
		Turns: 2, Discussion: RoundRobin, Structured: true,
		AgentTemperature: 0.7, LeaderTemperature: 0.5,
	}
}

// ParseComponents sets the five flags of base from a preset name ("base",
// "c1"…"c7", "full", "all") or a '+'-joined component list such as
// "smm+l+to" (components: smm, l|leadership, to|orientation, t|trust,
// mm|monitoring). It rejects mutual monitoring without leadership.
func ParseComponents(spec string, base Config) (Config, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	c := base
	c.SMM, c.Leadership, c.Orientation, c.Trust, c.Monitoring = false, false, false, false, false
	if s == "all" {
		s = "full"
	}
	combo, isPreset := "", false
	for _, p := range presets {
		if p.name == s {
			combo, isPreset = p.combo, true
		}
	}
	if !isPreset {
		if s == "" {
			return Config{}, fmt.Errorf("empty teamwork configuration; use a preset (%s) or components joined by '+' (smm, l, to, t, mm)", strings.Join(PresetNames(), ", "))
		}
		combo = s
	}
	if combo != "" {
		for _, tok := range strings.Split(combo, "+") {
			switch strings.TrimSpace(tok) {
			case "smm":
				c.SMM = true
			case "l", "leadership":
				c.Leadership = true
			case "to", "orientation":
				c.Orientation = true
			case "t", "trust":
				c.Trust = true
			case "mm", "monitoring":
				c.Monitoring = true
			default:
				return Config{}, fmt.Errorf("unknown teamwork component %q in %q; components are smm, l, to, t, mm (joined by '+'), presets are %s", tok, spec, strings.Join(PresetNames(), ", "))
			}
		}
	}
	if isPreset {
		c.Name = s
	} else {
		c.Name = c.Combo()
	}
	return c, c.Validate()
}

// Combo is the canonical component list, "base" when none is on.
func (c Config) Combo() string {
	var parts []string
	for _, f := range []struct {
		on   bool
		name string
	}{{c.SMM, "smm"}, {c.Leadership, "l"}, {c.Orientation, "to"}, {c.Trust, "t"}, {c.Monitoring, "mm"}} {
		if f.on {
			parts = append(parts, f.name)
		}
	}
	if len(parts) == 0 {
		return "base"
	}
	return strings.Join(parts, "+")
}

// Label names the arm: the configuration name plus every setting that
// differs from the defaults, e.g. "full", "c4/t3/n2/parallel/text".
func (c Config) Label() string {
	parts := []string{c.Name}
	if c.Name == "" {
		parts[0] = c.Combo()
	}
	d := Default()
	if c.Turns != d.Turns {
		parts = append(parts, fmt.Sprintf("t%d", c.Turns))
	}
	if c.Agents != 0 {
		parts = append(parts, fmt.Sprintf("n%d", c.Agents))
	}
	if c.Discussion != d.Discussion {
		parts = append(parts, string(c.Discussion))
	}
	if !c.Structured {
		parts = append(parts, "text")
	}
	if c.AgentTemperature != d.AgentTemperature || c.LeaderTemperature != d.LeaderTemperature {
		parts = append(parts, fmt.Sprintf("temp%g-%g", c.AgentTemperature, c.LeaderTemperature))
	}
	if c.ShowLeaning {
		parts = append(parts, OptionLeaning)
	}
	if v := c.trustView(); v != TrustScores {
		parts = append(parts, OptionTrust+"-"+string(v))
	}
	return strings.Join(parts, "/")
}

// AgentPolicy is "dynamic" or "fixed:N".
func (c Config) AgentPolicy() string {
	if c.Agents == 0 {
		return "dynamic"
	}
	return fmt.Sprintf("fixed:%d", c.Agents)
}

// Validate rejects configurations the protocol cannot run as named.
func (c Config) Validate() error {
	if err := c.validateOptions(); err != nil {
		return err
	}
	if c.Monitoring && !c.Leadership {
		return fmt.Errorf("configuration %q: mutual monitoring requires leadership (the leader selects the weakest reasoning, raises the concern and rates the answer); add l, e.g. %q", c.Combo(), c.Combo()+"+l")
	}
	if c.Turns != 2 && c.Turns != 3 {
		return fmt.Errorf("turns = %d; the protocol defines 2 or 3 discussion turns", c.Turns)
	}
	if c.Agents != 0 && (c.Agents < 2 || c.Agents > 4) {
		return fmt.Errorf("agents = %d; use 0 for a dynamic team or a fixed size from 2 to 4", c.Agents)
	}
	if !slices.Contains([]DiscussionMode{RoundRobin, Parallel}, c.Discussion) {
		return fmt.Errorf("discussion mode %q; use %q or %q", c.Discussion, RoundRobin, Parallel)
	}
	for _, t := range []float64{c.AgentTemperature, c.LeaderTemperature} {
		if t < 0 || t > 2 {
			return fmt.Errorf("temperature %g out of range [0, 2]", t)
		}
	}
	return nil
}

// validateOptions rejects an arm option the configuration cannot honour.
func (c Config) validateOptions() error {
	if c.ShowLeaning && !c.Leadership {
		return fmt.Errorf("configuration %q: option %s shows the leader's leaning, which only leadership produces; add l, e.g. %q", c.Combo(), OptionLeaning, c.Combo()+"+l:"+OptionLeaning)
	}
	if !slices.Contains(TrustViews(), c.trustView()) {
		_, err := ParseTrustView(string(c.TrustView))
		return err
	}
	if c.trustView() != TrustScores && !c.Trust {
		return fmt.Errorf("configuration %q: option %s=%s says what the agents see of the trust scores, which only trust produces; add t, e.g. %q", c.Combo(), OptionTrust, c.TrustView, c.Combo()+"+t:"+OptionTrust+"="+string(c.TrustView))
	}
	return nil
}

// synthesisCall reports whether the leader's post-prediction synthesis call
// is made: only when leadership is on and there is something for it to do
// (facts for SMM, a report for TO, quality scores for trust).
func (c Config) synthesisCall() bool {
	return c.Leadership && (c.SMM || c.Orientation || c.Trust)
}

// hierarchical reports whether seniority weights apply (TO with L: the
// recruiter ranks the specialties); otherwise weights are equal.
func (c Config) hierarchical() bool { return c.Orientation && c.Leadership }

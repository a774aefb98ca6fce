package teamwork

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// Protocol is the five-component teamwork protocol of seed 002 (DESIGN §4)
// as the runner runs it. Its arm specs are the presets (base, c1…c7, full)
// and component lists joined by '+' (smm, l, to, t, mm); it reads every spec
// no other protocol claimed that is a preset, a component or has a '+'
// (claims), so list it last in a registry. A bare unknown name is left to
// the registry's error, which lists every protocol's presets.
var Protocol = &protocol.Protocol{
	Name: "teamwork",
	Doc: "Seed 002's deliberation: a recruiter assesses the question and recruits N specialists, " +
		"who predict, discuss for T turns and are aggregated by Borda count; shared mental model, " +
		"leadership, team orientation, trust and mutual monitoring switch on and off independently.",
	Parse:      parseArm,
	Presets:    PresetNames(),
	Accounting: WriteAccounting,
	Stub:       Stub,
	Sim:        &Sim,
}

// parseArm reads a preset or component list over the shared settings,
// with options after a colon: "leaning" (ShowLeaning) and "trust=scores|
// levels|hidden" (TrustView), e.g. "full:leaning", "c4:trust=hidden".
func parseArm(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
	base := Default()
	base.Turns, base.Agents = s.Turns, s.Agents
	base.Discussion = DiscussionMode(s.Discussion)
	base.Structured = s.Structured
	base.AgentTemperature, base.LeaderTemperature = s.AgentTemp, s.LeaderTemp
	base.MaxTokens, base.PeerChars = s.MaxTokens, s.PeerChars
	base.SharedLayout = s.SharedLayout()
	comps, opts, hasOpts := strings.Cut(spec, ":")
	if !claims(comps) {
		return nil, false, nil
	}
	if hasOpts {
		for _, o := range strings.Split(opts, ",") {
			key, val, hasVal := strings.Cut(strings.TrimSpace(o), "=")
			switch k := strings.ToLower(strings.TrimSpace(key)); {
			case k == OptionLeaning && !hasVal:
				base.ShowLeaning = true
			case k == OptionTrust && hasVal:
				v, err := ParseTrustView(val)
				if err != nil {
					return nil, true, fmt.Errorf("teamwork arm %q: %w", spec, err)
				}
				base.TrustView = v
			default:
				return nil, true, fmt.Errorf("teamwork arm %q: unknown option %q (options: %s, %s=scores|levels|hidden)", spec, strings.TrimSpace(o), OptionLeaning, OptionTrust)
			}
		}
	}
	c, err := ParseComponents(comps, base)
	if err != nil {
		return nil, true, err
	}
	return Arm{c}, true, nil
}

// claims reports whether comps is teamwork's to read (and to report the
// problems of): empty, a preset, "all", a component, or a '+' list.
func claims(comps string) bool {
	s := strings.ToLower(strings.TrimSpace(comps))
	if s == "" || s == "all" || strings.Contains(s, "+") {
		return true
	}
	switch s {
	case "smm", "l", "leadership", "to", "orientation", "t", "trust", "mm", "monitoring":
		return true
	}
	for _, p := range presets {
		if p.name == s {
			return true
		}
	}
	return false
}

// Arm is one teamwork configuration as a protocol.Arm.
type Arm struct{ Config Config }

// Protocol is teamwork's Protocol.
func (a Arm) Protocol() *protocol.Protocol { return Protocol }

// Info describes the arm's components and team.
func (a Arm) Info() protocol.ArmInfo {
	c := a.Config
	return protocol.ArmInfo{
		Label: c.Label(), Protocol: Protocol.Name,
		SMM: c.SMM, Leadership: c.Leadership, Orientation: c.Orientation, Trust: c.Trust, Monitoring: c.Monitoring,
		Turns: c.Turns, Discussion: string(c.Discussion), AgentPolicy: c.AgentPolicy(), Structured: c.Structured,
		AgentTemp: c.AgentTemperature, LeaderTemp: c.LeaderTemperature,
	}
}

// Calls is ExpectedCalls without a tie, and the leader's tie-break as the
// possible extra call.
func (a Arm) Calls(n int) (calls, extra int) {
	if a.Config.Leadership {
		extra = 1
	}
	return ExpectedCalls(a.Config, n, false).Total(), extra
}

// Run runs a Team of this configuration on item.
func (a Arm) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	t := &Team{Config: a.Config, Model: u.Model, Arm: u.Arm, RunSeed: u.RunSeed, Repeat: u.Repeat}
	return t.Run(ctx, c, item)
}

// WriteAccounting writes the call-accounting table of every preset, team
// size N ∈ {2,3,4} and turns T ∈ {2,3}.
func WriteAccounting(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "preset\tcomponents\tN\tT\trecruit\tpredict\tdiscuss\taggregate\ttotal")
	for _, name := range PresetNames() {
		c, err := ParseComponents(name, Default())
		if err != nil {
			return err
		}
		for _, turns := range []int{2, 3} {
			c.Turns = turns
			for n := 2; n <= 4; n++ {
				cc := ExpectedCalls(c, n, false)
				agg, tie := "0", ""
				if c.Leadership {
					agg, tie = "0 (+1 tie)", " (+1 tie)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d%s\n", name, c.Combo(), n, turns,
					cc.Recruitment, cc.Prediction, cc.Discussion, agg, cc.Total(), tie)
			}
		}
	}
	return tw.Flush()
}

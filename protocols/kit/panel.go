package kit

import (
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/protocol"
)

// Panel is what the panel protocols (vote, judge, council) share: a
// team of N agents that give the shared first answer, and the settings
// their calls are made with.
type Panel struct {
	N          int
	AgentTemp  float64 // the first answers (and peer reviews)
	LeaderTemp float64 // the judge, the chairman
	Structured bool
	MaxTokens  int
	PeerChars  int  // bound on each other agent's text a prompt shows (Bound); 0 = full
	shared     int  // the team size without an n option
	fixed      bool // the plan fixes the team size (--agents), as teamwork's "/nN" says
}

// NewPanel reads the team size (option n, else --agents, else
// DefaultAgents; at least 2) and the shared settings.
func NewPanel(sp Spec, s protocol.Settings) (Panel, error) {
	n, err := sp.TeamSize(s, 2)
	if err != nil {
		return Panel{}, err
	}
	return Panel{N: n, AgentTemp: s.AgentTemp, LeaderTemp: s.LeaderTemp, Structured: s.Structured, MaxTokens: s.MaxTokens,
		PeerChars: s.PeerChars, shared: SharedTeam(s), fixed: s.Agents > 0}, nil
}

// ParsePanel reads the arm spec of a panel protocol called name whose only
// option is n=N; ok is false when spec is not the protocol's.
func ParsePanel(spec, name string, s protocol.Settings) (p Panel, ok bool, err error) {
	sp, ok, err := ParseSpec(spec, name)
	if !ok || err != nil {
		return Panel{}, ok, err
	}
	if err := sp.Check("n"); err != nil {
		return Panel{}, true, err
	}
	if len(sp.Bare) > 0 {
		return Panel{}, true, fmt.Errorf("%s: unknown option %q (options: n=N)", name, sp.Bare[0])
	}
	p, err = NewPanel(sp, s)
	return p, true, err
}

// Label is the arm's canonical label: name, then opts, then n=N when the
// team differs from the plan's; a team of the plan's size under --agents N
// ends in "/nN", as teamwork's labels do (so "vote" and "vote:n=3" under
// --agents 3 are the same arm, "vote/n3", and every family's label states a
// fixed team size alike). ParseSpec reads the suffix back.
func (p Panel) Label(name string, opts ...string) string {
	if p.N != p.shared {
		opts = append(opts, fmt.Sprintf("n=%d", p.N))
	}
	label := name
	if len(opts) > 0 {
		label += ":" + strings.Join(opts, ",")
	}
	if p.fixed && p.N == p.shared {
		label += fmt.Sprintf("/n%d", p.N)
	}
	return label
}

// Info describes an arm of the panel for rows and the manifest.
func (p Panel) Info(proto *protocol.Protocol, label string) protocol.ArmInfo {
	return protocol.ArmInfo{Label: label, Protocol: proto.Name, AgentPolicy: fmt.Sprintf("fixed:%d", p.N),
		Structured: p.Structured, AgentTemp: p.AgentTemp, LeaderTemp: p.LeaderTemp}
}

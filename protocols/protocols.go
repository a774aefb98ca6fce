// Package protocols is the registry of the decision protocols medteam runs:
// the one place a new protocol is added (one line in All).
package protocols

import (
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/baseline"
	"github.com/medteam-bench/medteam/protocols/council"
	"github.com/medteam-bench/medteam/protocols/debate"
	"github.com/medteam-bench/medteam/protocols/judge"
	"github.com/medteam-bench/medteam/protocols/mdagents"
	"github.com/medteam-bench/medteam/protocols/medagents"
	"github.com/medteam-bench/medteam/protocols/veto"
	"github.com/medteam-bench/medteam/protocols/vote"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

// All returns the registered protocols in the order their arm specs are
// tried; teamwork reads every spec no other protocol claimed, so it is last.
func All() protocol.Registry {
	return protocol.Registry{
		baseline.ZeroShot,
		baseline.CoT,
		baseline.SC,
		debate.Protocol,
		vote.Protocol,
		veto.Protocol,
		judge.Protocol,
		council.Protocol,
		medagents.Protocol,
		mdagents.Protocol,
		teamwork.Protocol,
	}
}

// NewSim is the simulator with every registered protocol's simulated
// behaviour (Protocol.Sim) and every task's (Task.Sim: the triage task's
// diagnosis judge): what the sim/ backend and the tests use.
func NewSim(p sim.Profile, items map[string]sim.Item) *sim.Model {
	return sim.New(p, items, append(All().Sim(), tasks.All().Sim()...)...)
}

package veto

import (
	"github.com/medteam-bench/medteam/protocols/kit"
)

// sharedCall lays agent i's call out shared-prefix-first (--prompt-layout
// shared): the shared first answer's system prompt and user prompt, then
// the previous round's three ballots — the same bytes for every agent,
// each as "agent N (Role)", the reasoning bounded by PeerChars — and only
// then what is the agent's own: its role (which seed 004's order appends to
// the system prompt), its previous position as "POSITION you" and the
// ballot request. Nothing is added or left out, so the three agents of a
// round share everything up to their role.
func (a Arm) sharedLayout(c kit.Call, d *promptData, prev []Ballot, i int) (kit.Call, error) {
	if prev != nil {
		_, panel := a.transcript(prev, -1)
		c.User += "\n\nThe panel's ballots in the previous round:\n" + panel
		d.Own, d.Others, d.Panel = kit.PositionLine("you", prev[i].Answer), "", true
	}
	role, err := prompts.Render("role", d)
	if err != nil {
		return kit.Call{}, err
	}
	ballot, err := prompts.Render("ballot", d)
	if err != nil {
		return kit.Call{}, err
	}
	c.User += "\n\n" + role + "\n\n" + ballot
	return c, nil
}

package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
)

// toyMarkers are a toy protocol's prompt lines, one of each Reads: the core
// reads them as the behaviour declares, knowing none of its words.
var toyMarkers = []sim.Marker{
	{Prefix: "NOTE:", Reads: sim.ReadsValue},
	{Prefix: "SPECIALTY:", Reads: sim.ReadsRole},
	{Prefix: "BRIEF:", Reads: sim.ReadsAnalysis},
	{Prefix: "KNOWN:", Reads: sim.ReadsFacts},
	{Prefix: "THREAD:", Reads: sim.ReadsStatements, Judge: true, Item: "Member ", Also: "Chair"},
	{Prefix: "WORK member ", Reads: sim.ReadsReasoning, Judge: true},
	{Prefix: "REPLY:", Reads: sim.ReadsReply, Judge: true},
}

// toyRead answers what the core read: the NOTE values, the reply's tier,
// the perceived quality of member 2 and the member's skill.
var toyRead = sim.Behaviour{Protocol: "toyread", Kinds: map[string]uint64{"toy_read": 202}, Markers: toyMarkers,
	Answer: func(c *sim.Call) string {
		c.ReadPrompt(0, c.Request().Meta.Agent < 0)
		r := c.Rng(sim.TagQuality)
		return fmt.Sprintf("VALUES: %s | TIER: %d | SEEN2: %.2f | SKILL: %.2f",
			strings.Join(c.Values("NOTE:"), "|"), c.ReplyTier(), c.Seen(2, &r), c.Skill())
	}}

func toyProfile() sim.Profile {
	return sim.Profile{Name: "toy", LeaderSkill: 0, AgentSkill: 0, SpecialistBonus: 1, AnalysisBonus: 10, FactsBonus: 100}
}

func readReq(agent int, msgs ...llm.Message) llm.Request {
	return llm.Request{Model: "sim", Seed: 1, Messages: msgs, Meta: llm.Meta{QuestionID: "q1", Kind: "toy_read", Agent: agent}}
}

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }

// TestMarkersAreTheBehaviours: the core reads a behaviour's declared lines
// into its own inputs — a value for the behaviour, a role, an analysis,
// facts, reasoning, statements, a reply — the judging ones only when the
// call judges, never in assistant messages; and without the behaviour it
// reads none of them.
func TestMarkersAreTheBehaviours(t *testing.T) {
	items := map[string]sim.Item{"q1": {Letters: []string{"A", "B", "C", "D"}, Gold: "C"}}
	m := sim.New(toyProfile(), items, toyRead)
	tr, _ := m.Traits("q1")
	cue := func(tier int) string { return "It fits. " + sim.QualityCue(tier, 0) }
	for _, tc := range []struct {
		name  string
		agent int
		msgs  []llm.Message
		want  string
	}{
		{"nothing", -1, []llm.Message{user("Q? NOTE: inline is prose")}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
		{"values in order", -1, []llm.Message{user("NOTE: a\n  NOTE:b\nNOTEBOOK: c"), user("NOTE: d")}, "VALUES:  a|b| d | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
		{"analysis", -1, []llm.Message{user("BRIEF:\nThe stem asks.")}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 10.00"},
		{"irrelevant role", -1, []llm.Message{user("SPECIALTY: " + sim.SpecialtyName(tr.Relevance[sim.NSpecialties-1]))}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.50"},
		{"relevant role", -1, []llm.Message{user("SPECIALTY: " + sim.SpecialtyName(tr.Relevance[0]))}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 1.00"},
		{"facts", -1, []llm.Message{user("KNOWN:\n- " + tr.Supportive[0] + ".\n* some other fact\nafter the block\n- " + tr.Misleading[0])}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 75.00"},
		{"reply, judging", -1, []llm.Message{user("REPLY: " + cue(3))}, "VALUES:  | TIER: 3 | SEEN2: 0.50 | SKILL: 0.00"},
		{"reply, not judging", 0, []llm.Message{user("REPLY: " + cue(3))}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
		{"reasoning", -1, []llm.Message{user("WORK member 2: " + cue(1))}, "VALUES:  | TIER: -1 | SEEN2: 0.30 | SKILL: 0.00"},
		{"statements over reasoning", -1, []llm.Message{user("WORK member 2: " + cue(1) + "\nTHREAD:\nMember 2, turn 1: " + cue(4) + "\nChair, summary: " + cue(0) + "\nNOTE: x")}, "VALUES:  x | TIER: -1 | SEEN2: 0.90 | SKILL: 0.00"},
		{"latest statement without a cue", -1, []llm.Message{user("THREAD:\nMember 2, turn 1: " + cue(4) + "\nMember 2, turn 2: no cue")}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
		{"a block ends with its message", -1, []llm.Message{user("THREAD:"), user("Member 2, turn 1: " + cue(4))}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
		{"assistant messages unread", -1, []llm.Message{{Role: llm.RoleAssistant, Content: "NOTE: a\nBRIEF:\nREPLY: " + cue(2)}}, "VALUES:  | TIER: -1 | SEEN2: 0.50 | SKILL: 0.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := m.Chat(context.Background(), readReq(tc.agent, tc.msgs...))
			if err != nil || resp.Text != tc.want {
				t.Fatalf("got %q (%v)\nwant %q", resp.Text, err, tc.want)
			}
		})
	}
}

// TestMarkerClashes: a marker whose prefix is another's prefix (the same
// line declared twice included), or that is too short, is refused at New,
// naming the markers.
func TestMarkerClashes(t *testing.T) {
	items := map[string]sim.Item{"q1": {Letters: []string{"A", "B"}, Gold: "A"}}
	other := func(ms ...sim.Marker) sim.Behaviour {
		return sim.Behaviour{Protocol: "other", Kinds: map[string]uint64{"other_read": 203}, Answer: toyRead.Answer, Markers: ms}
	}
	for _, tc := range []struct {
		name string
		b    sim.Behaviour
		want string
	}{
		{"same line", other(sim.Marker{Prefix: "NOTE:"}), `markers "NOTE:" and "NOTE:"`},
		{"a longer line", other(sim.Marker{Prefix: "NOTE: more"}), `markers "NOTE:" and "NOTE: more"`},
		{"the core's", other(sim.Marker{Prefix: "POSITION"}), `markers "POSITION " and "POSITION"`},
		{"one byte", other(sim.Marker{Prefix: "N"}), `marker "N"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			sim.New(toyProfile(), items, toyRead, tc.b)
		})
	}
}

// FuzzReadPrompt: any prompt is read without a panic, and every value the
// behaviour gets is the rest of a NOTE: line of a non-assistant message.
func FuzzReadPrompt(f *testing.F) {
	f.Add("NOTE: a\nTHREAD:\nMember 2, x: y\nREPLY: z", "POSITION agent 2: B > A (confidence 0.7)\nKNOWN:\n- f")
	f.Add("WORK member 99: x\nWORK member 1", "SPECIALTY: Cardiologist\r\nNOTE:\t b \r")
	f.Fuzz(func(t *testing.T, a, b string) {
		items := map[string]sim.Item{"q1": {Letters: []string{"A", "B", "C"}, Gold: "B"}}
		var got []string
		read := toyRead
		read.Answer = func(c *sim.Call) string {
			c.ReadPrompt(1, true)
			got = c.Values("NOTE:")
			return "ok"
		}
		m := sim.New(toyProfile(), items, read)
		if _, err := m.Chat(context.Background(), readReq(-1, user(a), user(b))); err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			if !strings.Contains(a+"\n"+b, "NOTE:"+v) {
				t.Fatalf("value %q is no NOTE: line's rest", v)
			}
		}
	})
}

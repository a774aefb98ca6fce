package debate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// answerOf is an answer in the revise format.
func answerOf(first string, conf float64) string {
	return fmt.Sprintf(`{"reasoning":"%s fits.","ranking":["%s"],"confidence":%g}`, first, first, conf)
}

// longReply is agent a's reply in a round: longer than any excerpt the
// prompts used to show (kit.MaxReasoning), with white space and a non-ASCII
// letter that a re-rendering or a cut would change.
func longReply(kind string, turn, a int) string {
	l := string(rune('A' + (a+turn)%4))
	reasoning := strings.Repeat(fmt.Sprintf("Agent %d, round %d: the troponin  rise\n\tpoints to %s — ", a+1, turn+1, l), 12)
	if kind == kit.KindFirst {
		return fmt.Sprintf(`{"reasoning":%q,"ranking":["%s"],"confidence":0.7,"risk":0.2,"veto":false}`, reasoning, l)
	}
	return fmt.Sprintf("  {\"reasoning\":%q,\n \"ranking\":[\"%s\"],\"confidence\":0.6}\n", reasoning, l)
}

func longScript() *kittest.Script {
	return &kittest.Script{Default: func(req llm.Request) string {
		return longReply(req.Meta.Kind, req.Meta.Turn, req.Meta.Agent)
	}}
}

// TestEachAgentKeepsItsConversation: in round t (call turn t−1) agent i's
// request is its own conversation — the first answer's system and user
// messages, its own replies as it wrote them (assistant turns), the earlier
// debate prompts — then a user message with every other agent's reply of
// round t−1, as written, in full, never its own; round 1 is the shared
// first-answer request, unchanged.
func TestEachAgentKeepsItsConversation(t *testing.T) {
	s := longScript()
	out := kittest.Run(t, Protocol, "debate:3,3", kittest.Settings(0), s)
	if len(out.Rounds) != 3 || len(s.Keys()) != 9 {
		t.Fatalf("%d rounds, %d calls %v", len(out.Rounds), len(s.Keys()), s.Keys())
	}
	sess := kit.NewSession(nil, kittest.Item, kittest.Unit("debate:n=3,r=3"), true, 0)
	for i := range 3 {
		c, err := firstanswer.Call(sess, i, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := llm.RequestHash(s.Reqs[kittest.Key(kit.KindFirst, 0, i)]), llm.RequestHash(sess.Request(c)); got != want {
			t.Fatalf("agent %d's first answer is not the shared first-answer request", i+1)
		}
		conv := []llm.Message{{Role: llm.RoleSystem, Content: c.System}, {Role: llm.RoleUser, Content: c.User},
			{Role: llm.RoleAssistant, Content: longReply(kit.KindFirst, 0, i)}}
		for turn := 1; turn <= 2; turn++ {
			req := s.Reqs[kittest.Key(kit.KindRevise, turn, i)]
			if len(req.Messages) != len(conv)+1 {
				t.Fatalf("round %d agent %d: %d messages, want %d", turn+1, i+1, len(req.Messages), len(conv)+1)
			}
			for k, m := range conv {
				if req.Messages[k] != m {
					t.Fatalf("round %d agent %d: message %d is %s %.60q, want %s %.60q", turn+1, i+1, k, req.Messages[k].Role, req.Messages[k].Content, m.Role, m.Content)
				}
			}
			user := req.Messages[len(conv)]
			if user.Role != llm.RoleUser || !strings.HasPrefix(user.Content, "These are the solutions to the problem from other agents:") {
				t.Fatalf("round %d agent %d: last message %s %.80q", turn+1, i+1, user.Role, user.Content)
			}
			prevKind := kit.KindRevise
			if turn == 1 {
				prevKind = kit.KindFirst
			}
			for j := range 3 {
				shown := strings.Contains(user.Content, "One agent solution: ```\n"+longReply(prevKind, turn-1, j)+"\n```")
				if shown != (j != i) {
					t.Fatalf("round %d agent %d: agent %d's previous reply shown = %v:\n%s", turn+1, i+1, j+1, shown, user.Content)
				}
			}
			if n := strings.Count(user.Content, "One agent solution:"); n != 2 {
				t.Fatalf("round %d agent %d: %d solutions shown", turn+1, i+1, n)
			}
			conv = append(conv, user, llm.Message{Role: llm.RoleAssistant, Content: longReply(kit.KindRevise, turn, i)})
		}
	}
}

// TestPeerCharsBoundsThePeersOnly: --peer-chars cuts each other agent's
// reply to that many bytes ("…" marks the cut); the agent's own reply in its
// conversation stays whole.
func TestPeerCharsBoundsThePeersOnly(t *testing.T) {
	s := longScript()
	set := kittest.Settings(0)
	set.PeerChars = 40
	kittest.Run(t, Protocol, "debate:3,2", set, s)
	for i := range 3 {
		req := s.Reqs[kittest.Key(kit.KindRevise, 1, i)]
		if req.Messages[2].Content != longReply(kit.KindFirst, 0, i) {
			t.Fatalf("agent %d's own reply was cut", i+1)
		}
		user := req.Messages[3].Content
		for j := range 3 {
			full := longReply(kit.KindFirst, 0, j)
			cut := "One agent solution: ```\n" + full[:40] + "…\n```"
			if strings.Contains(user, cut) != (j != i) || strings.Contains(user, full) {
				t.Fatalf("agent %d sees agent %d's reply (want cut to 40 bytes: %v):\n%s", i+1, j+1, j != i, user)
			}
		}
	}
}

func TestBound(t *testing.T) {
	for _, tt := range []struct {
		text string
		n    int
		want string
	}{
		{"a  b\n c", 0, "a  b\n c"},
		{"a  b\n c", 7, "a  b\n c"},
		{"a  b\n c", 6, "a  b\n …"},
		{"a  b\n c", -1, "a  b\n c"},
		{"xé", 2, "x…"}, // never inside the two bytes of é
		{"xéy", 3, "xé…"},
		{"", 5, ""},
	} {
		if got := bound(tt.text, tt.n); got != tt.want {
			t.Errorf("bound(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

// TestEmptyReplyStandsIn: a reply with no text goes back into the
// conversation, and to the others, as "(no reply)", never as an empty
// message.
func TestEmptyReplyStandsIn(t *testing.T) {
	s := &kittest.Script{Answers: map[string]string{kittest.Key(kit.KindFirst, 0, 1): " \n"}, Default: func(req llm.Request) string {
		return answerOf("A", 0.6)
	}}
	out := kittest.Run(t, Protocol, "debate:3,2", kittest.Settings(0), s)
	if own := s.Reqs[kittest.Key(kit.KindRevise, 1, 1)].Messages[2]; own.Content != emptyReply {
		t.Fatalf("agent 2's own empty reply in its conversation: %q", own.Content)
	}
	if p := s.User(t, kittest.Key(kit.KindRevise, 1, 0)); !strings.Contains(p, "```\n"+emptyReply+"\n```") {
		t.Fatalf("agent 1 sees agent 2's empty reply as:\n%s", p)
	}
	if out.Predicted != "A" {
		t.Fatalf("predicted %q", out.Predicted)
	}
}

// TestPluralityOfTheLastRound.
func TestPluralityOfTheLastRound(t *testing.T) {
	script := func(last []string) *kittest.Script {
		s := &kittest.Script{Answers: map[string]string{}}
		for i := range 3 {
			s.Answers[kittest.Key(kit.KindFirst, 0, i)] = kittest.First("D", 0.9, 0.1, false) // round 1 unanimous for D
			if last != nil {
				s.Answers[kittest.Key(kit.KindRevise, 1, i)] = last[i]
			}
		}
		return s
	}
	out := kittest.Run(t, Protocol, "debate:n=3,r=2", kittest.Settings(0), script([]string{answerOf("B", 0.6), answerOf("C", 0.6), answerOf("B", 0.6)}))
	if out.Predicted != "B" || out.Decision.Rule != RuleDebate || out.TieBrokenBy != "" || len(out.Rounds) != 2 {
		t.Fatalf("2-1 for B in the last round: %q %q %q, %d rounds", out.Predicted, out.Decision.Rule, out.TieBrokenBy, len(out.Rounds))
	}
	// A tie of the last round (one answer unreadable) is a seeded draw, recorded.
	tie := []string{answerOf("B", 0.6), answerOf("C", 0.6), "I am not sure."}
	out = kittest.Run(t, Protocol, "debate:n=3,r=2", kittest.Settings(0), script(tie))
	det := out.Details.(Details)
	if !out.Decision.Tie || out.TieBrokenBy != "seeded_draw" || det.Drawn != out.Predicted || (out.Predicted != "B" && out.Predicted != "C") {
		t.Fatalf("tie: predicted %q broken by %q details %+v", out.Predicted, out.TieBrokenBy, det)
	}
	if again := kittest.Run(t, Protocol, "debate:n=3,r=2", kittest.Settings(0), script(tie)); again.Predicted != out.Predicted {
		t.Fatal("the draw is not reproducible")
	}
	// r=1: the plurality of the first answers, n calls.
	s := script(nil)
	out = kittest.Run(t, Protocol, "debate:n=3,r=1", kittest.Settings(0), s)
	if out.Predicted != "D" || len(s.Keys()) != 3 || len(out.Rounds) != 1 {
		t.Fatalf("r=1: %q after %d calls", out.Predicted, len(s.Keys()))
	}
	// Nobody readable in the last round: abstain.
	out = kittest.Run(t, Protocol, "debate:n=3,r=2", kittest.Settings(0), script([]string{"", "?", "hm"}))
	if out.Predicted != "" || !strings.HasPrefix(out.AbstainReason, "no_votes") {
		t.Fatalf("no votes: %q %q", out.Predicted, out.AbstainReason)
	}
}

// TestCallsAreNTimesR: over a table of n and r, a question makes n·r calls
// (r rounds, the first answers included) — n first answers and n revisions
// in each of rounds 2…r — and Calls says so.
func TestCallsAreNTimesR(t *testing.T) {
	for n := 2; n <= 4; n++ {
		for r := 1; r <= 4; r++ {
			s := &kittest.Script{Default: func(req llm.Request) string { return answerOf("A", 0.6) }}
			spec := fmt.Sprintf("debate:n=%d,r=%d", n, r)
			out := kittest.Run(t, Protocol, spec, kittest.Settings(0), s)
			a, _, _ := Protocol.Parse(spec, kittest.Settings(0))
			calls, extra := a.Calls(0)
			if len(s.Keys()) != n*r || calls != n*r || extra != 0 || len(out.Rounds) != r || a.Info().Turns != r-1 {
				t.Fatalf("%s: %d calls, Calls() %d+%d, %d rounds, turns %d; want %d calls", spec, len(s.Keys()), calls, extra, len(out.Rounds), a.Info().Turns, n*r)
			}
		}
	}
}

func TestArms(t *testing.T) {
	for _, tt := range []struct {
		spec   string
		agents int
		label  string
		calls  int
		err    string
	}{
		{"debate", 0, "debate:n=3,r=2", 6, ""},
		{"debate", 4, "debate:n=4,r=2", 8, ""},
		{"debate:3,2", 0, "debate:n=3,r=2", 6, ""}, // Du et al.'s configuration
		{"debate:n=2,r=1", 0, "debate:n=2,r=1", 2, ""},
		{"debate:r=3", 2, "debate:n=2,r=3", 6, ""},
		{"debate:3,10", 0, "debate:n=3,r=10", 30, ""},
		{"debate:3,0", 0, "", 0, "r counts every round"},
		{"debate:3,11", 0, "", 0, "from 1 to 10"},
		{"debate:1,2", 0, "", 0, "from 2 to 16"},
		{"debate:3,2,1", 0, "", 0, "takes n and r"},
		{"debate:k=3", 0, "", 0, "unknown option"},
	} {
		a, ok, err := Protocol.Parse(tt.spec, kittest.Settings(tt.agents))
		if !ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if err != nil {
			continue
		}
		if c, _ := a.Calls(0); a.Info().Label != tt.label || c != tt.calls {
			t.Fatalf("%s: label %q calls %d", tt.spec, a.Info().Label, c)
		}
	}
}

// TestAccountingTable: `medteam calls` prints n·r for every row.
func TestAccountingTable(t *testing.T) {
	var b strings.Builder
	if err := Protocol.Accounting(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasPrefix(lines[0], "calls = n·r ") || len(lines) != 2+9 {
		t.Fatalf("table:\n%s", b.String())
	}
	for _, l := range lines[2:] {
		var n, r, answers, debate, total int
		f := strings.Fields(l)
		fmt.Sscanf(strings.Join(f[1:], " "), "%d %d %d %d %d", &n, &r, &answers, &debate, &total)
		if f[0] != fmt.Sprintf("debate:n=%d,r=%d", n, r) || answers != n || debate != n*(r-1) || total != n*r {
			t.Fatalf("row %q", l)
		}
	}
}

// counting is a client that counts the calls of each question.
type counting struct {
	c     llm.Client
	mu    sync.Mutex
	calls map[string]int
}

func (k *counting) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	k.mu.Lock()
	k.calls[req.Meta.QuestionID]++
	k.mu.Unlock()
	return k.c.Chat(ctx, req)
}

// TestSixCallsOnTheSimulator: Du et al.'s configuration, debate:3,2, makes
// 6 calls per question on the simulator (3 first answers, 3 revisions), in
// JSON and in text mode, with the noisy profile's malformed replies.
func TestSixCallsOnTheSimulator(t *testing.T) {
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	qs = qs[:20]
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	for _, profile := range []string{"default", "noisy"} {
		p, err := sim.LookupProfile(profile)
		if err != nil {
			t.Fatal(err)
		}
		p.ErrorRate = 0
		k := &counting{c: sim.New(p, items, Sim), calls: map[string]int{}}
		set := kittest.Settings(0)
		set.Structured = profile == "default"
		changed := 0
		for _, q := range qs {
			out := kittest.RunOn(t, Protocol, "debate:3,2", set, k, q.Item())
			if k.calls[q.ID] != 6 || len(out.Rounds) != 2 {
				t.Fatalf("%s %s: %d calls, %d rounds", profile, q.ID, k.calls[q.ID], len(out.Rounds))
			}
			for i := range 3 {
				if out.Rounds[0][i].First() != out.Rounds[1][i].First() {
					changed++
				}
			}
		}
		t.Logf("%s: %d of %d agents changed their first choice in round 2", profile, changed, 3*len(qs))
	}
}

package protocols_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
)

func settings(agents int, structured bool) protocol.Settings {
	s := kittest.Settings(agents)
	s.Structured = structured
	return s
}

// TestSharedFirstAnswers (issue 22 item 3): at equal N, agent i's
// first-answer request is byte-identical (llm.RequestHash) in vote,
// vote:weighted, judge, every council strategy (stage 1), sc sample i,
// debate round 1 and the initial prediction of the teamwork arms whose
// components add nothing to it (base, l, t, l+t+mm), whatever the team size,
// in JSON and in text mode; it differs between agents. teamwork with SMM or TO∧L
// adds to it, so its requests differ; veto sends its own kinds.
func TestSharedFirstAnswers(t *testing.T) {
	specs := []string{"vote", "vote:weighted", "judge", "judge:mode=code", "council:balanced", "council:risk-averse",
		"council:goal-seeking", "council:novelty", "sc:k=5", "debate:n=3,r=1", "vote:n=5", "judge:n=4", "council:novelty,n=5",
		"base", "c2", "c4", "c5"}
	// (veto appends its roles and ballot and sends them as its own kinds,
	// veto_debate and veto_ballot, so it never sends a first-kind call.)
	added := []string{"c1", "c3", "full"}
	for _, structured := range []bool{true, false} {
		hashes := map[int]map[string]string{} // agent → hash → spec
		for _, spec := range append(slices.Clone(specs), added...) {
			s := &kittest.Script{Default: stubText}
			a, err := protocols.All().Parse(spec, settings(3, structured))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Run(context.Background(), s, kittest.Item, kittest.Unit(a.Info().Label)); err != nil {
				t.Fatal(err)
			}
			n := 0
			for i := 0; ; i++ {
				req, ok := s.Reqs[kittest.Key(kit.KindFirst, 0, i)]
				if !ok {
					break
				}
				n++
				if slices.Contains(added, spec) {
					if i < 3 && hashes[i] != nil && hashes[i][llm.RequestHash(req)] != "" {
						t.Fatalf("structured=%v: %s sends the shared first answer though it adds to it", structured, spec)
					}
					continue
				}
				if hashes[i] == nil {
					hashes[i] = map[string]string{}
				}
				hashes[i][llm.RequestHash(req)] += spec + " "
			}
			if n < 3 {
				t.Fatalf("%s: %d first answers", spec, n)
			}
		}
		seen := map[string]bool{}
		for i, hs := range hashes {
			if len(hs) != 1 {
				t.Fatalf("structured=%v: agent %d's first answer differs between arms: %v", structured, i, hs)
			}
			for h, arms := range hs {
				if seen[h] {
					t.Fatalf("agents share a request: %v", hashes)
				}
				seen[h] = true
				if i < 3 && strings.Count(arms, " ") != len(specs) {
					t.Fatalf("structured=%v: agent %d's shared request is sent by %s only", structured, i, arms)
				}
			}
		}
	}
}

// stubText answers like the dry-run stub.
func stubText(req llm.Request) string {
	resp, _ := kit.Stub(false).Chat(context.Background(), req)
	return resp.Text
}

// simPlan runs arms on the simulator (profile) over the sample's first n
// questions.
func simPlan(t *testing.T, arms []runner.Arm, n int, profile string) (runner.Plan, *sim.Model) {
	t.Helper()
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	qs = qs[:n]
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	p, err := sim.LookupProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	m := protocols.NewSim(p, items)
	return runner.Plan{RunID: "t", Sets: []runner.QuestionSet{{Name: "sample", Questions: qs}}, Arms: arms,
		Tasks:  tasks.All(),
		Models: []runner.Model{{Name: "sim/" + profile, Request: "sim", Client: m}}, Repeats: 1, Seed: 1, Parallel: 4}, m
}

// formula is the accounting of each protocol, per phase, written out here
// independently of the packages: spec → phase → calls.
func formula(spec string, agents int) map[string]int {
	spec = strings.TrimSuffix(spec, fmt.Sprintf("/n%d", agents)) // a label of the plan's team size
	n := agents
	if i := strings.Index(spec, "n="); i >= 0 {
		fmt.Sscanf(spec[i+2:], "%d", &n)
	}
	switch name, _, _ := strings.Cut(spec, ":"); name {
	case "zeroshot", "cot":
		return map[string]int{kit.PhaseAnswer: 1}
	case "sc":
		var k int
		fmt.Sscanf(spec, "sc:k=%d", &k)
		return map[string]int{kit.PhaseAnswer: k}
	case "debate":
		var r int
		fmt.Sscanf(spec[strings.Index(spec, "r="):], "r=%d", &r)
		if r == 1 { // r rounds, the first answers included (Du et al.)
			return map[string]int{kit.PhaseAnswer: n}
		}
		return map[string]int{kit.PhaseAnswer: n, kit.PhaseDebate: n * (r - 1)}
	case "vote":
		return map[string]int{kit.PhaseAnswer: n}
	case "veto": // seed 004: 3 agents, R debate rounds (default 4), 3 final ballots
		r := 4
		fmt.Sscanf(spec, "veto:rounds=%d", &r)
		if r == 0 {
			return map[string]int{kit.PhaseDecision: 3}
		}
		return map[string]int{kit.PhaseDebate: 3 * r, kit.PhaseDecision: 3}
	case "judge":
		if strings.Contains(spec, "mode=code") {
			return map[string]int{kit.PhaseAnswer: n}
		}
		return map[string]int{kit.PhaseAnswer: n, kit.PhaseDecision: 1}
	case "council":
		return map[string]int{kit.PhaseAnswer: n, kit.PhaseReview: n, kit.PhaseDecision: 1}
	}
	panic(spec)
}

// grid is every protocol over a parameter grid: k ∈ {1,3,5}, n ∈ {2,3},
// r ∈ {1,2,3}, N ∈ {3,5}.
func grid() []string {
	out := []string{"zeroshot", "cot", "sc:k=1", "sc:k=3", "sc:k=5"}
	for _, n := range []int{2, 3} {
		for _, r := range []int{1, 2, 3} {
			out = append(out, fmt.Sprintf("debate:n=%d,r=%d", n, r))
		}
	}
	for _, n := range []string{"", "n=5"} {
		for _, p := range []string{"vote", "vote:weighted", "judge", "judge:mode=code", "council:balanced", "council:risk-averse", "council:goal-seeking", "council:novelty"} {
			out = append(out, joinOpt(p, n))
		}
	}
	return append(out, "veto:rounds=0", "veto:rounds=1", "veto")
}

func joinOpt(spec, opt string) string {
	switch {
	case opt == "":
		return spec
	case strings.Contains(spec, ":"):
		return spec + "," + opt
	}
	return spec + ":" + opt
}

// TestCallsEqualFormula: on the simulator, the calls of every question —
// in total and per phase — are each protocol's formula, for the parameter
// grid, with JSON and text answers, and with the noisy profile's malformed
// answers (an unreadable answer never changes the calls).
func TestCallsEqualFormula(t *testing.T) {
	for _, tc := range []struct {
		profile    string
		structured bool
	}{{"default", true}, {"noisy", false}} {
		var arms []runner.Arm
		for _, spec := range grid() {
			a, err := protocols.All().Parse(spec, settings(3, tc.structured))
			if err != nil {
				t.Fatal(err)
			}
			if want := panelLabel(strings.TrimSuffix(strings.TrimSuffix(spec, ",n=3"), ":n=3")); a.Info().Label != want {
				t.Fatalf("%s labelled %q", spec, a.Info().Label)
			}
			arms = append(arms, runner.Arm{Label: a.Info().Label, Protocol: a})
		}
		plan, _ := simPlan(t, arms, 12, tc.profile)
		res, err := runner.Run(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		perPhase := map[string]map[string]int{} // question/arm → phase → calls
		for _, c := range res.Calls {
			k := c.QuestionID + "/" + c.Arm
			if perPhase[k] == nil {
				perPhase[k] = map[string]int{}
			}
			perPhase[k][c.Phase]++
		}
		for _, q := range res.Questions {
			want := formula(q.Arm, 3)
			total := 0
			for _, v := range want {
				total += v
			}
			calls, _ := findArm(arms, q.Arm).Calls(0)
			if q.Error != "" || int(q.Calls) != total || calls != total || fmt.Sprint(perPhase[q.QuestionID+"/"+q.Arm]) != fmt.Sprint(want) {
				t.Fatalf("%s %s %s: %d calls %v (error %q), formula %d %v, Calls() %d", tc.profile, q.Arm, q.QuestionID, q.Calls, perPhase[q.QuestionID+"/"+q.Arm], q.Error, total, want, calls)
			}
		}
	}
}

func findArm(arms []runner.Arm, label string) protocol.Arm {
	for _, a := range arms {
		if a.Label == label {
			return a.Protocol
		}
	}
	return nil
}

// TestSweepSharesFirstAnswers: in one run, the first answers shared by vote,
// judge, the council strategies, sc, debate and teamwork base reach the
// simulator once per question and agent; the summary's logical calls exceed
// the requests sent by exactly the shared ones. (veto's 15 calls append to
// the first answer and are its own.)
func TestSweepSharesFirstAnswers(t *testing.T) {
	var arms []runner.Arm
	for _, spec := range []string{"sc:k=5", "debate:n=3,r=2", "vote", "veto", "judge", "council:balanced", "council:novelty", "base"} {
		a, err := protocols.All().Parse(spec, settings(3, true))
		if err != nil {
			t.Fatal(err)
		}
		arms = append(arms, runner.Arm{Label: a.Info().Label, Protocol: a})
	}
	const n = 10
	plan, m := simPlan(t, arms, n, "default")
	plan.Parallel = 1
	res, err := runner.Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]int{} // request hash → times it reached the simulator
	logical, firstSent := 0, 0
	for _, c := range res.Calls {
		logical++
		if !c.Cached {
			sent[c.RequestHash]++
			if c.Kind == kit.KindFirst {
				firstSent++
			}
		}
	}
	// Distinct first answers: agents 0–4 (sc's five samples cover the
	// panels' and base's three) per question. Distinct other calls: debate 3
	// (round 2 of debate:3,2), council 3 reviews (shared by both strategies)
	// + 2 chairmen, judge 1, veto 15, base 2 recruitment + 6 discussion.
	if firstSent != 5*n || int(m.Requests()) != len(sent) || int(m.Requests()) != n*(5+3+3+2+1+15+8) {
		t.Fatalf("first answers sent %d (want %d); simulator served %d, distinct requests %d, want %d", firstSent, 5*n, m.Requests(), len(sent), n*37)
	}
	for h, k := range sent {
		if k != 1 {
			t.Fatalf("request %s sent %d times", h, k)
		}
	}
	if want := n * (5 + 6 + 3 + 15 + 4 + 7 + 7 + 11); logical != want {
		t.Fatalf("%d logical calls, want %d", logical, want)
	}
	// Actual spend: the rows' paid tokens add up to the tokens of the calls
	// that reached the simulator, and an arm whose first answers were all
	// shared (vote, after sc) paid for none of its calls.
	var paid, sentTok, total, votes int64
	for _, c := range res.Calls {
		if !c.Cached && c.PromptTokens != nil {
			sentTok += *c.PromptTokens + *c.CompletionTokens
		}
	}
	for _, q := range res.Questions {
		paid += q.PaidPromptTokens + q.PaidCompletionTokens
		total += q.PromptTokens + q.CompletionTokens
		if q.Arm == "vote/n3" {
			votes++
		}
		if q.Arm == "vote/n3" && q.PaidPromptTokens+q.PaidCompletionTokens != 0 {
			t.Fatalf("vote %s paid %d+%d tokens, but sc sent all its requests first", q.QuestionID, q.PaidPromptTokens, q.PaidCompletionTokens)
		}
	}
	if paid != sentTok || paid >= total || votes != n {
		t.Fatalf("paid tokens %d, tokens of the calls sent %d, all tokens %d; %d vote rows", paid, sentTok, total, votes)
	}
}

// TestArmsRoundTrip: every preset parses and is claimed by its own protocol
// (never by teamwork, which comes last); the labels of the protocols here
// parse back to the same arm.
func TestArmsRoundTrip(t *testing.T) {
	reg := protocols.All()
	if reg[len(reg)-1].Name != "teamwork" {
		t.Fatal("teamwork, the catch-all, is not last")
	}
	for _, p := range reg {
		if p.Doc == "" || p.Accounting == nil || p.Stub == nil || p.Parse == nil {
			t.Fatalf("%s: incomplete protocol", p.Name)
		}
		for _, spec := range p.Presets {
			for _, agents := range []int{0, 3, 4} {
				a, err := reg.Parse(spec, settings(agents, true))
				if err != nil {
					t.Fatal(err)
				}
				if p.Name == "teamwork" {
					continue // its labels ("base/n3") are not specs
				}
				b, err := reg.Parse(a.Info().Label, settings(agents, true))
				if err != nil {
					t.Fatalf("%s (agents %d): label %q: %v", spec, agents, a.Info().Label, err)
				}
				if a.Protocol() != p || b.Info() != a.Info() {
					t.Fatalf("%s (agents %d): %+v vs %+v", spec, agents, a.Info(), b.Info())
				}
			}
		}
	}
}

// TestTriageNeverAbstains: on a triage item, every registered protocol
// whose agents give no readable answer predicts the most urgent level (the
// safe default, DESIGN §5) — by its rank, whatever the option order — with
// no abstain reason and the reason recorded as the escalation in its record;
// on the multiple-choice item the same answers are an abstention.
func TestTriageNeverAbstains(t *testing.T) {
	unreadable := func(llm.Request) string { return "I would rather not commit to anything here." }
	for _, p := range protocols.All() {
		spec := p.Presets[0]
		if p.Name == "teamwork" {
			spec = "full"
		}
		for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
			out := kittest.RunOn(t, p, spec, settings(3, true), &kittest.Script{Default: unreadable}, item)
			if out.Predicted != item.MostUrgent() || item.Rank(out.Predicted) != 2 || out.AbstainReason != "" {
				t.Fatalf("%s on %s: predicted %q (rank %d), abstain reason %q; want the most urgent %q", spec, item.ID,
					out.Predicted, item.Rank(out.Predicted), out.AbstainReason, item.MostUrgent())
			}
			if out.Decision.Rule == "" {
				t.Fatalf("%s: no decision rule", spec)
			}
			b, err := json.Marshal(out.Details)
			t.Logf("%s on %s: %s by %s, %s", spec, item.ID, out.Predicted, out.Decision.Rule, b)
			if err != nil || !strings.Contains(string(b), `"escalation":"`) {
				t.Fatalf("%s: protocol_json %s (%v) has no escalation reason", spec, b, err)
			}
		}
		out := kittest.RunOn(t, p, spec, settings(3, true), &kittest.Script{Default: unreadable}, kittest.Item)
		if out.Predicted != "" || out.AbstainReason == "" {
			t.Fatalf("%s on multiple choice: predicted %q, reason %q; want an abstention", spec, out.Predicted, out.AbstainReason)
		}
		if b, _ := json.Marshal(out.Details); strings.Contains(string(b), "escalation") {
			t.Fatalf("%s on multiple choice: %s", spec, b)
		}
	}
}

// TestTriageErrorStaysError: a failed model call on a triage item is an
// error, never a prediction.
func TestTriageErrorStaysError(t *testing.T) {
	for _, p := range protocols.All() {
		spec := p.Presets[0]
		if p.Name == "teamwork" {
			spec = "full"
		}
		a, err := protocols.All().Parse(spec, settings(3, true))
		if err != nil {
			t.Fatal(err)
		}
		if out, err := a.Run(context.Background(), &kittest.Script{}, kittest.TriageItem, kittest.Unit(a.Info().Label)); err == nil {
			t.Fatalf("%s: predicted %q on a failing model", spec, out.Predicted)
		}
	}
}

// TestFirstPromptColumn: the first_prompt value (Outcome.FirstPrompt) is
// equal in every arm that sends the shared first answer unchanged —
// teamwork base included — and differs where an arm adds to it or asks
// otherwise (zeroshot, SMM).
func TestFirstPromptColumn(t *testing.T) {
	got := map[string]string{}
	for _, spec := range []string{"vote", "sc:k=3", "cot", "judge", "council:balanced", "debate:n=3,r=2", "base", "c2", "zeroshot", "c1"} {
		a, err := protocols.All().Parse(spec, settings(3, true))
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Run(context.Background(), &kittest.Script{Default: stubText}, kittest.Item, kittest.Unit(a.Info().Label))
		if err != nil {
			t.Fatal(err)
		}
		if out.FirstPrompt == "" {
			t.Fatalf("%s: no first_prompt", spec)
		}
		got[spec] = out.FirstPrompt
	}
	for _, spec := range []string{"sc:k=3", "cot", "judge", "council:balanced", "debate:n=3,r=2", "base", "c2"} {
		if got[spec] != got["vote"] {
			t.Errorf("%s first_prompt %s, vote's %s: the same first answer must name the same prompt", spec, got[spec], got["vote"])
		}
	}
	for _, spec := range []string{"zeroshot", "c1"} {
		if got[spec] == got["vote"] {
			t.Errorf("%s shares vote's first_prompt, though its first request differs", spec)
		}
	}
}

// TestEveryCallRead: on the simulator, every answered call of a unit that
// finished has a parse method recorded — what was read from it, or "none"
// with a reason — for every registered protocol's presets, in JSON and in
// text mode (an unread ok call is invisible to the parse statistics).
func TestEveryCallRead(t *testing.T) {
	for _, structured := range []bool{true, false} {
		var arms []runner.Arm
		seen := map[string]bool{}
		for _, p := range protocols.All() {
			for _, spec := range p.Presets {
				a, err := protocols.All().Parse(spec, settings(3, structured))
				if err != nil {
					t.Fatal(err)
				}
				if l := a.Info().Label; !seen[l] {
					seen[l] = true
					arms = append(arms, runner.Arm{Label: l, Protocol: a})
				}
			}
		}
		plan, _ := simPlan(t, arms, 8, "noisy")
		res, err := runner.Run(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, q := range res.Questions {
			if q.Error != "" {
				failed[q.QuestionID+"/"+q.Arm] = true
			}
		}
		unread := map[string]int{}
		for _, c := range res.Calls {
			if c.Status == "ok" && c.ParseMethod == "" && !failed[c.QuestionID+"/"+c.Arm] {
				unread[c.Arm+" "+c.Kind]++
			}
		}
		if len(unread) > 0 {
			t.Errorf("structured=%v: answered calls without a parse method: %v", structured, unread)
		}
	}
}

// panelLabel is the label a spec of the grid gets under --agents 3: the
// panel protocols (vote, judge, council) whose team is the plan's end in
// "/n3", as teamwork's do.
func panelLabel(spec string) string {
	for _, p := range []string{"vote", "judge", "council"} {
		if (spec == p || strings.HasPrefix(spec, p+":")) && !strings.Contains(spec, "n=") {
			return spec + "/n3"
		}
	}
	return spec
}

// TestUnknownArm: a spec no protocol reads lists every protocol and every
// preset (before, teamwork claimed it and listed only its own presets) and
// suggests the closest arm; a protocol's alias suggests the protocol with
// the options given.
func TestUnknownArm(t *testing.T) {
	set := protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	for _, tc := range []struct{ spec, suggestion string }{
		{"self-consistency", "sc:k=5"},
		{"Self-Consistency:k=3", "sc:k=3"},
		{"chain-of-thought", "cot"},
		{"zero-shot", "zeroshot"},
		{"debat:3,2", "debate:3,2"},
		{"councl:novelty", "council:novelty"},
		{"medagent", "medagents"},
		{"ful", "full"},
		{"majority", "vote"},
		{"xyzzy", ""},
	} {
		_, err := protocols.All().Parse(tc.spec, set)
		if err == nil {
			t.Fatalf("%s parsed", tc.spec)
		}
		msg := err.Error()
		for _, want := range []string{"the protocols are zeroshot, cot, sc, debate, vote, veto, judge, council, medagents, mdagents, teamwork",
			"sc:k=5", "council:novelty", "medagents:syn_only", "mdagents:route=basic", "c7, full"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", tc.spec, msg, want)
			}
		}
		did := ""
		if _, after, ok := strings.Cut(msg, "(did you mean "); ok {
			did, _, _ = strings.Cut(after, "?)")
		}
		if want := map[bool]string{true: "", false: `"` + tc.suggestion + `"`}[tc.suggestion == ""]; did != want {
			t.Errorf("%s: suggests %s, want %s", tc.spec, did, want)
		}
	}
	// teamwork still reports its own problems
	if _, err := protocols.All().Parse("smm+zz", set); err == nil || !strings.Contains(err.Error(), `unknown teamwork component "zz"`) {
		t.Errorf("smm+zz: %v", err)
	}
}

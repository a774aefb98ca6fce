package medagents_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/protocols/medagents"
	"github.com/medteam-bench/medteam/qa"
)

func settings(structured bool) protocol.Settings {
	s := kittest.Settings(3)
	s.Structured = structured
	return s
}

var fieldsLine = regexp.MustCompile(`(?m)^NUMBER OF FIELDS: (\d+)`)

// doctor answers every kind in the reference's text formats: domains
// named after the kind and index, analyses and advice that name their
// expert, a report, revisions numbered by round, votes by vote(round,
// agent) and the decision final.
func doctor(vote func(round, agent int) string, final string) *kittest.Script {
	return &kittest.Script{Default: func(req llm.Request) string {
		m := req.Meta
		switch m.Kind {
		case medagents.KindQuestionDomains, medagents.KindOptionDomains:
			n := 0
			fmt.Sscan(fieldsLine.FindStringSubmatch(req.Messages[1].Content)[1], &n)
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("%s field %d", strings.Split(m.Kind, "_")[0], i+1)
			}
			return "Medical Field: " + strings.Join(names, " | ")
		case medagents.KindQuestionAnalysis, medagents.KindOptionAnalysis:
			return fmt.Sprintf("analysis by expert %d", m.Agent+1)
		case medagents.KindReport:
			return "Key Knowledge: knowledge of the synthesiser\nTotal Analysis: the first analysis"
		case medagents.KindVote:
			return vote(m.Turn, m.Agent)
		case medagents.KindAdvice:
			return fmt.Sprintf("Revisions: advice of expert %d in round %d", m.Agent+1, m.Turn)
		case medagents.KindRevision:
			return fmt.Sprintf("Total Analysis: the analysis revised in round %d", m.Turn)
		case medagents.KindFinal:
			return final
		}
		return "?"
	}}
}

func always(v string) func(int, int) string { return func(int, int) string { return v } }

func run(t *testing.T, spec string, s protocol.Settings, c llm.Client, item qa.Item) (*protocol.Outcome, medagents.Details) {
	t.Helper()
	out := kittest.RunOn(t, medagents.Protocol, spec, s, c, item)
	d := out.Details
	if e, ok := d.(kit.Escalated); ok {
		d = e.Details
	}
	det, ok := d.(medagents.Details)
	if !ok {
		b, _ := json.Marshal(out.Details)
		t.Fatalf("details %T %s", out.Details, b)
	}
	return out, det
}

func count(keys []string, kind string) int {
	n := 0
	for _, k := range keys {
		if strings.HasPrefix(k, kind+"/") {
			n++
		}
	}
	return n
}

// TestRounds: the consultation's calls and record for known vote patterns:
// all yes (18, the minimum), all no in every round (56, the maximum), one no
// then consensus, unread votes counted as yes.
func TestRounds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		vote      func(round, agent int) string
		calls     int
		rounds    int
		no        []int
		revisions int
		consensus bool
		unread    int
	}{
		{"all yes", always("YES"), 18, 1, []int{0}, 0, true, 0},
		{"all no", always("NO"), 56, 3, []int{7, 7, 7}, 3, false, 0},
		{"one no, then yes", func(r, a int) string {
			if r == 1 && a == 2 {
				return "NO"
			}
			return "YES"
		}, 27, 2, []int{1, 0}, 1, true, 0},
		{"no until round 3", func(r, a int) string {
			if r < 3 && a >= 5 {
				return "No."
			}
			return "Yes."
		}, 2 + 7 + 1 + (7 + 2 + 1) + (7 + 2 + 1) + 7 + 1, 3, []int{2, 2, 0}, 2, true, 0},
		{"unread counts as yes", always("I have reviewed the report."), 18, 1, []int{0}, 0, true, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := doctor(tc.vote, "Option: C")
			out, det := run(t, "medagents", settings(false), sc, kittest.Item)
			keys := sc.Keys()
			var no []int
			for _, r := range det.Rounds {
				no = append(no, r.No)
			}
			if len(keys) != tc.calls || det.Calls != tc.calls || len(det.Rounds) != tc.rounds || !slices.Equal(no, tc.no) ||
				out.RevisionRounds != tc.revisions || det.Revisions != tc.revisions || det.Consensus != tc.consensus || det.UnreadVotes != tc.unread {
				t.Fatalf("calls %d (record %d), rounds %+v, revision rounds %d, consensus %v, unread %d", len(keys), det.Calls, det.Rounds,
					out.RevisionRounds, det.Consensus, det.UnreadVotes)
			}
			a, _, _ := medagents.Protocol.Parse("medagents", settings(false))
			lo, extra := a.Calls(3)
			if tc.calls < lo || tc.calls > lo+extra {
				t.Fatalf("%d calls outside [%d, %d]", tc.calls, lo, lo+extra)
			}
			if count(keys, medagents.KindAdvice) != det.Advice || count(keys, medagents.KindRevision) != det.Revisions {
				t.Fatalf("advice %d/%d, revisions %d/%d", count(keys, medagents.KindAdvice), det.Advice, count(keys, medagents.KindRevision), det.Revisions)
			}
			if out.Predicted != "C" || out.ParseFailures() != tc.unread {
				t.Fatalf("predicted %q, parse failures %d", out.Predicted, out.ParseFailures())
			}
		})
	}
}

// TestStages: what each stage is shown — the question analyses never the
// options; each option analysis every question analysis; the synthesiser
// every analysis; the voters the report; the reviser the advice of the
// experts who said no (and only theirs); later rounds and the decision the
// revised analysis. Every call is greedy and the orders are unique and
// follow the stages.
func TestStages(t *testing.T) {
	sc := doctor(func(r, a int) string {
		if r == 1 && (a == 1 || a == 6) {
			return "NO"
		}
		return "YES"
	}, "Option: A")
	out, det := run(t, "medagents", settings(false), sc, kittest.Item)
	user := func(kind string, turn, agent int) string { return sc.User(t, kittest.Key(kind, turn, agent)) }
	for i := 0; i < 5; i++ {
		u := user(medagents.KindQuestionAnalysis, 0, i)
		if strings.Contains(u, "Aspirin") || !strings.Contains(u, kittest.Item.Stem) {
			t.Fatalf("question analysis %d shows the options or lacks the stem:\n%s", i, u)
		}
		if sys := sc.Reqs[kittest.Key(medagents.KindQuestionAnalysis, 0, i)].Messages[0].Content; !strings.Contains(sys, fmt.Sprintf("question field %d", i+1)) {
			t.Fatalf("question analyst %d's system prompt %q names no domain", i, sys)
		}
	}
	for j := 5; j < 7; j++ {
		u := user(medagents.KindOptionAnalysis, 0, j)
		for i := 1; i <= 5; i++ {
			if !strings.Contains(u, fmt.Sprintf("The evaluation from the question field %d expert suggests: analysis by expert %d", i, i)) {
				t.Fatalf("option analysis %d lacks question analysis %d:\n%s", j, i, u)
			}
		}
		if !strings.Contains(u, "D) Alteplase") || strings.Count(u, "A) Aspirin") != 1 {
			t.Fatalf("option analysis %d: options not shown once:\n%s", j, u)
		}
	}
	syn := user(medagents.KindReport, 0, -1)
	for i := 1; i <= 7; i++ {
		if !strings.Contains(syn, fmt.Sprintf("Analysis: analysis by expert %d\n", i)) {
			t.Fatalf("synthesis lacks analysis %d:\n%s", i, syn)
		}
	}
	for k := 0; k < 7; k++ {
		u := user(medagents.KindVote, 1, k)
		if !strings.Contains(u, "Key Knowledge: knowledge of the synthesiser\nTotal Analysis: the first analysis\n") || !strings.Contains(u, "A) Aspirin") {
			t.Fatalf("vote %d:\n%s", k, u)
		}
		if u2 := user(medagents.KindVote, 2, k); !strings.Contains(u2, "Total Analysis: the analysis revised in round 1\n") {
			t.Fatalf("round 2 vote %d does not show the revision:\n%s", k, u2)
		}
	}
	rev := user(medagents.KindRevision, 1, -1)
	if !strings.Contains(rev, "option field 1: Revisions: advice of expert 7 in round 1") && !strings.Contains(rev, "advice of expert 7 in round 1") ||
		!strings.Contains(rev, "advice of expert 2 in round 1") || strings.Count(rev, "Here is advice") != 2 {
		t.Fatalf("revision prompt:\n%s", rev)
	}
	if fin := user(medagents.KindFinal, 0, -1); !strings.Contains(fin, "Total Analysis: the analysis revised in round 1\n") || !strings.Contains(fin, "Option: [Selected Option's Letter]") {
		t.Fatalf("final prompt:\n%s", fin)
	}
	orders := map[int]string{}
	for k, req := range sc.Reqs {
		if req.Temperature != 0 {
			t.Fatalf("%s at temperature %v", k, req.Temperature)
		}
		if prev, dup := orders[req.Meta.Order]; dup || req.Meta.Order <= 0 {
			t.Fatalf("order %d of %s is also %s's", req.Meta.Order, k, prev)
		}
		orders[req.Meta.Order] = k
	}
	seq := []string{kittest.Key(medagents.KindQuestionDomains, 0, -1), kittest.Key(medagents.KindOptionDomains, 0, -1),
		kittest.Key(medagents.KindQuestionAnalysis, 0, 4), kittest.Key(medagents.KindOptionAnalysis, 0, 5), kittest.Key(medagents.KindReport, 0, -1),
		kittest.Key(medagents.KindVote, 1, 1), kittest.Key(medagents.KindAdvice, 1, 1), kittest.Key(medagents.KindVote, 1, 6),
		kittest.Key(medagents.KindAdvice, 1, 6), kittest.Key(medagents.KindRevision, 1, -1), kittest.Key(medagents.KindVote, 2, 0),
		kittest.Key(medagents.KindFinal, 0, -1)}
	for i := 1; i < len(seq); i++ {
		if sc.Reqs[seq[i-1]].Meta.Order >= sc.Reqs[seq[i]].Meta.Order {
			t.Fatalf("%s is not ordered before %s", seq[i-1], seq[i])
		}
	}
	if out.N != 7 || len(out.Roles) != 7 || out.Roles[6] != "option field 2" || det.Rounds[0].Votes[1] != medagents.VoteNo || det.FinalAnswer != "A" {
		t.Fatalf("outcome %+v, details %+v", out, det)
	}
}

// TestMethods: syn_only and anal_only make their fixed calls; the three
// methods ask the gathering and the analyses with byte-identical requests
// (and syn_only and syn_verif the synthesis), so a sweep sends them once.
func TestMethods(t *testing.T) {
	for _, structured := range []bool{true, false} {
		hashes := map[string]map[string]bool{} // call → request hashes
		for _, tc := range []struct {
			spec, method string
			calls        int
		}{{"medagents", "syn_verif", 18}, {"medagents:syn_only", "syn_only", 11}, {"medagents:anal_only", "anal_only", 10},
			{"medagents:method=syn_verif,rounds=1", "syn_verif", 18}} {
			sc := doctor(always("YES"), "Option: B")
			out, det := run(t, tc.spec, settings(structured), sc, kittest.Item)
			if len(sc.Keys()) != tc.calls || out.Predicted != "B" || det.Method != tc.method {
				t.Fatalf("%s: %d calls, predicted %q, method %q", tc.spec, len(sc.Keys()), out.Predicted, det.Method)
			}
			for k, req := range sc.Reqs {
				if hashes[k] == nil {
					hashes[k] = map[string]bool{}
				}
				hashes[k][llm.RequestHash(req)] = true
			}
			if tc.spec == "medagents:anal_only" {
				fin := sc.User(t, kittest.Key(medagents.KindFinal, 0, -1))
				if !strings.Contains(fin, "Insight from an expert in question field 3 suggests, analysis by expert 3") ||
					!strings.Contains(fin, "Assessment from an expert in option field 2 suggests, analysis by expert 7") {
					t.Fatalf("anal_only decision prompt:\n%s", fin)
				}
			}
		}
		for k, hs := range hashes {
			if !strings.HasPrefix(k, medagents.KindFinal) && len(hs) != 1 {
				t.Fatalf("structured=%v: %s differs between methods", structured, k)
			}
		}
	}
}

// TestDomainsPadded: a gathering reply with fewer names than asked is
// padded with General Medicine, so the analyses and votes are still one per
// domain (the accounting holds); an unreadable reply is all General
// Medicine and a parse failure.
func TestDomainsPadded(t *testing.T) {
	sc := doctor(always("YES"), "Option: A")
	inner := sc.Default
	sc.Default = func(req llm.Request) string {
		switch req.Meta.Kind {
		case medagents.KindQuestionDomains:
			return "Medical Field: Cardiology | Nephrology"
		case medagents.KindOptionDomains:
			return "These options span several specialties."
		}
		return inner(req)
	}
	out, det := run(t, "medagents", settings(false), sc, kittest.Item)
	gm := medagents.FallbackDomain
	if !slices.Equal(det.QuestionDomains, []string{"Cardiology", "Nephrology", gm, gm, gm}) || !slices.Equal(det.OptionDomains, []string{gm, gm}) ||
		det.QuestionDomainsRead != 2 || det.OptionDomainsRead != 0 || len(sc.Keys()) != 18 || out.ParseFailures() != 1 {
		t.Fatalf("%+v, %d calls, %d parse failures", det, len(sc.Keys()), out.ParseFailures())
	}
}

// TestUnreadableDecision: an unreadable decision is an abstention with its
// reason on a multiple-choice item, and the most urgent level (with the
// reason as the escalation) on a triage item, whatever the option order.
func TestUnreadableDecision(t *testing.T) {
	for _, item := range []qa.Item{kittest.Item, kittest.TriageItem, kittest.TriageShuffled} {
		sc := doctor(always("YES"), "I would rather not commit to anything here.")
		out, det := run(t, "medagents", settings(true), sc, item)
		b, _ := json.Marshal(out.Details)
		switch {
		case !item.IsTriage() && (out.Predicted != "" || !strings.HasPrefix(out.AbstainReason, "final_unparsed: ")):
			t.Fatalf("%s: predicted %q, reason %q", item.ID, out.Predicted, out.AbstainReason)
		case item.IsTriage() && (out.Predicted != item.MostUrgent() || out.AbstainReason != "" || !strings.Contains(string(b), `"escalation":"final_unparsed: `)):
			t.Fatalf("%s: predicted %q, reason %q, %s", item.ID, out.Predicted, out.AbstainReason, b)
		}
		if det.Rule != medagents.RuleFinalUnparsed || out.Decision.Rule != medagents.RuleFinalUnparsed {
			t.Fatalf("%s: rule %q", item.ID, det.Rule)
		}
	}
}

// TestTriage: on a triage item the decision may name the level by letter,
// code or name, and the stated diagnosis is kept.
func TestTriage(t *testing.T) {
	for _, tc := range []struct {
		item  qa.Item
		final string
		want  string
	}{
		{kittest.TriageItem, "Option: C\nDIAGNOSIS: Pneumonia", "C"},
		{kittest.TriageShuffled, "Option: Emergency care", "A"},
		{kittest.TriageShuffled, `{"answer": "sc"}`, "B"},
	} {
		out, _ := run(t, "medagents", settings(false), doctor(always("YES"), tc.final), tc.item)
		if out.Predicted != tc.want || out.Decision.Rule != medagents.RuleFinal {
			t.Fatalf("%s %q: predicted %q", tc.item.ID, tc.final, out.Predicted)
		}
		if strings.Contains(tc.final, "DIAGNOSIS") && out.Final()[0].Diagnosis != "Pneumonia" {
			t.Fatalf("diagnosis %q", out.Final()[0].Diagnosis)
		}
	}
}

// TestPeerChars: --peer-chars bounds each expert text a prompt shows.
func TestPeerChars(t *testing.T) {
	s := settings(false)
	s.PeerChars = 12
	sc := doctor(always("YES"), "Option: A")
	run(t, "medagents", s, sc, kittest.Item)
	u := sc.User(t, kittest.Key(medagents.KindOptionAnalysis, 0, 5))
	if !strings.Contains(u, "suggests: analysis by …\n") || strings.Contains(u, "analysis by expert") {
		t.Fatalf("option analysis prompt:\n%s", u)
	}
	if v := sc.User(t, kittest.Key(medagents.KindVote, 1, 0)); !strings.Contains(v, "Total Analysis: the first an…\n") {
		t.Fatalf("vote prompt:\n%s", v)
	}
}

// TestSchemas: the JSON answers' properties in declared order (the
// report's key knowledge before its analysis); no kind asks for an answer
// before reasoning.
func TestSchemas(t *testing.T) {
	sc := doctor(always("NO"), `{"answer": "A"}`)
	run(t, "medagents:rounds=1", settings(true), sc, kittest.Item)
	want := map[string][]string{
		medagents.KindQuestionDomains: {"fields"}, medagents.KindOptionDomains: {"fields"}, medagents.KindQuestionAnalysis: {"analysis"},
		medagents.KindOptionAnalysis: {"analysis"}, medagents.KindReport: {"key_knowledge", "total_analysis"}, medagents.KindVote: {"vote"},
		medagents.KindAdvice: {"revisions"}, medagents.KindRevision: {"total_analysis"}, medagents.KindFinal: {"answer"},
	}
	seen := map[string]bool{}
	for k, req := range sc.Reqs {
		kind := req.Meta.Kind
		if req.Schema == nil {
			t.Fatalf("%s: no schema", k)
		}
		got, err := kit.PropertyOrder(req.Schema.Schema)
		if err != nil || !slices.Equal(got, want[kind]) {
			t.Fatalf("%s: properties %v (%v), want %v", k, got, err, want[kind])
		}
		seen[kind] = true
	}
	if len(seen) != len(medagents.Kinds) {
		t.Fatalf("kinds seen %v", seen)
	}
}

func TestParseArm(t *testing.T) {
	for _, tc := range []struct {
		spec, label string
		lo, hi      int
		err         string
	}{
		{"medagents", "medagents", 18, 56, ""},
		{"medagents:syn_verif", "medagents", 18, 56, ""},
		{"medagents:method=syn_only", "medagents:syn_only", 11, 11, ""},
		{"medagents:anal_only", "medagents:anal_only", 10, 10, ""},
		{"medagents:rounds=1", "medagents:rounds=1", 18, 26, ""},
		{"medagents:qd=3,od=1", "medagents:qd=3,od=1", 2 + 4 + 1 + 4 + 1, 2 + 4 + 1 + 3*9 + 1, ""},
		{"medagents:syn_only,qd=2", "medagents:syn_only,qd=2", 2 + 4 + 2, 2 + 4 + 2, ""},
		{"medagents:debate", "", 0, 0, "unknown method"},
		{"medagents:syn_only,rounds=2", "", 0, 0, "rounds applies to syn_verif only"},
		{"medagents:syn_only,anal_only", "", 0, 0, "one method"},
		{"medagents:qd=0", "", 0, 0, "qd=0"},
		{"medagents:rounds=11", "", 0, 0, "rounds=11"},
		{"medagents:n=3", "", 0, 0, "unknown option"},
	} {
		a, ok, err := medagents.Protocol.Parse(tc.spec, settings(true))
		if !ok || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Fatalf("%s: ok %v err %v", tc.spec, ok, err)
		}
		if err != nil {
			continue
		}
		lo, extra := a.Calls(0)
		if a.Info().Label != tc.label || lo != tc.lo || lo+extra != tc.hi {
			t.Fatalf("%s: label %q, calls [%d, %d]", tc.spec, a.Info().Label, lo, lo+extra)
		}
		if b, _, err := medagents.Protocol.Parse(a.Info().Label, settings(true)); err != nil || b.Info() != a.Info() {
			t.Fatalf("%s: label %q does not parse back (%v)", tc.spec, a.Info().Label, err)
		}
	}
	if _, ok, _ := medagents.Protocol.Parse("mdagents", settings(true)); ok {
		t.Fatal("medagents claims mdagents")
	}
}

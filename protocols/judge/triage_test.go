package judge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/configs"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/triage/redflag"
)

func triageCase(item qa.Item, text string) qa.Item {
	item.Stem = text + "\nChoose the urgency level."
	return item
}

// TestRedFlagZeroCalls: when a keyword of seed 003's list occurs in a
// triage case (case-insensitive, partial, without negation handling, as
// the seed says), the judge escalates it to the most urgent level (by
// rank, in both option orders) with zero model calls and records the rule,
// in both modes.
func TestRedFlagZeroCalls(t *testing.T) {
	for _, tc := range []struct{ text, rule string }{
		{"A 58-year-old man with crushing CHEST PAIN radiating to the left arm and sweating.", "chest_pain"},
		{"Her husband noticed a facial droop and slurred speech.", "facial_droop"},
		{"He told his wife: I want to kill myself.", "want_to_kill_myself"},
		{"A cough for a week; he denies chest pain.", "chest_pain"}, // no negation: the seed's literal match
		{"Heatstroke after a marathon in the sun.", "stroke"},       // partial match
	} {
		for _, spec := range []string{"judge", "judge:mode=code"} {
			for _, base := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
				item := triageCase(base, tc.text)
				s := &kittest.Script{Default: func(llm.Request) string { return "{}" }}
				out := kittest.RunOn(t, Protocol, spec, kittest.Settings(3), s, item)
				if n := len(s.Keys()); n != 0 {
					t.Fatalf("%s %s: %d calls, want 0", spec, tc.rule, n)
				}
				if out.Predicted != item.MostUrgent() || item.Code(out.Predicted) != "em" || out.RedFlag != tc.rule ||
					out.Decision.Rule != RuleRedFlag || out.AbstainReason != "" {
					t.Fatalf("%s %s: predicted %q rule %q red flag %q", spec, tc.rule, out.Predicted, out.Decision.Rule, out.RedFlag)
				}
				b, _ := json.Marshal(out.Details)
				if !strings.Contains(string(b), `"red_flag":"`+tc.rule+`"`) || !strings.Contains(string(b), `"rules":"seed003"`) ||
					!strings.Contains(string(b), `"calls":0`) || strings.Contains(string(b), "developed_on") {
					t.Fatalf("protocol_json %s", b)
				}
			}
		}
	}
}

// TestRedFlagSemigranSet: the alternative set, chosen by name, fires where
// the literal keywords do not, and the row says what it was developed on.
func TestRedFlagSemigranSet(t *testing.T) {
	text := "Fever, photophobia and neck stiffness since this morning."
	rs, ok := configs.RedFlagSet(configs.RedFlagsSemigran)
	if !ok {
		t.Fatal("no semigran set")
	}
	if _, fires := configs.RedFlags().Match(text); fires {
		t.Fatal("a seed keyword fires on the meningism case")
	}
	set := kittest.Settings(3)
	set.RedFlags = rs
	s := &kittest.Script{}
	out := kittest.RunOn(t, Protocol, "judge", set, s, triageCase(kittest.TriageItem, text))
	b, _ := json.Marshal(out.Details)
	if out.RedFlag != "meningism" || len(s.Keys()) != 0 || !strings.Contains(string(b), `"rules":"semigran","developed_on":"the 45 Semigran`) {
		t.Fatalf("flag %q calls %v protocol_json %s", out.RedFlag, s.Keys(), b)
	}
	a, _, _ := Protocol.Parse("judge", set)
	if info := a.Info(); info.RedFlags != "semigran" || !strings.Contains(info.RedFlagsDevelopedOn, "Semigran") || info.RedFlagsSHA256 != rs.SHA256 {
		t.Fatalf("arm info %+v", info)
	}
}

// TestRedFlagLevel: a rule that names a level escalates to that level.
func TestRedFlagLevel(t *testing.T) {
	rs, err := redflag.Parse("x.yaml", []byte("version: 1\nrules:\n  - name: rash\n    level: ne\n    patterns: ['itchy rash']\n    positive: ['an itchy rash']\n    negative: ['a cough']\n"))
	if err != nil {
		t.Fatal(err)
	}
	set := kittest.Settings(3)
	set.RedFlags = rs
	for _, base := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
		s := &kittest.Script{}
		out := kittest.RunOn(t, Protocol, "judge", set, s, triageCase(base, "An itchy rash on both arms."))
		if base.Code(out.Predicted) != "ne" || out.RedFlag != "rash" || len(s.Keys()) != 0 {
			t.Fatalf("%s: %q (%s) flag %q calls %v", base.ID, out.Predicted, base.Code(out.Predicted), out.RedFlag, s.Keys())
		}
	}
	a, _, _ := Protocol.Parse("judge", set)
	if info := a.Info(); info.RedFlagsSHA256 != rs.SHA256 || info.RedFlags != "x.yaml" || info.RedFlagsDevelopedOn != "" {
		t.Fatalf("the arm does not record the rules: %+v", info)
	}
}

// TestTriageDecisions: without a red flag the experts and the judge decide
// (N+1 calls): the judge's consensus urgency (1…L, mapped by rank in both
// option orders), kept under low confidence (the seed changes only the
// specialty); an unreadable urgency escalates. A multiple-choice item
// never meets the rules, whatever its text says (kittest.Item has crushing
// chest pain).
func TestTriageDecisions(t *testing.T) {
	for _, base := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
		item := triageCase(base, "A cough for three days, no fever, no breathing difficulty.")
		sc, ne := item.LetterOfRank(0), item.LetterOfRank(1)
		first := func(l string, c float64) string { return kittest.TriageFirst(l, c, 0.1, false) }
		for _, tc := range []struct {
			name, judge, want, rule string
			agrees                  bool
		}{
			{"the judge's urgency", `{"reasoning":"r","consensus_urgency":1,"average_confidence":0.8,"is_low_confidence":false}`, "sc", RuleJudge, false},
			{"the algorithm's urgency", `{"reasoning":"r","consensus_urgency":1,"average_confidence":0.73,"is_low_confidence":false}`, "sc", RuleJudge, true},
			{"low confidence keeps the urgency", `{"reasoning":"r","consensus_urgency":2,"average_confidence":0.5,"is_low_confidence":true}`, "ne", RuleJudge, false},
			{"an unreadable urgency escalates", `I cannot decide.`, "em", RuleJudgeUnparsed, false},
			{"an urgency off the scale escalates", `{"consensus_urgency":7}`, "em", RuleJudgeUnparsed, false},
		} {
			// sc 0.8, sc 0.8, ne 0.6: Σu·c/Σc = 0.6/2.2 → sc; mean 0.733.
			s := script([]string{first(sc, 0.8), first(sc, 0.8), first(ne, 0.6)}, tc.judge)
			out := kittest.RunOn(t, Protocol, "judge", kittest.Settings(3), s, item)
			det, _ := out.Details.(Details)
			if e, ok := out.Details.(kit.Escalated); ok {
				det = e.Details.(Details)
			}
			if len(s.Keys()) != 4 || item.Code(out.Predicted) != tc.want || out.Decision.Rule != tc.rule || out.RedFlag != "" || out.AbstainReason != "" || *det.Agrees != tc.agrees {
				t.Fatalf("%s %s: calls %v, %q (%s) by %s, flag %q, agrees %v %v", base.ID, tc.name, s.Keys(), out.Predicted, item.Code(out.Predicted), out.Decision.Rule, out.RedFlag, *det.Agrees, det.Disagreements)
			}
		}
		// Mode code: the weighted urgency itself.
		s := script([]string{first(sc, 0.9), first(item.MostUrgent(), 0.9), first(item.MostUrgent(), 0.3)}, "")
		out := kittest.RunOn(t, Protocol, "judge:mode=code", kittest.Settings(3), s, item)
		// (0·0.9 + 2·0.9 + 2·0.3) / 2.1 = 1.14 → ne.
		if len(s.Keys()) != 3 || item.Code(out.Predicted) != "ne" || out.Decision.Rule != "weighted_urgency" {
			t.Fatalf("%s code: calls %v, %s by %s", base.ID, s.Keys(), item.Code(out.Predicted), out.Decision.Rule)
		}
	}
	s := &kittest.Script{Default: func(req llm.Request) string {
		if req.Meta.Kind == kit.KindJudge {
			return `{"reasoning":"r","consensus_answer":"A","average_confidence":0.8,"is_low_confidence":false}`
		}
		return kittest.First("A", 0.8, 0.1, false)
	}}
	out := kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
	if len(s.Keys()) != 4 || out.RedFlag != "" || out.Predicted != "A" {
		t.Fatalf("multiple choice: calls %v, flag %q", s.Keys(), out.RedFlag)
	}
}

// TestTriageJudgeSees: on a triage item the judge is shown the urgency
// scale, each expert's urgency as its number on it (by rank, whatever the
// option order), and the seed's urgency tasks; the schema asks for the
// consensus urgency, reasoning first.
func TestTriageJudgeSees(t *testing.T) {
	item := triageCase(kittest.TriageShuffled, "A cough for three days.") // A = em, B = sc, C = ne
	s := script([]string{kittest.TriageFirst("A", 0.9, 0.1, false), kittest.TriageFirst("C", 0.6, 0.1, false), "?"},
		`{"reasoning":"r","consensus_urgency":3,"average_confidence":0.5,"is_low_confidence":true}`)
	kittest.RunOn(t, Protocol, "judge", kittest.Settings(3), s, item)
	req := s.Reqs[kittest.Key(kit.KindJudge, 0, -1)]
	user := req.Messages[1].Content
	for _, want := range []string{
		"Urgency scale, least urgent first: 1 = sc (Self-care, option B), 2 = ne (Non-emergency care, option C), 3 = em (Emergency care, option A).",
		"  {\"confidence\": 0.9, \"urgency\": 3, \"reasoning\": \"A fits the case.\"},\n  {\"confidence\": 0.6, \"urgency\": 2, \"reasoning\": \"C fits the case.\"},\n  {\"confidence\": null, \"urgency\": null, \"reasoning\": null}\n]}",
		"1.  **Urgency Consensus**: Calculate the confidence-weighted average of the `urgency` scores. Round to the nearest integer.",
		"if the weights sum to 0 the urgency is 2, and if no agent has an urgency it is 3.",
		"If `average_confidence` is less than 0.70, set `is_low_confidence` to `true`.",
	} {
		if !strings.Contains(user, want) {
			t.Fatalf("judge prompt lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "specialty") || strings.Contains(user, "cough") {
		t.Fatalf("the judge is asked for a specialty the item does not have, or sees the case:\n%s", user)
	}
	order, _ := kit.PropertyOrder(req.Schema.Schema)
	if !slices.Equal(order, []string{"reasoning", "consensus_urgency", "average_confidence", "is_low_confidence"}) {
		t.Fatalf("schema order %v", order)
	}
}

// specialtyItem is a triage item that asks for a specialty.
func specialtyItem() qa.Item {
	item := triageCase(kittest.TriageItem, "Palpitations for a week.")
	tr := *item.Triage
	tr.AskSpecialty, tr.Specialties = true, []string{"Cardiology", "General Practice", "Neurology"}
	item.Triage = &tr
	return item
}

// TestTriageSpecialty: where the item asks for a specialty, the first
// answer's JSON request appends it (a "specialty" property after the
// shared ones, one of the item's specialties; the text request is the
// shared one, whose stem already asks); the judge votes on it, and its
// low-confidence flag makes it General Practice. Elsewhere the first
// answer is the shared request, byte for byte.
func TestTriageSpecialty(t *testing.T) {
	item := specialtyItem()
	first := func(l, sp string) string {
		return `{"reasoning":"r","ranking":["` + l + `"],"confidence":0.8,"risk":0.1,"veto":false,"specialty":"` + sp + `"}`
	}
	for _, tc := range []struct{ judge, want string }{
		{`{"reasoning":"r","consensus_specialty":"Cardiology","consensus_urgency":2,"average_confidence":0.8,"is_low_confidence":false}`, "Cardiology"},
		{`{"reasoning":"r","consensus_specialty":"Cardiology","consensus_urgency":2,"average_confidence":0.5,"is_low_confidence":true}`, "General Practice"},
	} {
		s := script([]string{first("B", "Cardiology"), first("B", "Cardiology"), first("C", "Neurology")}, tc.judge)
		out := kittest.RunOn(t, Protocol, "judge", kittest.Settings(3), s, item)
		if out.Specialty != tc.want || item.Code(out.Predicted) != "ne" {
			t.Fatalf("specialty %q level %s; want %q ne", out.Specialty, item.Code(out.Predicted), tc.want)
		}
		det := out.Details.(Details)
		if det.Code.ConsensusSpecialty != "Cardiology" || det.SpecialtyBranch != "plurality" {
			t.Fatalf("code %+v %q", det.Code, det.SpecialtyBranch)
		}
		req := s.Reqs[kittest.Key(kit.KindFirst, 0, 0)]
		order, _ := kit.PropertyOrder(req.Schema.Schema)
		if order[0] != "reasoning" || order[len(order)-1] != "specialty" || !strings.Contains(string(req.Schema.Schema), `"specialty":{"enum":["Cardiology","General Practice","Neurology"],"type":"string"}`) ||
			!strings.HasSuffix(req.Messages[1].Content, "\nAlso give \"specialty\" in the JSON object: the specialty that should see the patient, one of: Cardiology, General Practice, Neurology.") {
			t.Fatalf("first answer: schema %s\nuser %s", req.Schema.Schema, req.Messages[1].Content)
		}
		user := s.User(t, kittest.Key(kit.KindJudge, 0, -1))
		if !strings.Contains(user, `{"specialty": "Cardiology", "confidence": 0.8, "urgency": 2, "reasoning": "r"}`) ||
			!strings.Contains(user, "1.  **Specialty Consensus**: Perform a plurality vote on the `specialty` field. If there is a tie, the winner is \"General Practice\"") ||
			!strings.Contains(user, "set `is_low_confidence` to `true` and `consensus_specialty` to \"General Practice\".") {
			t.Fatalf("judge prompt:\n%s", user)
		}
	}
	// The shared request elsewhere: text mode with specialties, JSON mode
	// without them, and multiple choice.
	text := kittest.Settings(3)
	text.Structured = false
	for _, tc := range []struct {
		item qa.Item
		set  bool
	}{{item, false}, {triageCase(kittest.TriageItem, "A cough."), true}, {kittest.Item, true}} {
		set := kittest.Settings(3)
		if !tc.set {
			set = text
		}
		s := &kittest.Script{Default: func(llm.Request) string { return "{}" }}
		kittest.RunOn(t, Protocol, "judge", set, s, tc.item)
		sess := kit.NewSession(s, tc.item, kittest.Unit("judge"), set.Structured, 0)
		c, err := firstanswer.Call(sess, 1, set.AgentTemp)
		if err != nil {
			t.Fatal(err)
		}
		if llm.RequestHash(s.Reqs[kittest.Key(kit.KindFirst, 0, 1)]) != llm.RequestHash(sess.Request(c)) {
			t.Fatalf("%s (structured %v): the first answer is not the shared request", tc.item.ID, set.Structured)
		}
	}
}

// TestRedFlagsReadTheCase: the rules read the case, not the harness's task
// sentence after it, whose specialties may name a keyword.
func TestRedFlagsReadTheCase(t *testing.T) {
	item := specialtyItem()
	item.Stem = "Case: Palpitations for a week.\n\nTask: decide how urgently this patient needs care. ... one of: Cardiology, Stroke medicine."
	item.Triage.Specialties = []string{"Cardiology", "Stroke medicine"}
	s := &kittest.Script{Default: func(req llm.Request) string {
		if req.Meta.Kind == kit.KindJudge {
			return `{"reasoning":"r","consensus_specialty":"Cardiology","consensus_urgency":2,"average_confidence":0.8,"is_low_confidence":false}`
		}
		return kittest.TriageFirst("B", 0.8, 0.1, false)
	}}
	out := kittest.RunOn(t, Protocol, "judge", kittest.Settings(3), s, item)
	if out.RedFlag != "" || len(s.Keys()) != 4 {
		t.Fatalf("red flag %q, calls %v: the task sentence fired a rule", out.RedFlag, s.Keys())
	}
	item.Stem = "Case: Palpitations after a stroke last year.\n\nTask: decide how urgently this patient needs care."
	s = &kittest.Script{}
	if out := kittest.RunOn(t, Protocol, "judge", kittest.Settings(3), s, item); out.RedFlag != "stroke" || len(s.Keys()) != 0 {
		t.Fatalf("red flag %q, calls %v", out.RedFlag, s.Keys())
	}
}

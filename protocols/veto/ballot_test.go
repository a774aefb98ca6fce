package veto

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

func TestParseBallot(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		decision string
		conf     float64
		risk     float64
		read     answer.Method // MethodNone: unreadable
		note     string
	}{
		{"json", `{"reasoning":"r","ranking":["B","A","C","D"],"confidence":0.7,"risk":0.2,"decision":"B"}`, "B", 0.7, 0.2, answer.MethodJSON, ""},
		{"json refuse", `{"reasoning":"r","ranking":["C","A","B","D"],"confidence":0.3,"risk":0.6,"decision":"REFUSE"}`, aggregator.Refuse, 0.3, 0.6, answer.MethodJSON, ""},
		{"json veto, lower case", `{"reasoning":"r","ranking":["C"],"confidence":0.2,"risk":0.9,"decision":"veto"}`, aggregator.Veto, 0.2, 0.9, answer.MethodJSON, ""},
		{"fenced json, percent risk", "Here:\n```json\n{\"ranking\":[\"D\"],\"confidence\":0.9,\"risk\":\"10%\",\"decision\":\"D\"}\n```", "D", 0.9, 0.1, answer.MethodJSONEmbedded, "read as 0.10"},
		{"decision by option text", `{"ranking":["B","A"],"confidence":0.7,"risk":0.2,"decision":"Heparin"}`, "B", 0.7, 0.2, answer.MethodJSON, ""},
		{"decision differs from the ranking", `{"ranking":["B","A"],"confidence":0.7,"risk":0.2,"decision":"A"}`, "A", 0.7, 0.2, answer.MethodJSON, "differs from the ranking"},
		{"labelled lines", "REASONING: r\nRANKING: B, A, C, D\nCONFIDENCE: 0.62\nRISK: 0.35\nDECISION: B", "B", 0.62, 0.35, answer.MethodLabelled, ""},
		{"labelled refuse with a reason", "REASONING: r\nRANKING: A, B\nCONFIDENCE: 0.40\nRISK: 0.55\nDECISION: **REFUSE** — too uncertain", aggregator.Refuse, 0.4, 0.55, answer.MethodLabelled, ""},
		{"labelled veto", "RANKING: C\nCONFIDENCE: 0.5\nRISK: 0.7\nDecision: VETO.", aggregator.Veto, 0.5, 0.7, answer.MethodLabelled, ""},
		{"the seed's ACT is not a ballot", `{"ranking":["B"],"confidence":0.7,"risk":0.2,"decision":"ACT"}`, "", 0.7, 0.2, answer.MethodNone, "not an option, REFUSE or VETO"},
		{"the seed's WARN is not a ballot", "RANKING: B\nCONFIDENCE: 0.7\nRISK: 0.1\nDECISION: WARN", "", 0.7, 0.1, answer.MethodNone, "not an option"},
		{"a letter that is not an option", `{"ranking":["B"],"confidence":0.7,"risk":0.2,"decision":"E"}`, "", 0.7, 0.2, answer.MethodNone, "not an option"},
		{"no decision: never the ranking's first choice", `{"ranking":["B"],"confidence":0.7,"risk":0.2}`, "", 0.7, 0.2, answer.MethodNone, "no decision"},
		{"no risk", `{"ranking":["B"],"confidence":0.7,"decision":"B"}`, "B", 0.7, -1, answer.MethodNone, "no risk"},
		{"risk out of range is not rescaled", `{"ranking":["B"],"confidence":0.7,"risk":35,"decision":"B"}`, "B", 0.7, -1, answer.MethodNone, "outside [0,1]"},
		{"no confidence", `{"ranking":["B"],"risk":0.2,"decision":"B"}`, "B", -1, 0.2, answer.MethodNone, ""},
		{"cut off before the decision", `{"reasoning":"r","ranking":["B","A"],"confidence":0.7,"risk":0.2,"dec`, "", 0.7, 0.2, answer.MethodNone, "no decision"},
		{"prose", "More history is needed before committing.", "", -1, -1, answer.MethodNone, "no decision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ParseBallot(tt.text, abcd)
			if b.Decision != tt.decision || b.Confidence != tt.conf || b.Risk != tt.risk || b.Read != tt.read || b.Readable() == (b.Why != "") {
				t.Fatalf("ParseBallot = decision %q conf %v risk %v read %q (%q); want %q %v %v %q (notes %q)",
					b.Decision, b.Confidence, b.Risk, b.Read, b.Why, tt.decision, tt.conf, tt.risk, tt.read, b.Notes)
			}
			if tt.note != "" && !slices.ContainsFunc(b.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Fatalf("notes %q lack %q", b.Notes, tt.note)
			}
		})
	}
}

// TestParseBallotTriage: a triage ballot may name its level by letter, code
// or name, in either option order.
func TestParseBallotTriage(t *testing.T) {
	for _, item := range []struct{ id, em string }{{"t-test-1", "C"}, {"t-test-2", "A"}} {
		it := kittest.TriageItem
		if item.id == kittest.TriageShuffled.ID {
			it = kittest.TriageShuffled
		}
		opts := kit.AnswerOptions(it)
		for _, d := range []string{item.em, "em", "Emergency care"} {
			b := ParseBallot(`{"ranking":["`+item.em+`"],"confidence":0.8,"risk":0.3,"decision":"`+d+`"}`, opts)
			if b.Decision != item.em || !b.Readable() {
				t.Fatalf("%s: decision %q read as %q (%q)", item.id, d, b.Decision, b.Notes)
			}
		}
	}
}

// TestCounted: how the rule counts a ballot by role — an unreadable ballot
// is the seed's parse-failure ballot, a VETO counts only from Safety.
func TestCounted(t *testing.T) {
	ok := ParseBallot(`{"ranking":["B"],"confidence":0.7,"risk":0.2,"decision":"B"}`, abcd)
	veto := ParseBallot(`{"ranking":["B"],"confidence":0.3,"risk":0.8,"decision":"VETO"}`, abcd)
	bad := ParseBallot(`I cannot say.`, abcd)
	for _, tc := range []struct {
		b        Ballot
		role     string
		want     aggregator.VetoBallot
		noteHint string
	}{
		{ok, RoleUtility, aggregator.VetoBallot{Choice: "B", Risk: 0.2, Confidence: 0.7}, ""},
		{veto, RoleSafety, aggregator.VetoBallot{Choice: aggregator.Refuse, Veto: true, Risk: 0.8, Confidence: 0.3}, ""},
		{veto, RoleUtility, aggregator.VetoBallot{Choice: aggregator.Refuse, Risk: 0.8, Confidence: 0.3}, "only the Safety agent"},
		{veto, RoleAccuracy, aggregator.VetoBallot{Choice: aggregator.Refuse, Risk: 0.8, Confidence: 0.3}, "only the Safety agent"},
		{bad, RoleSafety, aggregator.VetoBallot{Choice: aggregator.Refuse, Risk: 0.75, Confidence: 0.5}, "parse-failure ballot"},
	} {
		v, note := tc.b.Counted(tc.role)
		if v != tc.want || (tc.noteHint == "") != (note == "") || !strings.Contains(note, tc.noteHint) {
			t.Fatalf("%s %q: %+v %q; want %+v %q", tc.role, tc.b.Decision, v, note, tc.want, tc.noteHint)
		}
	}
}

// FuzzParseBallot: the ballot parser never panics; a decision is an option
// letter, REFUSE or VETO; a risk is in [0,1] or -1; a readable ballot has
// all three of decision, confidence and risk, an unreadable one says why.
func FuzzParseBallot(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x")
	}
	f.Add(`{"ranking":["B"],"risk":"1e309","decision":"veto","confidence":0.4}`, uint8(3), "Heparin")
	f.Add("RISK: 85%\nDECISION: REFUSE\nRANKING: A\nCONFIDENCE: 0.3", uint8(0), "yes")
	f.Add("DECISION: Heparin\nRISK: 0.2\nCONFIDENCE: 70%", uint8(4), "Heparin")
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string) {
		opts := answertest.FuzzOptions(n, optText)
		b := ParseBallot(text, opts)
		isOption := slices.ContainsFunc(opts, func(o answer.Option) bool { return o.Letter == b.Decision })
		if b.Decision != "" && b.Decision != aggregator.Refuse && b.Decision != aggregator.Veto && !isOption {
			t.Fatalf("decision %q", b.Decision)
		}
		if b.Risk != -1 && (b.Risk < 0 || b.Risk > 1) {
			t.Fatalf("risk %v", b.Risk)
		}
		if b.Readable() != (b.Decision != "" && b.Confidence >= 0 && b.Risk >= 0) || b.Readable() == (b.Why != "") {
			t.Fatalf("readable %v with decision %q confidence %v risk %v why %q", b.Readable(), b.Decision, b.Confidence, b.Risk, b.Why)
		}
	})
}

package medagents

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
)

func TestParseDomains(t *testing.T) {
	gm := FallbackDomain
	for _, tc := range []struct {
		name, text string
		n          int
		want       []string
		read       int
		method     answer.Method
		reason     string
		notes      int
	}{
		{"reference format", "Medical Field: Cardiology | Neurology | Endocrinology | Nephrology | Pharmacology", 5,
			[]string{"Cardiology", "Neurology", "Endocrinology", "Nephrology", "Pharmacology"}, 5, answer.MethodLabelled, "", 0},
		{"quoted and marked up", "**Medical Field:** '''Cardiology | Neurology'''", 2, []string{"Cardiology", "Neurology"}, 2, answer.MethodLabelled, "", 0},
		{"json", `{"fields": ["Cardiology", "Hematology"]}`, 2, []string{"Cardiology", "Hematology"}, 2, answer.MethodJSON, "", 0},
		{"json one string", `{"fields": "Cardiology | Hematology"}`, 2, []string{"Cardiology", "Hematology"}, 2, answer.MethodJSON, "", 0},
		{"fenced json", "Sure.\n```json\n{\"medical_fields\": [\"Cardiology\"]}\n```", 1, []string{"Cardiology"}, 1, answer.MethodJSONEmbedded, "", 0},
		{"numbered list under the label", "Medical Fields:\n1. Cardiology\n2. Neurology\n3. Nephrology", 3,
			[]string{"Cardiology", "Neurology", "Nephrology"}, 3, answer.MethodLabelled, "", 0},
		{"commas", "Medical Field: Cardiology, Neurology", 2, []string{"Cardiology", "Neurology"}, 2, answer.MethodLabelled, "", 0},
		{"bare pipe line", "Here they are:\nCardiology | Neurology", 2, []string{"Cardiology", "Neurology"}, 2, answer.MethodAnswerLine, "", 0},
		{"short: padded", "Medical Field: Cardiology | Neurology", 5, []string{"Cardiology", "Neurology", gm, gm, gm}, 2, answer.MethodLabelled, "", 1},
		{"long: cut", "Medical Field: A1 | B1 | C1", 2, []string{"A1", "B1"}, 3, answer.MethodLabelled, "", 1},
		{"placeholder echoed", "Medical Field: Field0 | Cardiology", 2, []string{"Cardiology", gm}, 1, answer.MethodLabelled, "", 2},
		{"prose item dropped", "Medical Field: " + strings.Repeat("very long words ", 6) + "| Cardiology", 1, []string{"Cardiology"}, 1, answer.MethodLabelled, "", 1},
		{"prose only", "I would rather not commit to anything here.", 2, []string{gm, gm}, 0, answer.MethodNone, answer.ReasonNoAnswer, 0},
		{"empty", "  ", 2, []string{gm, gm}, 0, answer.MethodNone, answer.ReasonEmpty, 0},
		{"empty label", "Medical Field: ", 1, []string{gm}, 0, answer.MethodNone, answer.ReasonNoAnswer, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := ParseDomains(tc.text, tc.n)
			if !slices.Equal(d.Names, tc.want) || d.Read != tc.read || d.Method != tc.method || d.Reason != tc.reason || len(d.Notes) != tc.notes {
				t.Fatalf("%q: %+v", tc.text, d)
			}
			if (d.Reason == "") == (d.Err != "") {
				t.Fatalf("reason %q with error %q", d.Reason, d.Err)
			}
		})
	}
}

func TestParseVote(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		reason     string
	}{
		{"YES", VoteYes, ""},
		{"NO", VoteNo, ""},
		{"[NO]", VoteNo, ""},
		{"**Yes.** The report matches my view.", VoteYes, ""},
		{"No, the report overlooks the renal findings.", VoteNo, ""},
		{`{"vote": "yes"}`, VoteYes, ""},
		{`{"vote": "NO"}`, VoteNo, ""},
		{`{"consistent": true}`, VoteYes, ""},
		{`{"vote": false}`, VoteNo, ""},
		{"Vote: no", VoteNo, ""},
		{"After reading it carefully.\nAnswer: Yes", VoteYes, ""},
		{"<think>maybe no</think>\nYES", VoteYes, ""},
		// Strict: neither a leading yes nor a leading no is unread — never a
		// guess (the reference reads "cannot" and "know" as no).
		{"I cannot agree with the report.", VoteUnread, answer.ReasonNoAnswer},
		{"Nobody knows.", VoteUnread, answer.ReasonNoAnswer},
		{"The report is consistent with my opinion: yes.", VoteUnread, answer.ReasonNoAnswer},
		{"YES or NO", VoteUnread, answer.ReasonAmbiguous},
		{`{"vote": "yes or no"}`, VoteUnread, answer.ReasonAmbiguous},
		{`{"vote": "maybe"}`, VoteUnread, answer.ReasonNoAnswer},
		{"", VoteUnread, answer.ReasonEmpty},
		{"...", VoteUnread, answer.ReasonNoAnswer},
	} {
		v := ParseVote(tc.text)
		if v.Value != tc.want || v.Reason != tc.reason || (v.Value == VoteUnread) != (v.Method == answer.MethodNone) {
			t.Errorf("%q: %+v, want %s (%s)", tc.text, v, tc.want, tc.reason)
		}
	}
}

func TestParseReport(t *testing.T) {
	for _, tc := range []struct {
		text, key, total string
		method           answer.Method
		notes            int
	}{
		{"Key Knowledge: Cortisol is high.\nTotal Analysis: Adrenal imaging is next.", "Cortisol is high.", "Adrenal imaging is next.", answer.MethodLabelled, 0},
		{"Key Knowledge: k\nspans lines\nTotal Analysis: t1\nt2", "k\nspans lines", "t1\nt2", answer.MethodLabelled, 0},
		{"Total Analysis: revised", "", "revised", answer.MethodLabelled, 0},
		{"**Total Analysis:** revised", "", "revised", answer.MethodLabelled, 0},
		{`{"key_knowledge": "k", "total_analysis": "t"}`, "k", "t", answer.MethodJSON, 0},
		{`{"totalAnalysis": "t"}`, "", "t", answer.MethodJSON, 0},
		{"The report favours B.", "", "The report favours B.", answer.MethodAnswerLine, 1},
		{"Key Knowledge: only knowledge", "", "Key Knowledge: only knowledge", answer.MethodAnswerLine, 1},
	} {
		r := ParseReport(tc.text)
		if r.KeyKnowledge != tc.key || r.TotalAnalysis != tc.total || r.Method != tc.method || len(r.Notes) != tc.notes || r.Reason != "" {
			t.Errorf("%q: %+v", tc.text, r)
		}
	}
	if r := ParseReport(" \n"); r.Reason != answer.ReasonEmpty || r.TotalAnalysis != "" {
		t.Errorf("empty: %+v", r)
	}
}

func TestParseText(t *testing.T) {
	keys := []string{"revisions"}
	for _, tc := range []struct {
		text, want string
		method     answer.Method
	}{
		{"Revisions: Favour C over B.", "Favour C over B.", answer.MethodLabelled},
		{`{"revisions": "Favour C."}`, "Favour C.", answer.MethodJSON},
		{"Favour C, the report misreads the potassium.", "Favour C, the report misreads the potassium.", answer.MethodAnswerLine},
		{`{"other": "x"}`, `{"other": "x"}`, answer.MethodAnswerLine},
		{"", "", answer.MethodNone},
	} {
		got := ParseText(tc.text, keys, "REVISIONS")
		if got.Text != tc.want || got.Method != tc.method || (got.Text == "") != (got.Reason == answer.ReasonEmpty) {
			t.Errorf("%q: %+v", tc.text, got)
		}
	}
}

func TestReadFinal(t *testing.T) {
	opts := []answer.Option{{Letter: "A", Text: "MRI of the adrenal glands"}, {Letter: "B", Text: "MRI of the chest"},
		{Letter: "C", Text: "Low dose dexamethasone suppression test"}, {Letter: "D", Text: "Inferior petrosal sinus sampling"}}
	for _, tc := range []struct {
		text, want, reason string
	}{
		{"Option: B", "B", ""},
		{"'''Option: D'''", "D", ""},
		{"Option: [C]", "C", ""},
		{`{"answer": "A"}`, "A", ""},
		{"Answer: MRI of the chest", "B", ""},
		{"Option: E", "", answer.ReasonNotAnOption},
		{"Option: A\nOption: C", "", answer.ReasonAmbiguous},
		{"I would rather not commit to anything here.", "", answer.ReasonNoAnswer},
		{"", "", answer.ReasonEmpty},
	} {
		p := ReadFinal(tc.text, opts)
		if p.Answer != tc.want || tc.reason != "" && p.Reason != tc.reason || p.Answer == "" && p.Reason == "" {
			t.Errorf("%q: %+v, want %q (%s)", tc.text, p, tc.want, tc.reason)
		}
	}
}

func FuzzParseDomains(f *testing.F) {
	for _, s := range []string{"Medical Field: A | B | C", `{"fields":["x","y"]}`, "Fields:\n- a\n- b", "|||", "Field1 | Field2", "", "{\"fields\": \"a|b\""} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, text string, n int) {
		n = 1 + abs(n)%10
		d := ParseDomains(text, n)
		if len(d.Names) != n || d.Read < 0 || (d.Read == 0) != (d.Reason != "") {
			t.Fatalf("%q n=%d: %+v", text, n, d)
		}
		for _, name := range d.Names {
			if name == "" || len(name) > maxDomain || strings.ContainsAny(name, "|\n") {
				t.Fatalf("%q: bad name %q", text, name)
			}
		}
	})
}

func FuzzParseVote(f *testing.F) {
	for _, s := range []string{"YES", "no", `{"vote":"yes"}`, "YES or NO", "Vote: maybe", "", "cannot", `{"vote":true}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v := ParseVote(text)
		switch v.Value {
		case VoteYes, VoteNo:
			if v.Reason != "" || v.Method == answer.MethodNone {
				t.Fatalf("%q: %+v", text, v)
			}
		case VoteUnread:
			if v.Reason == "" || v.Err == "" || v.Method != answer.MethodNone {
				t.Fatalf("%q: %+v", text, v)
			}
		default:
			t.Fatalf("%q: value %q", text, v.Value)
		}
	})
}

func FuzzParseReport(f *testing.F) {
	for _, s := range []string{"Key Knowledge: k\nTotal Analysis: t", `{"total_analysis":"t"}`, "plain", "", "Total Analysis:", `{"key_knowledge":"k"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r := ParseReport(text)
		if (r.Reason != "") != (strings.TrimSpace(r.TotalAnalysis) == "") && r.Method != answer.MethodAnswerLine {
			t.Fatalf("%q: %+v", text, r)
		}
		if r.Reason != "" && r.Method != answer.MethodNone {
			t.Fatalf("%q: %+v", text, r)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n { // math.MinInt
			return 0
		}
		return -n
	}
	return n
}

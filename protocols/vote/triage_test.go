package vote

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/qa"
)

// TestTriageUrgency: seed 000's confidence-weighted urgency on a triage
// item, by level rank — the same levels give the same prediction whatever
// the option order (TriageItem: A=sc B=ne C=em; TriageShuffled: A=em B=sc
// C=ne).
func TestTriageUrgency(t *testing.T) {
	type vote struct {
		level string // sc, ne, em, or "" for an unreadable answer
		conf  float64
	}
	for _, tc := range []struct {
		name  string
		spec  string
		votes []vote
		want  string // level code
		rule  string
	}{
		{"brief example: u=(2,2,1) c=(.9,.8,.3) → 1.85 → em", "vote", []vote{{"em", 0.9}, {"em", 0.8}, {"ne", 0.3}}, "em", aggregator.BranchWeightedUrgency},
		{"half goes up: u=(2,1,1,2) equal c → 1.5 → em", "vote:n=4", []vote{{"em", 0.6}, {"ne", 0.6}, {"ne", 0.6}, {"em", 0.6}}, "em", aggregator.BranchWeightedUrgency},
		{"confident minority wins: u=(0,2,2) c=(.9,.1,.1) → 0.36 → sc", "vote", []vote{{"sc", 0.9}, {"em", 0.1}, {"em", 0.1}}, "sc", aggregator.BranchWeightedUrgency},
		{"mean between: u=(0,2,1) c=(.8,.8,.8) → 1 → ne", "vote", []vote{{"sc", 0.8}, {"em", 0.8}, {"ne", 0.8}}, "ne", aggregator.BranchWeightedUrgency},
		{"low confidence does not fall back on triage", "vote", []vote{{"sc", 0.3}, {"sc", 0.3}, {"ne", 0.2}}, "sc", aggregator.BranchWeightedUrgency},
		{"weighted arm: the same rule", "vote:weighted", []vote{{"em", 0.9}, {"em", 0.8}, {"ne", 0.3}}, "em", aggregator.BranchWeightedUrgency},
		{"Σc = 0: the middle level", "vote", []vote{{"em", 0}, {"em", 0}, {"sc", 0}}, "ne", aggregator.BranchZeroConfidence},
		{"unreadable answers are left out", "vote", []vote{{"", 0.9}, {"sc", 0.8}, {"", 0.9}}, "sc", aggregator.BranchWeightedUrgency},
		{"nobody names a level: the most urgent", "vote", []vote{{"", 0.9}, {"", 0.8}, {"", 0.9}}, "em", aggregator.BranchNoVotes},
	} {
		for _, item := range []qa.Item{kittest.TriageItem, kittest.TriageShuffled} {
			s := &kittest.Script{Answers: map[string]string{}}
			for i, v := range tc.votes {
				text := "I cannot tell."
				if v.level != "" {
					text = kittest.TriageFirst(letterOf(item, v.level), v.conf, 0.1, false)
				}
				s.Answers[kittest.Key(kit.KindFirst, 0, i)] = text
			}
			out := kittest.RunOn(t, Protocol, tc.spec, kittest.Settings(3), s, item)
			if item.Code(out.Predicted) != tc.want || out.Decision.Rule != tc.rule || out.AbstainReason != "" {
				t.Fatalf("%s on %s: %q (%s) by %s, reason %q; want %s by %s", tc.name, item.ID, out.Predicted, item.Code(out.Predicted),
					out.Decision.Rule, out.AbstainReason, tc.want, tc.rule)
			}
			b, _ := json.Marshal(out.Details)
			var det Details
			if err := json.Unmarshal(b, &det); err != nil || det.Urgency == nil || det.Rule != tc.rule || det.Specialty != nil {
				t.Fatalf("%s: details %s (%v)", tc.name, b, err)
			}
			if tc.rule != aggregator.BranchNoVotes && (det.Urgency.Level != tc.want || det.Urgency.Rounding != "half_up") {
				t.Fatalf("%s: details %s", tc.name, b)
			}
		}
	}
}

// letterOf is the letter of level code on item.
func letterOf(item qa.Item, code string) string {
	for _, o := range item.Options {
		if item.Code(o.Letter) == code {
			return o.Letter
		}
	}
	return ""
}

// specialtyItem is a triage item with specialty labels (shuffled options).
func specialtyItem() qa.Item {
	item := kittest.TriageShuffled
	tr := *item.Triage
	tr.AskSpecialty, tr.Specialties = true, []string{"Cardiology", "Gastroenterology", "Pulmonology"}
	item.Triage = &tr
	return item
}

// TestTriageSpecialty: seed 000 step 3.1 over each agent's list of
// differential specialties — the specialty in the most lists, "General
// Practice" on a tie, when none is listed, or when the mean confidence is
// under 0.70 (which still leaves the urgency as computed). An agent that
// lists none but states a SPECIALTY counts that one.
func TestTriageSpecialty(t *testing.T) {
	item := specialtyItem()
	first := func(code string, conf float64, specialty string, list ...string) string {
		l := letterOf(item, code)
		sp := ""
		if specialty != "" {
			sp = `,"specialty":"` + specialty + `"`
		}
		ds := ""
		if list != nil {
			ds = `,"differential_specialties":["` + strings.Join(list, `","`) + `"]`
		}
		return `{"reasoning":"r","ranking":["` + l + `"],"confidence":` + fmt.Sprint(conf) + ds + sp + `}`
	}
	for _, tc := range []struct {
		name       string
		answers    []string
		specialty  string
		rule, code string
		votes      map[string]int
	}{
		{"the lists decide, not the first specialties (Cardiology 2 of 3 there)", []string{
			first("em", 0.9, "Cardiology", "Cardiology", "Pulmonology"), first("em", 0.8, "Cardiology", "Cardiology", "Pulmonology"),
			first("ne", 0.8, "Pulmonology", "Pulmonology", "Gastroenterology")},
			"Pulmonology", "plurality", "em", map[string]int{"Cardiology": 2, "Pulmonology": 3, "Gastroenterology": 1}},
		{"top two tied → General Practice", []string{
			first("em", 0.9, "", "Cardiology", "Pulmonology"), first("em", 0.8, "", "Pulmonology", "Cardiology"), first("ne", 0.8, "", "Gastroenterology")},
			"General Practice", "tie", "em", map[string]int{"Cardiology": 2, "Pulmonology": 2, "Gastroenterology": 1}},
		{"low confidence → General Practice, urgency kept", []string{
			first("em", 0.6, "", "Cardiology"), first("em", 0.6, "", "Cardiology"), first("sc", 0.6, "", "Pulmonology")},
			"General Practice", "low_confidence", "ne", map[string]int{"Cardiology": 2, "Pulmonology": 1}},
		{"none listed", []string{first("sc", 0.9, ""), first("sc", 0.9, ""), first("sc", 0.9, "")},
			"General Practice", "no_votes", "sc", map[string]int{}},
		{"a SPECIALTY line counts when no list is given", []string{
			first("sc", 0.9, "Gastroenterology"), first("sc", 0.9, "", "Gastroenterology", "Cardiology"), first("sc", 0.9, "", "Pulmonology")},
			"Gastroenterology", "plurality", "sc", map[string]int{"Gastroenterology": 2, "Cardiology": 1, "Pulmonology": 1}},
	} {
		s := &kittest.Script{Answers: map[string]string{}}
		for i, a := range tc.answers {
			s.Answers[kittest.Key(kit.KindFirst, 0, i)] = a
		}
		out := kittest.RunOn(t, Protocol, "vote", kittest.Settings(3), s, item)
		b, _ := json.Marshal(out.Details)
		var det Details
		if err := json.Unmarshal(b, &det); err != nil || det.Specialty == nil {
			t.Fatalf("%s: %s (%v)", tc.name, b, err)
		}
		if out.Specialty != tc.specialty || det.Specialty.Rule != tc.rule || item.Code(out.Predicted) != tc.code ||
			fmt.Sprint(det.Specialty.Votes) != fmt.Sprint(tc.votes) || len(det.Specialty.Lists) != 3 {
			t.Fatalf("%s: specialty %q, urgency %s, details %s", tc.name, out.Specialty, item.Code(out.Predicted), b)
		}
	}
}

// TestSpecialtyRequest: where the item has specialty labels, each agent's
// request is the shared first answer with the differential specialties
// appended (the labels listed; in the schema after confidence); elsewhere
// it is the shared first answer unchanged.
func TestSpecialtyRequest(t *testing.T) {
	for _, structured := range []bool{true, false} {
		set := kittest.Settings(3)
		set.Structured = structured
		for _, item := range []qa.Item{specialtyItem(), kittest.TriageItem} {
			s := &kittest.Script{Default: func(llm.Request) string { return "?" }}
			kittest.RunOn(t, Protocol, "vote", set, s, item)
			for i := range 3 {
				req := s.Reqs[kittest.Key(kit.KindFirst, 0, i)]
				shared, err := firstanswer.Call(kit.NewSession(nil, item, kittest.Unit("vote"), structured, 0), i, 0.7)
				if err != nil {
					t.Fatal(err)
				}
				user := req.Messages[1].Content
				if !askSpecialties(item) {
					if user != shared.User || req.Messages[0].Content != shared.System || structured && string(req.Schema.Schema) != string(shared.Schema.Schema) {
						t.Fatalf("%s: the first answer differs from the shared one:\n%s", item.ID, user)
					}
					continue
				}
				extra, ok := strings.CutPrefix(user, shared.User+"\n")
				if !ok || !strings.Contains(extra, "each one of: Cardiology, Gastroenterology, Pulmonology.") ||
					strings.Contains(extra, "DIFFERENTIAL SPECIALTIES:") == structured {
					t.Fatalf("%s (structured %v): %q", item.ID, structured, user)
				}
				if structured {
					if order, _ := kit.PropertyOrder(req.Schema.Schema); !slices.Equal(order, []string{"reasoning", "ranking", "confidence", "differential_specialties"}) {
						t.Fatalf("schema order %v", order)
					}
				}
			}
		}
	}
}

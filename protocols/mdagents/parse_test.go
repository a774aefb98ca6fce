package mdagents

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRoute(t *testing.T) {
	for _, tc := range []struct{ in, route, method string }{
		{`{"reasoning":"Several specialties.","complexity":"intermediate"}`, RouteIntermediate, ReadStrict},
		{`{"reasoning":"x","complexity":"Advanced"}`, RouteAdvanced, ReadStrict},
		{`{"reasoning":"x","complexity":"3) advanced"}`, RouteAdvanced, ReadStrict},
		{`{"reasoning":"x","difficulty":"1"}`, RouteBasic, ReadStrict},
		{"REASONING: one agent suffices, not intermediate.\nCOMPLEXITY: basic", RouteBasic, ReadStrict},
		{"REASONING: teams are needed.\nCOMPLEXITY: **advanced**", RouteAdvanced, ReadStrict},
		{"COMPLEXITY: 2) intermediate: experts discuss", RouteIntermediate, ReadStrict},
		{"```json\n{\"reasoning\": \"r\", \"complexity\": \"intermediate\"}\n```", RouteIntermediate, ReadStrict},
		// Not strict: the code's rule, basic first.
		{"COMPLEXITY: 2) advanced", RouteIntermediate, ReadCodeRule},                                       // number and word disagree: not strict; "2)" in the reply
		{"This needs teams, it is not a basic question: advanced.", RouteBasic, ReadCodeRule},              // "basic" wins, as in the code
		{"I would say intermediate.", RouteIntermediate, ReadCodeRule},                                     // no COMPLEXITY line
		{`{"reasoning":"x","complexity":"moderate"}` + " 3) advanced", RouteAdvanced, ReadCodeRule},        // not a level strictly; the code's rule
		{"COMPLEXITY: 12", RouteBasic, ReadDefault},                                                        // not a level; no word, no "1)"
		{"", RouteBasic, ReadDefault},                                                                      // nothing: basic by default
		{"The findings are not specific enough to decide.", RouteBasic, ReadDefault},                       // nothing
		{"COMPLEXITY: high", RouteBasic, ReadDefault},                                                      // not one of the levels
		{"REASONING: level 3) fits.\nCOMPLEXITY: unclear", RouteAdvanced, ReadCodeRule},                    // "3)" in the reply
		{`{"complexity": "intermediate", "reasoning": "basic facts only"}`, RouteIntermediate, ReadStrict}, // the field decides, not the text
	} {
		got := ParseRoute(tc.in)
		if got.Route != tc.route || got.Method != tc.method {
			t.Errorf("ParseRoute(%q) = %+v, want %s by %s", tc.in, got, tc.route, tc.method)
		}
		if got.Method != ReadStrict && got.Err == "" {
			t.Errorf("ParseRoute(%q): no reason for the non-strict reading", tc.in)
		}
	}
}

func TestParseTalk(t *testing.T) {
	for _, tc := range []struct {
		in     string
		talk   bool
		method string
	}{
		{`{"reasoning":"They disagree.","talk":true}`, true, ReadStrict},
		{`{"reasoning":"yes, we agree","talk":false}`, false, ReadStrict},
		{`{"reasoning":"x","talk":"yes"}`, true, ReadStrict},
		{"REASONING: we agree.\nTALK: no", false, ReadStrict},
		{"REASONING: we differ.\nTALK: Yes.", true, ReadStrict},
		{"Yes, I want to talk to the cardiologist.", true, ReadCodeRule},
		{"REASONING: x\nTALK: perhaps yes", true, ReadCodeRule}, // not a yes or no strictly; "yes" in it
		{"No.", false, ReadDefault},
		{"", false, ReadDefault},
	} {
		got := ParseTalk(tc.in)
		if got.Talk != tc.talk || got.Method != tc.method {
			t.Errorf("ParseTalk(%q) = %+v, want %v by %s", tc.in, got, tc.talk, tc.method)
		}
	}
}

func TestParseChosen(t *testing.T) {
	for _, tc := range []struct {
		in      string
		n, self int
		want    []int
		method  string
		notes   int
	}{
		{`{"reasoning":"x","experts":[2,4]}`, 5, 1, []int{2, 4}, ReadStrict, 0},
		{`{"reasoning":"x","experts":["Agent 3"]}`, 5, 1, []int{3}, ReadStrict, 0},
		{`{"reasoning":"x","experts":[1,2,2,9]}`, 5, 1, []int{2}, ReadStrict, 3}, // self, repeat, out of range
		{"REASONING: the cardiologist differs.\nEXPERTS: 2, 5", 5, 3, []int{2, 5}, ReadStrict, 0},
		{"REASONING: x\nEXPERTS: none", 5, 3, nil, ReadStrict, 0},
		{"1,2", 5, 3, []int{1, 2}, ReadCodeRule, 0},
		{"3. 4", 5, 1, []int{3, 4}, ReadCodeRule, 0},
		{"Agent 2 please", 5, 1, nil, ReadDefault, 0}, // the code's rule needs bare numbers
		{"", 5, 1, nil, ReadDefault, 0},
	} {
		got := ParseChosen(tc.in, tc.n, tc.self)
		if !slices.Equal(got.Experts, tc.want) || got.Method != tc.method || len(got.Notes) != tc.notes {
			t.Errorf("ParseChosen(%q, %d, %d) = %+v, want %v by %s with %d notes", tc.in, tc.n, tc.self, got, tc.want, tc.method, tc.notes)
		}
	}
}

func TestParseExperts(t *testing.T) {
	text := "REASONING: the case spans two systems.\n1. 1 of the list\nEXPERTS:\n" +
		"1. Pediatrician - Specializes in the care of children. - Hierarchy: Independent\n" +
		"2. **Cardiologist** - Focuses on the heart. - Hierarchy: Pediatrician > Cardiologist\n" +
		"3) Pulmonologist - Lungs\n" +
		"4. Neonatologist - Newborns. - Hierarchy: Independent\n" +
		"5. Medical Geneticist - Genes - and heredity. - Hierarchy: Independent\n" +
		"6. Radiologist - Imaging. - Hierarchy: Independent\n"
	l := ParseExperts(text)
	want := []Expert{
		{"Pediatrician", "Specializes in the care of children.", "Independent"},
		{"Cardiologist", "Focuses on the heart.", "Pediatrician > Cardiologist"},
		{"Pulmonologist", "Lungs", ""},
		{"Neonatologist", "Newborns.", "Independent"},
		{"Medical Geneticist", "Genes - and heredity.", "Independent"},
	}
	if !slices.Equal(l.Experts, want) || len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "6 experts named") {
		t.Fatalf("text: %+v", l)
	}
	js := `{"reasoning":"r","experts":[{"role":"Nephrologist","description":"Kidneys.","hierarchy":"Independent"},` +
		`{"name":"Urologist","expertise":"Urinary tract.","hierarchy":"Nephrologist > Urologist"},{"description":"no role"}]}`
	l = ParseExperts(js)
	if len(l.Experts) != 2 || l.Experts[1] != (Expert{"Urologist", "Urinary tract.", "Nephrologist > Urologist"}) || len(l.Notes) != 1 || l.Method != "json" {
		t.Fatalf("json: %+v", l)
	}
	if l := ParseExperts("I cannot recruit anyone."); len(l.Experts) != 0 || l.Method != "none" {
		t.Fatalf("prose: %+v", l)
	}
}

func TestParseTeams(t *testing.T) {
	text := "REASONING: three teams.\n\nGroup 1 - Initial Assessment Team (IAT)\n" +
		"Member 1: Emergency Physician (Lead) - Assesses first.\nMember 2: Internist - History.\n" +
		"Group 2 - Diagnostic Evidence Team (DET)\nMember 1: Pathologist - Laboratory.\nMember 2: Radiologist (Lead) - Imaging.\n" +
		"Group 3 - Empty Team\n" +
		"**Group 4 - Final Review and Decision Team (FRDT)**\nMember 1: Senior Consultant (Lead) - Decides.\n"
	l := ParseTeams(text)
	if len(l.Teams) != 3 || l.Teams[0].Name != "Initial Assessment Team (IAT)" || !l.Teams[0].Members[0].Lead ||
		l.Teams[0].Members[0].Role != "Emergency Physician" || l.Teams[1].Members[1] != (Member{"Radiologist", "Imaging.", true}) ||
		l.Teams[2].Name != "Final Review and Decision Team (FRDT)" || len(l.Notes) != 1 {
		t.Fatalf("text: %+v", l)
	}
	js := `{"reasoning":"r","teams":[{"name":"FRDT","members":[{"role":"Consultant","lead":true,"expertise":"Decides."}]},` +
		`{"name":"Initial Assessment Team","members":[{"role":"Internist","lead":false,"expertise":"x"},{"role":"Surgeon","lead":true,"expertise":"y"}]}]}`
	l = ParseTeams(js)
	if len(l.Teams) != 2 || l.Method != "json" || !l.Teams[1].Members[1].Lead || l.Teams[1].Members[0].Lead {
		t.Fatalf("json: %+v", l)
	}
}

// TestSelect: the initial teams first and the final ones last, each once;
// with more than 3 teams the first initial and final teams are kept and the
// others fill in the order named; the lead goes first; at most 3 members.
func TestSelect(t *testing.T) {
	m := func(roles ...string) []Member {
		var out []Member
		for _, r := range roles {
			out = append(out, Member{Role: strings.TrimSuffix(r, "*"), Lead: strings.HasSuffix(r, "*")})
		}
		return out
	}
	ts := []Team{
		{"Diagnostic Evidence Team", m("a", "b*", "c", "d")},
		{"Final Review and Decision Team (FRDT)", m("e", "f")},
		{"Patient History Team", m("g")},
		{"Initial Assessment Team (IAT)", m("h", "i", "j")},
	}
	got, notes := Select(ts)
	var names []string
	for _, t := range got {
		names = append(names, t.Name)
	}
	if want := []string{"Initial Assessment Team (IAT)", "Diagnostic Evidence Team", "Final Review and Decision Team (FRDT)"}; !slices.Equal(names, want) {
		t.Fatalf("teams %v, want %v", names, want)
	}
	if d := got[1].Members; len(d) != 3 || d[0].Role != "b" || !d[0].Lead || d[1].Role != "a" || d[1].Lead || d[2].Role != "c" {
		t.Fatalf("DET members %+v", d)
	}
	if f := got[2].Members; f[0].Role != "e" || !f[0].Lead { // no lead named: the first
		t.Fatalf("FRDT members %+v", f)
	}
	if len(notes) != 2 {
		t.Fatalf("notes %v", notes)
	}
	got, notes = Select(ts[1:3])
	if len(got) != 2 || got[0].Name != "Patient History Team" || got[1].Name != "Final Review and Decision Team (FRDT)" || len(notes) != 0 {
		t.Fatalf("two teams: %+v %v", got, notes)
	}
}

func TestParseTexts(t *testing.T) {
	if r, m := ParseReason(`{"reasoning":"Aspirin inhibits platelets."}`); r != "Aspirin inhibits platelets." || m != "json" {
		t.Errorf("reason json: %q %s", r, m)
	}
	if r, _ := ParseReason("REASONING: It fits."); r != "It fits." {
		t.Errorf("reason line: %q", r)
	}
	if r, _ := ParseReason("It fits the findings."); r != "It fits the findings." {
		t.Errorf("reason prose: %q", r)
	}
	if r, m := ParseReason("   "); r != "" || m != "none" {
		t.Errorf("empty reason: %q %s", r, m)
	}
	if d, _ := ParseDelivery("REASONING: r\nINVESTIGATIONS: Radiologist: read the film."); d != "Radiologist: read the film." {
		t.Errorf("delivery: %q", d)
	}
	if d, _ := ParseInvestigation(`{"reasoning":"r","investigation":"The film shows a mass."}`); d != "The film shows a mass." {
		t.Errorf("investigation: %q", d)
	}
}

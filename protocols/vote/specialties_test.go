package vote

import (
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer/answertest"
)

func TestParseSpecialties(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"json array", `{"reasoning":"r","ranking":["B"],"confidence":0.8,"differential_specialties":["Cardiology","Pulmonology"]}`, []string{"Cardiology", "Pulmonology"}},
		{"json string with semicolons", `{"differentialSpecialties":"Cardiology; Ear, nose and throat"}`, []string{"Cardiology", "Ear, nose and throat"}},
		{"json string with commas", `{"differential_specialties":"Cardiology, Pulmonology."}`, []string{"Cardiology", "Pulmonology"}},
		{"fenced json, repeats and placeholders dropped", "```json\n{\"differential_specialties\":[\"Cardiology\",\"cardiology \",\"<specialty>\",\"\",\"None\"]}\n```", []string{"Cardiology"}},
		{"labelled line", "REASONING: r\nRANKING: B, A\nCONFIDENCE: 0.7\nDIFFERENTIAL SPECIALTIES: Cardiology; **Pulmonology**; General Practice\nDIAGNOSIS: Asthma", []string{"Cardiology", "Pulmonology", "General Practice"}},
		{"labelled line with commas, British spelling", "Differential specialities: Neurology, Ophthalmology", []string{"Neurology", "Ophthalmology"}},
		{"a SPECIALTY line is not a list", "RANKING: B\nSPECIALTY: Cardiology", nil},
		{"nothing", "I cannot say.", nil},
	} {
		if got := ParseSpecialties(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
	long := `{"differential_specialties":["` + strings.Repeat("x", 300) + `"` + strings.Repeat(`,"a"`, 40) + `]}`
	if got := ParseSpecialties(long); len(got) != 2 || len(got[0]) > maxSpecialtyText+len("…") {
		t.Errorf("bounds: %d items, first %d bytes", len(got), len(got[0]))
	}
}

// FuzzParseSpecialties: never panics; at most maxSpecialties items, none
// empty, none repeated (case ignored), each bounded.
func FuzzParseSpecialties(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s)
	}
	f.Add(`{"differential_specialties":["Cardiology","cardiology",""]}`)
	f.Add("DIFFERENTIAL SPECIALTIES: a; b, c\n- d")
	f.Fuzz(func(t *testing.T, text string) {
		got := ParseSpecialties(text)
		if len(got) > maxSpecialties {
			t.Fatalf("%d items", len(got))
		}
		seen := map[string]bool{}
		for _, s := range got {
			k := strings.ToLower(s)
			if s == "" || seen[k] || len(s) > maxSpecialtyText+len("…") {
				t.Fatalf("item %q in %q", s, got)
			}
			seen[k] = true
		}
	})
}

package vote

import (
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Bounds on a differential list as read: how many specialties, and how long
// each may be (bytes).
const (
	maxSpecialties   = 16
	maxSpecialtyText = 100
)

var specialtyLabels = map[string]string{
	"DIFFERENTIAL SPECIALTIES": "specialties", "DIFFERENTIAL SPECIALITIES": "specialties", "DIFFERENTIAL SPECIALTY": "specialties",
	"REASONING": "reasoning", "RANKING": "ranking", "CONFIDENCE": "confidence", "DIAGNOSIS": "diagnosis",
	"SPECIALTY": "specialty", "SPECIALITY": "specialty", "RISK": "risk", "VETO": "veto",
}

// ParseSpecialties reads an agent's differential specialties (seed 000's
// differential_specialties): the JSON object's "differential_specialties"
// (an array of strings, or one string), else a DIFFERENTIAL SPECIALTIES:
// line. A string is split at ';' and new lines, or at ',' when it has no
// ';'. Each item is cleaned (list bullets, markup, quotes, a final full
// stop), placeholders ("<specialty>", "none", "n/a") dropped, a repeat (case
// and white space ignored) kept once; at most maxSpecialties items, each cut
// at maxSpecialtyText bytes (marked "…"). nil when the reply lists none.
func ParseSpecialties(text string) []string {
	_, body := answer.Prepare(text)
	var items []string
	if o, _, ok := answer.DecodeObject(body, false); ok {
		if raw, ok := o.Get("differentialspecialties", "differentialspecialities", "specialties"); ok {
			if raw[0] == '"' {
				s, _ := answer.RawString(raw)
				items = split(s)
			} else {
				items = answer.RawStrings(raw)
			}
		}
	}
	if items == nil {
		if v, ok := answer.Sections(body, specialtyLabels)["specialties"]; ok {
			items = split(answer.FirstLine(v))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = clean(it)
		k := strings.ToLower(it)
		if it == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, it)
		if len(out) == maxSpecialties {
			break
		}
	}
	return out
}

// split splits a list written as one string.
func split(s string) []string {
	if !strings.ContainsAny(s, ";\n") {
		return strings.Split(s, ",")
	}
	return answer.SplitItems(s)
}

// clean trims one item; "" for a placeholder.
func clean(s string) string {
	s = strings.Join(strings.Fields(answer.TrimBullet(s)), " ")
	for prev := ""; s != prev; {
		prev = s
		s = strings.TrimSpace(strings.TrimSuffix(strings.Trim(s, "*_`\"'“”‘’[] "), "."))
	}
	switch strings.ToLower(s) {
	case "", "<specialty>", "specialty", "none", "n/a", "na", "unknown", "-", "…", "...":
		return ""
	}
	if len(s) > maxSpecialtyText {
		s = kit.Truncate(s, maxSpecialtyText)
	}
	return s
}

package answer

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, text, want string
		embedded, ok     bool
	}{
		{"whole", ` {"a": 1} `, `{"a": 1}`, false, true},
		{"fenced", "x\n```json\n{\"a\": [1, 2]}\n```\ny", `{"a": [1, 2]}`, true, true},
		{"plain fence", "```\n{\"a\": 1}\n```", `{"a": 1}`, true, true},
		{"prose", `Sure: {"a": "}{"} done`, `{"a": "}{"}`, true, true},
		{"braces in strings", `{"a": "x } y { z", "b": {"c": "\"}"}}`, `{"a": "x } y { z", "b": {"c": "\"}"}}`, false, true},
		{"latex first", `\boxed{B} then {"a": 2}`, `{"a": 2}`, true, true},
		{"nested second", `{bad} {"a": {"b": 1}}`, `{"a": {"b": 1}}`, true, true},
		{"truncated", `{"a": [1, 2`, "", false, false},
		{"array only", `["B", "A"]`, "", false, false},
		{"none", "no json here", "", false, false},
		{"empty", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, emb, ok := ExtractJSON(tt.text)
			if string(b) != tt.want || emb != tt.embedded || ok != tt.ok {
				t.Fatalf("got %q %v %v, want %q %v %v", b, emb, ok, tt.want, tt.embedded, tt.ok)
			}
		})
	}
}

func TestRepairJSON(t *testing.T) {
	tests := []struct {
		in       string
		keepOpen bool
		want     string
	}{
		{`{"ranking": ["B", "A"`, false, `{"ranking": ["B", "A"]}`},
		{`{"ranking": ["B", "A",`, false, `{"ranking": ["B", "A"]}`},
		{`{"ranking": ["B", "A`, true, `{"ranking": ["B", "A"]}`},
		{`{"ranking": ["B", "A`, false, `{"ranking": ["B"]}`},
		{`{"reasoning": "cut here`, true, `{"reasoning": "cut here"}`},
		{`{"reasoning": "cut here`, false, `{}`},
		{`{"reasoning": "escape \`, true, `{"reasoning": "escape "}`},
		{`{"reasoning": "x", "rank`, true, `{"reasoning": "x"}`},
		{`{"reasoning": "x", "ranking":`, true, `{"reasoning": "x"}`},
		{`{"confidence": 0.7`, false, `{"confidence": 0.7}`},
		{`{"a": {"b": [1, {"c": tr`, false, `{"a": {"b": [1, {}]}}`},
		{"```json\n{\"a\": \"b\"\n```", false, `{"a": "b"}`},
	}
	for _, tt := range tests {
		got, ok := repairJSON(tt.in, tt.keepOpen)
		if !ok || string(got) != tt.want {
			t.Errorf("repairJSON(%q, %v) = %q %v, want %q", tt.in, tt.keepOpen, got, ok, tt.want)
		}
	}
	for _, in := range []string{`{"a": 1}`, `{"a": 1 "b": 2}`, "no object", `{"a": ]`} {
		if got, ok := repairJSON(in, true); ok {
			t.Errorf("repairJSON(%q) = %q, want failure", in, got)
		}
	}
}

func TestExtractJSONTruncatedOuter(t *testing.T) {
	// The complete inner object is not the answer: the outer one was cut.
	if b, _, ok := ExtractJSON(`{"roles": [{"name": "Cardiologist", "focus": "x"}, {"name": "Ne`); ok {
		t.Fatalf("got %q", b)
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "x ```json\n{\"a\": [1]}\n``` y", `pre {"a": "}"} post`, `\boxed{B} {"a": 2}`,
		`{"a": [1, 2`, `{"a": "b\`, `{"a": {"b": [1, {"c": tr`, `{"a" 1}`, "", "{", `{"`, `{"a":"\u12`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		obj, embedded, ok := ExtractJSON(text)
		if ok {
			if !json.Valid(obj) || obj[0] != '{' || !strings.Contains(text, string(obj)) {
				t.Fatalf("obj %q from %q", obj, text)
			}
			if !embedded && string(obj) != strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "\ufeff")) {
				t.Fatalf("not embedded but %q != %q", obj, text)
			}
		} else if obj != nil || embedded {
			t.Fatalf("failure with %q %v", obj, embedded)
		}
		for _, keep := range []bool{false, true} {
			if b, ok := repairJSON(text, keep); ok && (!json.Valid(b) || b[0] != '{') {
				t.Fatalf("repair %q of %q", b, text)
			}
		}
	})
}

package redflag

import (
	"strings"
	"testing"
)

const good = `version: 1
rules:
  - name: stiff
    description: d
    patterns: ['stiff neck']
    positive: ['a stiff neck']
    negative: ['a sore neck']
`

// TestParseErrors: every problem is reported with the file and line.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "f.yaml: empty red-flag file"},
		{"not a mapping", "- 1\n", "f.yaml:1: a red-flag file is a mapping"},
		{"bad version", "version: 2\nrules: []\n", "f.yaml:1: version \"2\""},
		{"unknown key", "version: 1\nrule: []\n", "f.yaml:2: unknown key \"rule\""},
		{"no rules", "version: 1\nrules: []\n", "f.yaml:1: no rules"},
		{"unknown rule key", strings.Replace(good, "    description: d\n", "    descr: d\n", 1), "f.yaml:4: unknown rule key \"descr\""},
		{"bad name", strings.Replace(good, "name: stiff", "name: Stiff Neck", 1), "f.yaml:3: rule name \"Stiff Neck\""},
		{"no patterns", strings.Replace(good, "    patterns: ['stiff neck']\n", "", 1), "f.yaml:3: rule stiff has no patterns"},
		{"no negative", strings.Replace(good, "    negative: ['a sore neck']\n", "", 1), "f.yaml:3: rule stiff needs at least one positive and one negative"},
		{"bad regexp", strings.Replace(good, "'stiff neck'", "'stiff (neck'", 1), "f.yaml:3: rule stiff, pattern 1 \"stiff (neck\": error parsing regexp"},
		{"empty match", strings.Replace(good, "'stiff neck'", "'x*'", 1), "matches empty text"},
		{"positive does not fire", strings.Replace(good, "'a stiff neck'", "'a stiff back'", 1), "f.yaml:3: rule stiff: positive example \"a stiff back\" does not fire it"},
		{"negative fires", strings.Replace(good, "'a sore neck'", "'fever and a stiff neck'", 1), "f.yaml:3: rule stiff: negative example \"fever and a stiff neck\" fires rule stiff"},
		{"duplicate", good + strings.TrimPrefix(good, "version: 1\nrules:\n"), "f.yaml:8: rule stiff is defined twice (first at line 3)"},
		{"bad yaml", "version: 1\nrules: [\n", "f.yaml: yaml:"},
		{"wrong type", strings.Replace(good, "patterns: ['stiff neck']", "patterns: {a: b}", 1), "f.yaml: yaml: unmarshal errors"},
		{"bad set name", strings.Replace(good, "version: 1\n", "version: 1\nname: my set\n", 1), "f.yaml:2: name \"my set\""},
		{"empty developed_on", strings.Replace(good, "version: 1\n", "version: 1\ndeveloped_on: ''\n", 1), "f.yaml:2: developed_on: say in words"},
	} {
		_, err := Parse("f.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
	rs, err := Parse("f.yaml", []byte(good))
	if err != nil || len(rs.Rules) != 1 || rs.Rules[0].Line != 3 || !rs.Rules[0].Negation || rs.Rules[0].Level != "" || len(rs.SHA256) != 64 {
		t.Fatalf("%+v %v", rs, err)
	}
	if rs.Name != "f.yaml" || rs.DevelopedOn != "" {
		t.Fatalf("name %q developed on %q; want the file name and nothing", rs.Name, rs.DevelopedOn)
	}
	rs, err = Parse("f.yaml", []byte(strings.Replace(good, "version: 1\n", "version: 1\nname: mine-2.0\ndeveloped_on: |\n  the   dev\n  split\n", 1)))
	if err != nil || rs.Name != "mine-2.0" || rs.DevelopedOn != "the dev split" {
		t.Fatalf("name %q developed on %q: %v", rs.Name, rs.DevelopedOn, err)
	}
}

// FuzzParse: Parse never panics, and a file it accepts behaves as its
// examples say.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("version: 1\nrules:\n  - name: a\n    negation: false\n    patterns: ['(?:x|y)+z']\n    positive: [xz]\n    negative: [z]\n"))
	f.Add([]byte("version: 1\nrules: [{name: a, patterns: ['a'], positive: [a], negative: [b]}, 3]\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := Parse("fuzz.yaml", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for i := range rs.Rules {
			r := &rs.Rules[i]
			for _, p := range r.Positive {
				if _, ok := rs.Match(p); !ok {
					t.Fatalf("accepted rule %s whose positive %q fires nothing", r.Name, p)
				}
			}
		}
	})
}

package redflag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Parse reads a red-flag file (see configs/redflags.yaml for the format):
//
//	version: 1
//	name: seed003-keywords         # optional: the set's name in rows and the manifest (default: the file name)
//	developed_on: ...              # optional: the data the rules were written while looking at
//	rules:
//	  - name: meningism            # [a-z0-9_]+, unique
//	    description: ...
//	    level: em                  # optional: the level code; default the most urgent
//	    negation: true             # optional, default true
//	    patterns: ['neck stiffness|stiff neck', 'fever|headache']  # all must match
//	    positive: ['fever, headache and a stiff neck']              # must fire this rule
//	    negative: ['headache, no neck stiffness']                   # must fire no rule
//
// Errors name the file and line ("redflags.yaml:12: rule meningism: …"): an
// unknown key, a missing name, pattern or example, a pattern that does not
// compile, a duplicate name, and an example that does not do what it says.
func Parse(source string, data []byte) (*Rules, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty red-flag file; it needs version: 1 and a list of rules", source)
		}
		return nil, fmt.Errorf("%s: %v", source, err)
	}
	rs := &Rules{Source: source, Name: source, SHA256: hashOf(data)}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, errAt(source, root.Line, "a red-flag file is a mapping with version: 1 and rules: [...]")
	}
	rules, err := rs.parseHeader(root)
	if err != nil {
		return nil, err
	}
	if rules == nil || rules.Kind != yaml.SequenceNode || len(rules.Content) == 0 {
		return nil, errAt(source, root.Line, "no rules: give rules: as a list of at least one rule")
	}
	seen := map[string]int{}
	for _, n := range rules.Content {
		r, err := parseRule(source, n)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[r.Name]; dup {
			return nil, errAt(source, n.Line, "rule %s is defined twice (first at line %d)", r.Name, prev)
		}
		seen[r.Name] = r.Line
		rs.Rules = append(rs.Rules, r)
	}
	return rs, rs.checkExamples()
}

// parseHeader reads the top-level keys of a red-flag file (root, a
// mapping) into rs (Name, DevelopedOn) and returns its rules node (nil
// when absent).
func (rs *Rules) parseHeader(root *yaml.Node) (*yaml.Node, error) {
	source := rs.Source
	var rules *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "version":
			if v.Value != "1" {
				return nil, errAt(source, v.Line, "version %q: this medteam reads version 1", v.Value)
			}
		case "rules":
			rules = v
		case "name":
			if v.Kind != yaml.ScalarNode || !setName.MatchString(v.Value) {
				return nil, errAt(source, v.Line, "name %q: use letters, digits, '.', '_' and '-'", v.Value)
			}
			rs.Name = v.Value
		case "developed_on":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return nil, errAt(source, v.Line, "developed_on: say in words what data the rules were developed on")
			}
			rs.DevelopedOn = strings.Join(strings.Fields(v.Value), " ")
		default:
			return nil, errAt(source, k.Line, "unknown key %q (keys: version, name, developed_on, rules)", k.Value)
		}
	}
	return rules, nil
}

var (
	ruleName = regexp.MustCompile(`^[a-z0-9_]+$`)
	setName  = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
)

// ruleYAML is a rule as written.
type ruleYAML struct {
	Name, Description, Level string
	Negation                 *bool
	Patterns                 []string
	Positive, Negative       []string
}

var ruleKeys = map[string]bool{"name": true, "description": true, "level": true, "negation": true, "patterns": true, "positive": true, "negative": true}

func parseRule(source string, n *yaml.Node) (Rule, error) {
	if n.Kind != yaml.MappingNode {
		return Rule{}, errAt(source, n.Line, "a rule is a mapping (name, description, patterns, positive, negative)")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !ruleKeys[k.Value] {
			return Rule{}, errAt(source, k.Line, "unknown rule key %q (keys: name, description, level, negation, patterns, positive, negative)", k.Value)
		}
	}
	var y ruleYAML
	if err := n.Decode(&y); err != nil {
		return Rule{}, fmt.Errorf("%s: %v", source, err)
	}
	r := Rule{Name: y.Name, Description: y.Description, Level: y.Level, Negation: y.Negation == nil || *y.Negation,
		Patterns: y.Patterns, Positive: y.Positive, Negative: y.Negative, Line: n.Line}
	switch {
	case !ruleName.MatchString(r.Name):
		return r, errAt(source, n.Line, "rule name %q: use lower-case letters, digits and _", r.Name)
	case len(r.Patterns) == 0:
		return r, errAt(source, n.Line, "rule %s has no patterns", r.Name)
	case len(r.Positive) == 0 || len(r.Negative) == 0:
		return r, errAt(source, n.Line, "rule %s needs at least one positive and one negative example", r.Name)
	}
	for i, p := range r.Patterns {
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			return r, errAt(source, n.Line, "rule %s, pattern %d %q: %v", r.Name, i+1, p, err)
		}
		if re.MatchString("") {
			return r, errAt(source, n.Line, "rule %s, pattern %d %q matches empty text", r.Name, i+1, p)
		}
		r.res = append(r.res, re)
	}
	return r, nil
}

// checkExamples checks that every positive example fires its own rule and
// every negative example fires no rule.
func (rs *Rules) checkExamples() error {
	for i := range rs.Rules {
		r := &rs.Rules[i]
		for _, p := range r.Positive {
			if !r.Fires(normalize(p)) {
				return errAt(rs.Source, r.Line, "rule %s: positive example %q does not fire it", r.Name, p)
			}
		}
		for _, p := range r.Negative {
			if other, ok := rs.Match(p); ok {
				return errAt(rs.Source, r.Line, "rule %s: negative example %q fires rule %s", r.Name, p, other.Name)
			}
		}
	}
	return nil
}

func errAt(source string, line int, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", source, line, fmt.Sprintf(format, a...))
}

package kit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/protocol"
)

// DefaultAgents is the team size of every protocol here when --agents is 0:
// seeds 000 and 004 decide with three agents, as does Du et al.'s debate.
const DefaultAgents = 3

// MaxAgents bounds a team (and the samples of sc): prompts list every
// member, and the simulator reads at most 16 of them.
const MaxAgents = 16

// Spec is an arm spec: "name", or "name:" followed by comma-separated
// options, each a bare value ("weighted", "5") or key=value ("n=5").
type Spec struct {
	Name  string
	Bare  []string          // bare values, in order
	Keyed map[string]string // key=value options
}

// ParseSpec reads spec when it names the protocol name (case and
// surrounding white space ignored); ok is false when it does not. An empty
// option or a key given twice is an error. A label's team-size suffix
// ("vote/n3", "council:balanced/n3": Panel.Label) reads as the option n=3.
func ParseSpec(spec, name string) (s Spec, ok bool, err error) {
	t := strings.ToLower(strings.TrimSpace(spec))
	t, size := cutTeamSuffix(t)
	head, rest, hasOpts := strings.Cut(t, ":")
	if strings.TrimSpace(head) != name {
		return s, false, nil
	}
	s = Spec{Name: name, Keyed: map[string]string{}}
	if size != "" {
		s.Keyed["n"] = size
	}
	if !hasOpts {
		return s, true, nil
	}
	for _, o := range strings.Split(rest, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			return s, true, fmt.Errorf("%s: empty option in %q", name, spec)
		}
		k, v, keyed := strings.Cut(o, "=")
		if !keyed {
			s.Bare = append(s.Bare, o)
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, dup := s.Keyed[k]; dup {
			return s, true, fmt.Errorf("%s: option %s given twice in %q", name, k, spec)
		}
		s.Keyed[k] = v
	}
	return s, true, nil
}

// cutTeamSuffix splits a trailing "/nN" (N digits) off a spec.
func cutTeamSuffix(t string) (spec, size string) {
	i := strings.LastIndex(t, "/n")
	if i < 0 || i+2 == len(t) {
		return t, ""
	}
	for _, r := range t[i+2:] {
		if r < '0' || r > '9' {
			return t, ""
		}
	}
	return t[:i], t[i+2:]
}

// Check refuses keys other than keys.
func (s Spec) Check(keys ...string) error {
	for k := range s.Keyed {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("%s: unknown option %q (options: %s)", s.Name, k, strings.Join(keys, ", "))
		}
	}
	return nil
}

// Int reads option key as a whole number in [lo, hi]: from key=value, else
// from the bare value at position pos (-1: none), else def.
func (s Spec) Int(key string, pos, def, lo, hi int) (int, error) {
	v, ok := s.Keyed[key]
	if !ok && pos >= 0 && pos < len(s.Bare) {
		v, ok = s.Bare[pos], true
	}
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s: %s=%s; use a whole number from %d to %d", s.Name, key, v, lo, hi)
	}
	return n, nil
}

// TeamSize is the arm's team: option n=…, else --agents, else
// DefaultAgents; at least lo.
func (s Spec) TeamSize(set protocol.Settings, lo int) (int, error) {
	def := DefaultAgents
	if set.Agents > 0 {
		def = set.Agents
	}
	return s.Int("n", -1, def, lo, MaxAgents)
}

// SharedTeam is the team size an arm gets without an n option, used to
// leave n out of its label when it says nothing more.
func SharedTeam(set protocol.Settings) int {
	if set.Agents > 0 {
		return set.Agents
	}
	return DefaultAgents
}

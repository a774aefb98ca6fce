package plan

import (
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/suggest"
	"github.com/medteam-bench/medteam/teamwork"
)

// sweepFile is the schema of a sweep file (see configs/ablation.yaml).
type sweepFile struct {
	Datasets    []string  `yaml:"datasets"`
	Models      []string  `yaml:"models"`
	Arms        yaml.Node `yaml:"arms"`
	Turns       *int      `yaml:"turns"`
	Agents      *int      `yaml:"agents"`
	Discussion  *string   `yaml:"discussion"`
	Text        *bool     `yaml:"text"`
	Limit       *int      `yaml:"limit"`
	Seed        *int64    `yaml:"seed"`
	SampleSeed  *int64    `yaml:"sample_seed"`
	Repeats     *int      `yaml:"repeats"`
	Transcripts *bool     `yaml:"transcripts"`
	// DiagnosisJudge is diagnosis_judge (--diagnosis-judge).
	DiagnosisJudge *bool   `yaml:"diagnosis_judge"`
	MaxTokens      *int    `yaml:"max_tokens"`
	RetryTruncated *bool   `yaml:"retry_truncated"`
	PeerChars      *int    `yaml:"peer_chars"`
	PromptLayout   *string `yaml:"prompt_layout"`
	FewshotFile    *string `yaml:"fewshot_file"`
	FewshotAny     *bool   `yaml:"fewshot_any"`
	Split          *string `yaml:"split"`
	BaseURL        *string `yaml:"base_url"`
	NumCtx         *int    `yaml:"num_ctx"`
	Temperature    *struct {
		Agent  *float64 `yaml:"agent"`
		Leader *float64 `yaml:"leader"`
	} `yaml:"temperature"`
}

// sweepKeys are the keys of a sweep file, in the order messages list them,
// with what the value must be.
var sweepKeys = []struct{ key, want string }{
	{"datasets", "a list of dataset names or paths, e.g. [medqa]"},
	{"models", "a list of models, e.g. [sim/default]"},
	{"arms", "a list of arms, e.g. [base, smm+l+to, sc:k=5]"},
	{"turns", "an integer, 2 or 3"},
	{"agents", "an integer, 0 (dynamic) or 2 to 4"},
	{"discussion", "round_robin or parallel"},
	{"text", "true or false"},
	{"limit", "an integer"},
	{"seed", "an integer"},
	{"sample_seed", "an integer"},
	{"repeats", "an integer"},
	{"transcripts", "true or false"},
	{"diagnosis_judge", "true or false"},
	{"max_tokens", "an integer"},
	{"retry_truncated", "true or false"},
	{"peer_chars", "an integer"},
	{"prompt_layout", "shared or source"},
	{"split", "a split name (test, dev, train, validation) or \"*\" for all, e.g. test"},
	{"fewshot_file", "a path to a training split (any dataset format), e.g. data/medqa/train.jsonl"},
	{"fewshot_any", "true or false"},
	{"base_url", "a URL"},
	{"num_ctx", "an integer"},
	{"temperature", "a mapping with agent and/or leader, e.g. {agent: 0.7, leader: 0.5}"},
}

// sweepFields gives where the value of each top-level key decodes to.
var sweepFields = map[string]func(*sweepFile) any{
	"datasets":        func(s *sweepFile) any { return &s.Datasets },
	"models":          func(s *sweepFile) any { return &s.Models },
	"arms":            func(s *sweepFile) any { return &s.Arms },
	"turns":           func(s *sweepFile) any { return &s.Turns },
	"agents":          func(s *sweepFile) any { return &s.Agents },
	"discussion":      func(s *sweepFile) any { return &s.Discussion },
	"text":            func(s *sweepFile) any { return &s.Text },
	"limit":           func(s *sweepFile) any { return &s.Limit },
	"seed":            func(s *sweepFile) any { return &s.Seed },
	"sample_seed":     func(s *sweepFile) any { return &s.SampleSeed },
	"repeats":         func(s *sweepFile) any { return &s.Repeats },
	"transcripts":     func(s *sweepFile) any { return &s.Transcripts },
	"diagnosis_judge": func(s *sweepFile) any { return &s.DiagnosisJudge },
	"max_tokens":      func(s *sweepFile) any { return &s.MaxTokens },
	"retry_truncated": func(s *sweepFile) any { return &s.RetryTruncated },
	"peer_chars":      func(s *sweepFile) any { return &s.PeerChars },
	"prompt_layout":   func(s *sweepFile) any { return &s.PromptLayout },
	"fewshot_file":    func(s *sweepFile) any { return &s.FewshotFile },
	"fewshot_any":     func(s *sweepFile) any { return &s.FewshotAny },
	"split":           func(s *sweepFile) any { return &s.Split },
	"base_url":        func(s *sweepFile) any { return &s.BaseURL },
	"num_ctx":         func(s *sweepFile) any { return &s.NumCtx },
}

// field returns where the value of a top-level key goes (nil: unknown key).
func (s *sweepFile) field(key string) any {
	if f, ok := sweepFields[key]; ok {
		return f(s)
	}
	return nil
}

// nodeText describes a YAML value for a message: the scalar, or its kind.
func nodeText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "nothing"
}

// decodeSweep reads a sweep file key by key, so that every problem is
// reported as file:line with the key as written in the file; the problems
// of values go to ps, all of them. It returns the line of each key's value;
// err is a problem that stops the reading (the file is not a YAML mapping).
func decodeSweep(path string, b []byte, ps *problems) (sweepFile, map[string]int, error) {
	var s sweepFile
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return s, nil, syntaxError(path, b, err)
	}
	if len(root.Content) == 0 {
		return s, nil, Inputf("%s: the file is empty; a sweep file is a YAML mapping with at least arms: [...] (see configs/ablation.yaml)", path)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return s, nil, Inputf("%s:%d: a sweep file is a mapping of keys (arms, datasets, models, …), not %s; see configs/ablation.yaml", path, doc.Line, nodeText(doc))
	}
	known := make([]string, len(sweepKeys))
	want := map[string]string{}
	for i, k := range sweepKeys {
		known[i], want[k.key] = k.key, k.want
	}
	lines := map[string]int{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if first, dup := lines[k.Value]; dup {
			ps.add(k.Line, "key %q given twice (first at line %d); keep one", k.Value, first)
			continue
		}
		lines[k.Value] = v.Line
		switch k.Value {
		case "arms":
			s.Arms = *v
			continue
		case "temperature":
			decodeTemperature(v, &s, ps)
			continue
		}
		dst := s.field(k.Value)
		if dst == nil {
			ps.add(k.Line, "unknown key %q%s; the keys of a sweep file are %s", k.Value, didYouMean(k.Value, known), strings.Join(known, ", "))
			continue
		}
		if err := v.Decode(dst); err != nil {
			ps.add(v.Line, "%s must be %s; got %s", k.Value, want[k.Value], nodeText(v))
		}
	}
	return s, lines, nil
}

// decodeTemperature reads temperature: {agent: …, leader: …}.
func decodeTemperature(v *yaml.Node, s *sweepFile, ps *problems) {
	if v.Kind != yaml.MappingNode {
		ps.add(v.Line, "temperature must be a mapping with agent and/or leader, e.g. temperature: {agent: 0.7, leader: 0.5}; got %s", nodeText(v))
		return
	}
	s.Temperature = &struct {
		Agent  *float64 `yaml:"agent"`
		Leader *float64 `yaml:"leader"`
	}{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var dst **float64
		switch k.Value {
		case "agent":
			dst = &s.Temperature.Agent
		case "leader":
			dst = &s.Temperature.Leader
		default:
			ps.add(k.Line, "unknown key %q under temperature%s; the keys there are agent, leader", k.Value, didYouMean(k.Value, []string{"agent", "leader"}))
			continue
		}
		if err := val.Decode(dst); err != nil || *dst == nil {
			*dst = nil
			ps.add(val.Line, "temperature.%s must be a number from 0 to 2; got %s", k.Value, nodeText(val))
			continue
		}
		if t := **dst; !(t >= 0 && t <= 2) { // NaN too
			ps.add(val.Line, "temperature.%s: %g; use a temperature from 0 to 2", k.Value, t)
		}
	}
}

// didYouMean is " (did you mean "x"?)" for the known name closest to
// word, "" when none is close.
func didYouMean(word string, known []string) string {
	if best, ok := suggest.Closest(word, known); ok {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// LoadSweep reads a sweep file over the settings in s. Unknown keys, values
// of the wrong type or out of range, and invalid arms are *InputErrors naming
// the file, the line and the key — every one of them at once.
func LoadSweep(path string, s *Spec) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return Inputf("sweep file: %v", err)
	}
	ps := &problems{path: path}
	f, lines, err := decodeSweep(path, b, ps)
	if err != nil {
		return err
	}
	f.check(lines, ps)
	configs := f.arms(ps)
	if err := ps.err(); err != nil {
		return err
	}
	s.Configs = configs
	f.apply(s)
	// Validate the shared settings against every arm now, with the file named.
	if _, err := s.Arms(); err != nil {
		return Inputf("%s: %v", path, err)
	}
	return nil
}

// check checks the values whose range the YAML types do not give.
func (f *sweepFile) check(lines map[string]int, ps *problems) {
	if f.Turns != nil && *f.Turns != 2 && *f.Turns != 3 {
		ps.add(lines["turns"], "turns: %d; the protocol defines 2 or 3 discussion turns", *f.Turns)
	}
	if f.Agents != nil && *f.Agents != 0 && (*f.Agents < 2 || *f.Agents > 4) {
		ps.add(lines["agents"], "agents: %d; use 0 for a dynamic team (the recruiter decides) or a fixed size from 2 to 4", *f.Agents)
	}
	if d := f.Discussion; d != nil && *d != string(teamwork.RoundRobin) && *d != string(teamwork.Parallel) {
		ps.add(lines["discussion"], "discussion: %q; use %s or %s", *d, teamwork.RoundRobin, teamwork.Parallel)
	}
}

// arms returns the file's arms, each checked with the registered protocols
// (a spec a flow list split at its option commas is joined again); each
// bad one is a problem.
func (f *sweepFile) arms(ps *problems) []string {
	if f.Arms.Kind != yaml.SequenceNode || len(f.Arms.Content) == 0 {
		line := max(f.Arms.Line, 1)
		ps.add(line, "arms must be a non-empty list of arms, e.g. [%s]", strings.Join(protocols.All().Presets(), ", "))
		return nil
	}
	var vals []string
	lines := map[string]int{}
	for _, n := range f.Arms.Content {
		if n.Kind != yaml.ScalarNode {
			ps.add(n.Line, "each arm is a preset name, a component list such as smm+l+to, or a protocol spec such as sc:k=5; got %s", nodeText(n))
			continue
		}
		vals = append(vals, n.Value)
		if _, ok := lines[n.Value]; !ok {
			lines[n.Value] = n.Line
		}
	}
	out := protocol.JoinSpecs(vals)
	check := protocol.Settings{Turns: 2, Discussion: string(teamwork.RoundRobin), Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	for _, v := range out {
		if strings.EqualFold(strings.TrimSpace(v), teamwork.FactorialName) {
			continue // expanded when the plan is resolved
		}
		if _, err := protocols.All().Parse(v, check); err != nil {
			line, ok := lines[v]
			if !ok {
				head, _, _ := strings.Cut(v, ",")
				line = lines[head]
			}
			ps.add(line, "arm %q: %v", v, err)
		}
	}
	return out
}

// apply sets in s what the file gives.
func (f *sweepFile) apply(s *Spec) {
	if len(f.Datasets) > 0 {
		s.Datasets = f.Datasets
	}
	if len(f.Models) > 0 {
		s.Models = f.Models
	}
	set(&s.Turns, f.Turns)
	set(&s.Agents, f.Agents)
	set(&s.Limit, f.Limit)
	set(&s.Repeats, f.Repeats)
	set(&s.MaxTokens, f.MaxTokens)
	set(&s.RetryTruncated, f.RetryTruncated)
	set(&s.PeerChars, f.PeerChars)
	set(&s.PromptLayout, f.PromptLayout)
	set(&s.NumCtx, f.NumCtx)
	set(&s.Discussion, f.Discussion)
	set(&s.Text, f.Text)
	set(&s.Seed, f.Seed)
	set(&s.SampleSeed, f.SampleSeed)
	set(&s.Transcripts, f.Transcripts)
	set(&s.DiagnosisJudge, f.DiagnosisJudge)
	set(&s.BaseURL, f.BaseURL)
	set(&s.FewshotFile, f.FewshotFile)
	set(&s.FewshotAny, f.FewshotAny)
	set(&s.Split, f.Split)
	if f.Temperature != nil {
		set(&s.AgentTemp, f.Temperature.Agent)
		set(&s.LeaderTemp, f.Temperature.Leader)
	}
}

// set stores *v in dst when the file gave it.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

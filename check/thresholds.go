package check

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Metric names what a threshold measures.
type Metric string

// The metrics a threshold can bound.
const (
	Accuracy          Metric = "accuracy"
	Coverage          Metric = "coverage"
	SelectiveAccuracy Metric = "selective_accuracy"
	ErrorRate         Metric = "error_rate"
	AbstentionRate    Metric = "abstention_rate"
	CallsPerQ         Metric = "calls_per_q"
	TokensPerQ        Metric = "tokens_per_q"
	LatencyP95        Metric = "latency_p95"
	CostPerQ          Metric = "cost_per_q"
	ECE               Metric = "ece"
	// Triage metrics (groups of triage rows, stats.Triage).
	UnderTriage    Metric = "under_triage"    // predicted less urgent than the truth
	OverTriage     Metric = "over_triage"     // predicted more urgent than the truth
	Safe           Metric = "safe"            // predicted at or above the truth
	Kappa          Metric = "kappa"           // quadratic-weighted Cohen's kappa
	DiagnosisMatch Metric = "diagnosis_match" // diagnosis match rate over the scored rows
)

// Metrics are the metrics of a group threshold, in the order messages list
// them.
var Metrics = []Metric{Accuracy, Coverage, SelectiveAccuracy, ErrorRate, AbstentionRate, CallsPerQ, TokensPerQ, LatencyP95, CostPerQ, ECE,
	UnderTriage, OverTriage, Safe, Kappa, DiagnosisMatch}

// TriageMetrics are the metrics only triage rows define.
var TriageMetrics = []Metric{UnderTriage, OverTriage, Safe, Kappa, DiagnosisMatch}

// CompareMetrics are the metrics of a comparison threshold: paired
// differences (candidate − reference) with a question-bootstrap interval.
var CompareMetrics = []Metric{Accuracy, CallsPerQ, TokensPerQ, Safe, UnderTriage}

// intervalMetrics have an interval on a group (design-effect-corrected Wilson).
var intervalMetrics = []Metric{Accuracy, SelectiveAccuracy, UnderTriage, OverTriage, Safe, DiagnosisMatch}

// Side is which number of an estimate a bound applies to.
type Side string

// The sides of an estimate.
const (
	Value  Side = "value"   // the point estimate
	CILow  Side = "ci_low"  // the lower end of its 95% interval
	CIHigh Side = "ci_high" // the upper end
)

// Bound is "side op number", e.g. ci_low >= 0.55.
type Bound struct {
	Side  Side
	Op    string // >=, <=, >, <
	Value float64
}

// String is the bound as written.
func (b Bound) String() string {
	return fmt.Sprintf("%s %s %s", b.Side, b.Op, strconv.FormatFloat(b.Value, 'g', -1, 64))
}

// Holds reports whether x satisfies the bound; NaN satisfies none.
func (b Bound) Holds(x float64) bool {
	switch b.Op {
	case ">=":
		return x >= b.Value
	case "<=":
		return x <= b.Value
	case ">":
		return x > b.Value
	case "<":
		return x < b.Value
	}
	return false
}

// Threshold is one entry of a thresholds file.
type Threshold struct {
	File string
	Line int // of the entry's first key
	// Metric and Bound: what is bounded, and how.
	Metric Metric
	Bound  Bound
	// Selectors: "" matches every value. Subject selects the per-subject
	// groups instead of the overall ones.
	Arm, Model, Dataset, Subject string
	// Compare is [candidate, reference] for a paired comparison (the bound
	// is on Δ = candidate − reference); nil for a group threshold.
	Compare []string
	// Lines of the entry's values, for the messages of Validate and
	// ValidatePlan.
	armLine, compareLine, metricLine, boundLine, modelLine, datasetLine int
}

// Pos is "file:line" of the entry.
func (t Threshold) Pos() string { return fmt.Sprintf("%s:%d", t.File, t.Line) }

// Name is the threshold as a test case name, e.g. "accuracy ci_low >= 0.55"
// or "delta(accuracy, full, base) ci_low >= -0.02".
func (t Threshold) Name() string {
	if t.Compare != nil {
		return fmt.Sprintf("delta(%s, %s, %s) %s", t.Metric, t.Compare[0], t.Compare[1], t.Bound)
	}
	return fmt.Sprintf("%s %s", t.Metric, t.Bound)
}

// Error is a problem of a thresholds file at a line.
type Error struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

func errorf(file string, line int, format string, a ...any) error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Load reads and parses a thresholds file.
func Load(path string) ([]Threshold, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, b)
}

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Parse parses a thresholds file (see configs/thresholds.yaml); file names
// it in errors, which are *Error with the line of the problem.
func Parse(file string, b []byte) ([]Threshold, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, errorf(file, line, "not valid YAML: %s", m[2])
		}
		return nil, errorf(file, 0, "not valid YAML: %v", err)
	}
	if len(root.Content) == 0 {
		return nil, errorf(file, 0, "the file is empty; a thresholds file is a mapping with thresholds: [...] (see configs/thresholds.yaml)")
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, errorf(file, doc.Line, "a thresholds file is a mapping with the key thresholds, not %s; see configs/thresholds.yaml", nodeText(doc))
	}
	var list *yaml.Node
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		if k.Value != "thresholds" {
			return nil, errorf(file, k.Line, "unknown key %q; a thresholds file has one key, thresholds", k.Value)
		}
		if list != nil {
			return nil, errorf(file, k.Line, "key \"thresholds\" given twice; keep one")
		}
		list = v
	}
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		line := doc.Line
		if list != nil {
			line = list.Line
		}
		return nil, errorf(file, line, "thresholds must be a non-empty list of entries such as {metric: accuracy, bound: \"ci_low >= 0.55\"}")
	}
	out := make([]Threshold, 0, len(list.Content))
	for _, n := range list.Content {
		t, err := parseEntry(file, n)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// entryKeys are the keys of a threshold entry.
var entryKeys = []string{"metric", "bound", "arm", "model", "dataset", "subject", "compare"}

// parseEntry parses one threshold entry.
func parseEntry(file string, n *yaml.Node) (Threshold, error) {
	t := Threshold{File: file, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return t, errorf(file, n.Line, "a threshold is a mapping with metric and bound (and selectors or compare), not %s", nodeText(n))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(entryKeys, k.Value) {
			return t, errorf(file, k.Line, "unknown key %q; the keys of a threshold are %s", k.Value, strings.Join(entryKeys, ", "))
		}
		if seen[k.Value] != nil {
			return t, errorf(file, k.Line, "key %q given twice in one threshold; keep one", k.Value)
		}
		if k.Value != "compare" && v.Kind != yaml.ScalarNode {
			return t, errorf(file, v.Line, "%s must be a single value; got %s", k.Value, nodeText(v))
		}
		seen[k.Value] = v
	}
	if err := t.setMetric(seen); err != nil {
		return t, err
	}
	for i, dst := range []*string{&t.Arm, &t.Model, &t.Dataset, &t.Subject} {
		key := entryKeys[i+2]
		if v := seen[key]; v != nil {
			if v.Value == "" {
				return t, errorf(file, v.Line, "%s is empty; give a name or leave the selector out", key)
			}
			*dst = v.Value
		}
	}
	for key, dst := range map[string]*int{"arm": &t.armLine, "model": &t.modelLine, "dataset": &t.datasetLine, "bound": &t.boundLine} {
		if v := seen[key]; v != nil {
			*dst = v.Line
		}
	}
	if err := t.setCompare(seen); err != nil {
		return t, err
	}
	return t, t.setBound(seen)
}

// setMetric reads the metric.
func (t *Threshold) setMetric(seen map[string]*yaml.Node) error {
	v := seen["metric"]
	if v == nil {
		return errorf(t.File, t.Line, "threshold without metric; add metric: one of %s", metricList(Metrics))
	}
	t.Metric, t.metricLine = Metric(v.Value), v.Line
	if !slices.Contains(Metrics, t.Metric) {
		return errorf(t.File, v.Line, "unknown metric %q; use one of %s", v.Value, metricList(Metrics))
	}
	return nil
}

// setCompare reads compare: [candidate, reference].
func (t *Threshold) setCompare(seen map[string]*yaml.Node) error {
	v := seen["compare"]
	if v == nil {
		return nil
	}
	t.compareLine = v.Line
	if v.Kind != yaml.SequenceNode || len(v.Content) != 2 || v.Content[0].Kind != yaml.ScalarNode || v.Content[1].Kind != yaml.ScalarNode ||
		v.Content[0].Value == "" || v.Content[1].Value == "" {
		return errorf(t.File, v.Line, "compare must be a list of two arms [candidate, reference], e.g. compare: [full, base]; got %s", nodeText(v))
	}
	if v.Content[0].Value == v.Content[1].Value {
		return errorf(t.File, v.Line, "compare: [%s, %s] compares an arm with itself; name two arms", v.Content[0].Value, v.Content[1].Value)
	}
	t.Compare = []string{v.Content[0].Value, v.Content[1].Value}
	if t.Arm != "" {
		return errorf(t.File, t.armLine, "arm and compare in one threshold: compare names the arms; drop arm")
	}
	if t.Subject != "" {
		return errorf(t.File, seen["subject"].Line, "subject and compare in one threshold: comparisons are made over all subjects; drop subject")
	}
	if !slices.Contains(CompareMetrics, t.Metric) {
		return errorf(t.File, t.metricLine, "metric %q cannot be compared; a comparison bounds one of %s", t.Metric, metricList(CompareMetrics))
	}
	return nil
}

var boundRe = regexp.MustCompile(`^\s*([a-z_]+)\s*(>=|<=|>|<)\s*(\S+)\s*$`)

// setBound reads the bound.
func (t *Threshold) setBound(seen map[string]*yaml.Node) error {
	v := seen["bound"]
	if v == nil {
		return errorf(t.File, t.Line, "threshold without bound; add e.g. bound: \"ci_low >= 0.55\" or bound: \"value <= 20\"")
	}
	m := boundRe.FindStringSubmatch(v.Value)
	if m == nil {
		return errorf(t.File, v.Line, "bound %q: write SIDE OP NUMBER, SIDE one of value, ci_low, ci_high and OP one of >=, <=, >, <, e.g. \"ci_low >= 0.55\"", v.Value)
	}
	side := Side(m[1])
	if side != Value && side != CILow && side != CIHigh {
		return errorf(t.File, v.Line, "bound %q: unknown side %q; use value, ci_low or ci_high", v.Value, m[1])
	}
	x, err := strconv.ParseFloat(m[3], 64)
	if err != nil || x != x {
		return errorf(t.File, v.Line, "bound %q: %q is not a number", v.Value, m[3])
	}
	if side != Value && t.Compare == nil && !slices.Contains(intervalMetrics, t.Metric) {
		return errorf(t.File, v.Line, "bound %q: %s has no interval; bound its value, or use %s", v.Value, t.Metric, metricList(intervalMetrics))
	}
	t.Bound = Bound{Side: side, Op: m[2], Value: x}
	return nil
}

func metricList(ms []Metric) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
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

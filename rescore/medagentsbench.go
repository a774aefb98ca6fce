package rescore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// MedAgentsBench (Tang et al. 2025, gersteinlab/medagents-benchmark)
// publishes one output file per model, task and method,
// output/<task>/<model>-<task>-<split>-<method>.json: a JSON array (or JSON
// Lines) of records realidx, question, options {A: …}, answer_idx (the gold
// letter), predicted_answer (the publishers' extraction; there is no reply
// text), token_usage ({prompt_tokens, completion_tokens}, a dict or its
// Python repr as a string), time_elapsed (seconds), and for some methods
// cost (USD, AFlow and SPO, which record no tokens) or difficulty (MDAgents'
// route). Python wrote them: NaN stands where a value is missing.

// MABRecord is one record of a MedAgentsBench output file.
type MABRecord struct {
	Line     int    // 1-based element (JSON array) or line (JSONL)
	RealIdx  string // the record's realidx
	Question string // as recorded (MDAgents appends the options to it)
	Stem     string // the question without MDAgents' appended options
	Options  []string
	Gold     string // answer_idx, as a capital letter
	// GoldRaw is answer_idx as recorded: the publishers' scorer compares
	// predicted_answer with it as strings.
	GoldRaw string
	// Pred is predicted_answer as recorded (the publishers compare it to
	// answer_idx as a string); PredState says when there is none.
	Pred       string
	PredState  string // "" (a string), "missing", or "null" (null or NaN)
	Prompt     int64
	Completion int64
	HasUsage   bool // token_usage holds the two counts
	Cost       float64
	HasCost    bool // the record's own cost field (USD), which wins over tokens
	Seconds    float64
	HasTime    bool
	Route      string // MDAgents' difficulty: basic, intermediate, advanced
}

// MABFile is one output file after the publishers' deduplication: the
// first record of each realidx is kept (deduplicate_data in
// plots/table1_performance.ipynb); Dropped counts the others.
type MABFile struct {
	Path, Model, Task, Split, Method string
	Records                          []MABRecord
	Dropped                          int
	DroppedIDs                       []string // realidx of the dropped records, in file order
}

// mabTasks are the tasks of MedAgentsBench's file names, longest first so
// that "mmlu-pro" is found before "mmlu".
var mabTasks = []string{"medxpertqa-r", "medxpertqa-u", "afrimedqa", "medbullets", "mmlu-pro", "pubmedqa", "medmcqa", "medexqa", "medqa", "mmlu"}

// ParseMABName reads model, task, split and method from a file name
// <model>-<task>-<split>-<method>.json (e.g.
// gpt-4o-mini-medqa-test_hard-cot_sc-5.json).
func ParseMABName(path string) (model, task, split, method string, err error) {
	base := filepath.Base(path)
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".jsonl"), ".json")
	tasks := append([]string{strings.ToLower(filepath.Base(filepath.Dir(path)))}, mabTasks...)
	for _, t := range tasks {
		i := strings.Index(strings.ToLower(stem), "-"+t+"-")
		if t == "" || t == "." || i <= 0 {
			continue
		}
		rest := stem[i+len(t)+2:]
		j := strings.Index(rest, "-")
		if j <= 0 || j == len(rest)-1 {
			continue
		}
		return stem[:i], t, rest[:j], rest[j+1:], nil
	}
	return "", "", "", "", fmt.Errorf("%s: the name is not <model>-<task>-<split>-<method>.json (e.g. gpt-4o-medqa-test_hard-cot.json, task one of %s): rename the file as MedAgentsBench names its outputs",
		path, strings.Join(mabTasks, ", "))
}

// LooksMedAgentsBench reports whether the file's first record has
// MedAgentsBench's fields (realidx, answer_idx, predicted_answer).
func LooksMedAgentsBench(path string) bool {
	recs, err := readMABRaw(path, 1)
	if err != nil || len(recs) == 0 {
		return false
	}
	_, a := recs[0]["realidx"]
	_, b := recs[0]["answer_idx"]
	_, c := recs[0]["predicted_answer"]
	return a && b && c
}

// maxMABFile caps the size of one output file read into memory.
const maxMABFile = 1 << 30

// ReadMABFile reads a MedAgentsBench output file and keeps the first
// record of each realidx, as the publishers' scorer does.
func ReadMABFile(path string) (MABFile, error) {
	f := MABFile{Path: path}
	var err error
	if f.Model, f.Task, f.Split, f.Method, err = ParseMABName(path); err != nil {
		return f, err
	}
	raws, err := readMABRaw(path, 0)
	if err != nil {
		return f, err
	}
	seen := map[string]bool{}
	for i, raw := range raws {
		rec, err := parseMABRecord(raw)
		if err != nil {
			return f, fmt.Errorf("%s: record %d: %w", path, i+1, err)
		}
		rec.Line = i + 1
		if seen[rec.RealIdx] {
			f.Dropped++
			f.DroppedIDs = append(f.DroppedIDs, rec.RealIdx)
			continue
		}
		seen[rec.RealIdx] = true
		f.Records = append(f.Records, rec)
	}
	if len(f.Records) == 0 {
		return f, fmt.Errorf("%s: no records", path)
	}
	return f, nil
}

// readMABRaw reads the records of a JSON array or JSON Lines file (Python's
// NaN and Infinity read as null); at most limit records when limit > 0.
func readMABRaw(path string, limit int) ([]map[string]json.RawMessage, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxMABFile {
		return nil, fmt.Errorf("%s: %d bytes; at most %d are read", path, st.Size(), maxMABFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeMAB(path, PythonJSON(b), limit)
}

func decodeMAB(path string, b []byte, limit int) ([]map[string]json.RawMessage, error) {
	b = bytes.TrimLeft(b, " \t\r\n\ufeff")
	if len(b) > 0 && b[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		var out []map[string]json.RawMessage
		for dec.More() && (limit <= 0 || len(out) < limit) {
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("%s: element %d: not a JSON object: %v", path, len(out)+1, err)
			}
			out = append(out, raw)
		}
		return out, nil
	}
	var out []map[string]json.RawMessage
	for n, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object (want a JSON array or JSON Lines of records): %v", path, n+1, err)
		}
		if out = append(out, raw); limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// PythonJSON replaces the NaN, Infinity and -Infinity that Python's json
// module writes (outside strings) with null, so that the text is JSON.
// Everything else is left as it is.
func PythonJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	out := make([]byte, 0, len(b))
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		}
		if n := pyConstLen(b[i:]); n > 0 {
			out = append(out, "null"...)
			i += n - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// pyConstLen is the length of the Python constant b starts with (NaN,
// Infinity, -Infinity), 0 when none.
func pyConstLen(b []byte) int {
	for _, k := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(k)) {
			return len(k)
		}
	}
	return 0
}

// parseMABRecord reads one record's fields.
func parseMABRecord(raw map[string]json.RawMessage) (MABRecord, error) {
	var rec MABRecord
	var err error
	if rec.RealIdx, err = textField(raw, "realidx"); err != nil {
		return rec, err
	}
	if rec.RealIdx == "" {
		return rec, fmt.Errorf("no realidx: each record needs its question's realidx")
	}
	if rec.Options, err = mabOptions(raw["options"]); err != nil {
		return rec, err
	}
	if rec.Question, err = stringField(raw, "question"); err != nil {
		return rec, err
	}
	rec.Stem = mabStem(rec.Question, rec.Options)
	if rec.Gold, err = letterValue(raw["answer_idx"], "answer_idx", len(rec.Options)); err != nil || rec.Gold == "" {
		return rec, fmt.Errorf("answer_idx: want the gold letter among the %d options (%v)", len(rec.Options), err)
	}
	json.Unmarshal(raw["answer_idx"], &rec.GoldRaw) // a string: letterValue read it
	if err := rec.prediction(raw); err != nil {
		return rec, err
	}
	if err := rec.usage(raw); err != nil {
		return rec, err
	}
	if rec.Route, err = stringField(raw, "difficulty"); err != nil {
		return rec, err
	}
	return rec, nil
}

// Hit is the publishers' rule: predicted_answer == answer_idx, as strings
// (a null, NaN or missing prediction is wrong).
func (rec MABRecord) Hit() bool { return rec.PredState == "" && rec.Pred == rec.GoldRaw }

// prediction reads predicted_answer: a string as recorded; null, NaN or
// absent is no prediction (scored wrong, as the publishers' equality does).
func (rec *MABRecord) prediction(raw map[string]json.RawMessage) error {
	v, ok := raw["predicted_answer"]
	switch {
	case !ok:
		rec.PredState = "missing"
	case string(v) == "null":
		rec.PredState = "null"
	default:
		if err := json.Unmarshal(v, &rec.Pred); err != nil {
			return fmt.Errorf("predicted_answer: want a string or null, got %s", clip(string(v)))
		}
	}
	return nil
}

// usage reads token_usage, cost and time_elapsed.
func (rec *MABRecord) usage(raw map[string]json.RawMessage) error {
	var err error
	if v, ok := raw["token_usage"]; ok && string(v) != "null" {
		if rec.Prompt, rec.Completion, err = ParseTokenUsage(v); err != nil {
			return err
		}
		rec.HasUsage = true
	}
	if rec.Cost, rec.HasCost, err = numberField(raw, "cost"); err != nil {
		return err
	}
	rec.Seconds, rec.HasTime, err = numberField(raw, "time_elapsed")
	return err
}

// ParseTokenUsage reads token_usage: a JSON object {prompt_tokens,
// completion_tokens}, or that dict's Python repr as a string
// ("{'prompt_tokens': 17176, 'completion_tokens': 4063}").
func ParseTokenUsage(v json.RawMessage) (prompt, completion int64, err error) {
	var m map[string]json.Number
	if json.Unmarshal(v, &m) != nil {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return 0, 0, fmt.Errorf("token_usage: want {prompt_tokens, completion_tokens} or its Python repr, got %s", clip(string(v)))
		}
		if m, err = pyDict(s); err != nil {
			return 0, 0, fmt.Errorf("token_usage: %q: %v", clip(s), err)
		}
	}
	p, okP := m["prompt_tokens"]
	c, okC := m["completion_tokens"]
	if !okP || !okC {
		return 0, 0, fmt.Errorf("token_usage: want prompt_tokens and completion_tokens, got %s", clip(string(v)))
	}
	if prompt, err = tokenCount(p); err == nil {
		completion, err = tokenCount(c)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("token_usage: %v", err)
	}
	return prompt, completion, nil
}

func tokenCount(n json.Number) (int64, error) {
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || f < 0 || f != float64(int64(f)) {
		return 0, fmt.Errorf("%q is not a token count", n)
	}
	return int64(f), nil
}

// pyDict reads a flat Python dict of numbers: {'k': 1, "j": 2.0}.
func pyDict(s string) (map[string]json.Number, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, fmt.Errorf("not a dict")
	}
	m := map[string]json.Number{}
	body := strings.TrimSpace(s[1 : len(s)-1])
	if body == "" {
		return m, nil
	}
	for _, kv := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || len(k) < 2 || (k[0] != '\'' && k[0] != '"') || k[len(k)-1] != k[0] {
			return nil, fmt.Errorf("%q is not 'key': number", clip(kv))
		}
		v = strings.TrimSpace(v)
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("%q is not a number", clip(v))
		}
		m[k[1:len(k)-1]] = json.Number(v)
	}
	return m, nil
}

// numberField reads an optional number (or a number in a string); null is
// absent.
func numberField(raw map[string]json.RawMessage, key string) (float64, bool, error) {
	v, ok := raw[key]
	if !ok || string(v) == "null" {
		return 0, false, nil
	}
	var f float64
	if json.Unmarshal(v, &f) == nil {
		return f, true, nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return f, true, nil
		}
	}
	return 0, false, fmt.Errorf("%s: want a number, got %s", key, clip(string(v)))
}

// mabOptions reads options: an object {"A": text, …} with the letters A, B,
// … in sequence, or a list of texts.
func mabOptions(v json.RawMessage) ([]string, error) {
	if v == nil {
		return nil, fmt.Errorf("no options: give options, {\"A\": text, …}")
	}
	var list []string
	if json.Unmarshal(v, &list) != nil {
		var m map[string]string
		if err := json.Unmarshal(v, &m); err != nil {
			return nil, fmt.Errorf("options: want {\"A\": text, …} or a list of texts: %v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if k != string(rune('A'+i)) {
				return nil, fmt.Errorf("options: letters %s; want A, B, … in sequence", strings.Join(keys, ","))
			}
			list = append(list, m[k])
		}
	}
	if len(list) < 2 || len(list) > maxOptions {
		return nil, fmt.Errorf("options: %d options; want 2 to %d", len(list), maxOptions)
	}
	return list, nil
}

// mabStem is the question without the options MDAgents appends to it
// ("… Options: (B) text (A) text …", in its own order): the suffix from the
// last "Options: (" goes when it holds every option as "(L) text".
func mabStem(q string, opts []string) string {
	i := strings.LastIndex(q, "Options: (")
	if i <= 0 {
		return q
	}
	suffix := q[i:]
	for j, o := range opts {
		if !strings.Contains(suffix, "("+string(rune('A'+j))+") "+strings.TrimSpace(o)) {
			return q
		}
	}
	return strings.TrimSpace(q[:i])
}

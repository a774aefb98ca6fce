package medagents

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// FallbackDomain fills a domain list the reply left short: the reference
// code's fallback when a domain call fails ("General Medicine" for every
// field).
const FallbackDomain = "General Medicine"

// maxDomain bounds a domain name (bytes): a longer item is prose, not the
// name of a field, and is dropped with a note.
const maxDomain = 60

// Domains is the reading of a domain-gathering reply.
type Domains struct {
	// Names holds exactly the n domains asked for: the ones read, in the
	// order given (the first n when more were given), then FallbackDomain
	// for each one missing.
	Names  []string
	Read   int // how many names were read from the reply (before cutting to n)
	Method answer.Method
	Reason string // an answer.Reason constant when none was read
	Err    string
	Notes  []string
}

var domainLabels = map[string]string{
	"MEDICAL FIELD": "fields", "MEDICAL FIELDS": "fields", "FIELD": "fields", "FIELDS": "fields",
	"DOMAIN": "fields", "DOMAINS": "fields", "SUBFIELDS": "fields", "MEDICAL DOMAINS": "fields",
}

var domainKeys = []string{"fields", "medicalfields", "medicalfield", "domains", "subfields", "field"}

// ParseDomains reads the n domains a gathering reply names: the "fields"
// list of a JSON object, else the value of a "Medical Field:" line (the
// reference's format, "Medical Field: A | B | C", a list under the label
// also read), else the last line that separates names with "|". Names are
// split at "|" (else at ",", ";" and new lines), stripped of list numbers,
// markup and quotes; a placeholder echoed from the format ("Field1"), an
// empty item or one longer than maxDomain bytes is dropped with a note.
// More than n names are cut to the first n, fewer are padded with
// FallbackDomain (each noted). Nothing readable is all FallbackDomain, with
// the reason.
func ParseDomains(text string, n int) Domains {
	d := Domains{Method: answer.MethodNone}
	norm, body := answer.Prepare(text)
	var raw []string
	switch {
	case strings.TrimSpace(norm) == "":
		d.Reason, d.Err = answer.ReasonEmpty, "empty response"
	default:
		raw, d.Method = domainItems(body)
		if raw == nil {
			d.Reason, d.Err = answer.ReasonNoAnswer, "no \"Medical Field:\" line, field list or \"|\"-separated names"
		}
	}
	for _, it := range raw {
		name, note := cleanDomain(it)
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		if name != "" {
			d.Names = append(d.Names, name)
		}
	}
	d.Read = len(d.Names)
	if d.Read == 0 && d.Reason == "" {
		d.Method, d.Reason, d.Err = answer.MethodNone, answer.ReasonNoAnswer, "no usable domain name"
	}
	if d.Read > n {
		d.Notes = append(d.Notes, fmt.Sprintf("%d domains given, the first %d kept", d.Read, n))
		d.Names = d.Names[:n]
	}
	if d.Read < n {
		if d.Read > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("%d of %d domains read; %s for the rest", d.Read, n, FallbackDomain))
		}
		for len(d.Names) < n {
			d.Names = append(d.Names, FallbackDomain)
		}
	}
	return d
}

// domainItems finds the raw list items and how they were read (nil when
// there is no list).
func domainItems(body string) ([]string, answer.Method) {
	if o, m, ok := answer.DecodeObject(body, false); ok {
		for _, k := range domainKeys {
			if v, ok := o.Get(k); ok {
				items := answer.RawStrings(v)
				if len(items) == 1 && strings.Contains(items[0], "|") {
					items = strings.Split(items[0], "|")
				}
				return nonNil(items), m
			}
		}
	}
	if v, ok := answer.Sections(body, domainLabels)["fields"]; ok {
		return nonNil(splitDomains(v)), answer.MethodLabelled
	}
	lines := strings.Split(body, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "|") {
			return nonNil(strings.Split(lines[i], "|")), answer.MethodAnswerLine
		}
	}
	return nil, answer.MethodNone
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// splitDomains splits a labelled value: at "|" when it has one, else at
// new lines, ";" and ",".
func splitDomains(v string) []string {
	if strings.Contains(v, "|") {
		return strings.Split(v, "|")
	}
	return strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == ';' || r == ',' })
}

// cleanDomain trims a list item to a domain name, or says why it is none.
func cleanDomain(s string) (string, string) {
	s = answer.TrimBullet(strings.TrimSpace(s))
	s = strings.Trim(s, " \t*_`'\"[]{}().")
	s = strings.Join(strings.Fields(s), " ")
	switch {
	case s == "":
		return "", ""
	case len(s) > maxDomain:
		return "", fmt.Sprintf("domain %q longer than %d bytes dropped", kit.Truncate(s, 40), maxDomain)
	case isPlaceholder(s):
		return "", fmt.Sprintf("placeholder %q dropped", s)
	}
	return s, ""
}

// isPlaceholder reports an echo of the format's "Field1"/"Field0".
func isPlaceholder(s string) bool {
	rest, ok := strings.CutPrefix(strings.ToLower(s), "field")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	for _, r := range rest {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// Vote values.
const (
	VoteYes    = "yes"
	VoteNo     = "no"
	VoteUnread = "unread"
)

// Vote is the reading of a consensus vote.
type Vote struct {
	Value  string // VoteYes, VoteNo or VoteUnread
	Method answer.Method
	Reason string // an answer.Reason constant when unread
	Err    string
}

var voteLabels = map[string]string{"VOTE": "vote", "ANSWER": "vote", "DECISION": "vote", "CONSISTENT": "vote", "RESPONSE": "vote", "FINAL ANSWER": "vote"}

var voteKeys = []string{"vote", "answer", "consistent", "agree", "decision", "response"}

// ParseVote reads a consensus vote strictly: the "vote" field of a JSON
// object (a string, or a boolean: true is yes), else the value of a
// "Vote:" (or "Answer:") line, else the reply's first line; the vote is the
// value's leading word when it is "yes" or "no" (any case, markup and
// brackets ignored). "YES or NO" (the format echoed) is ambiguous; any other
// reply is unread — never a guess. (The reference code takes the first
// "yes" or "no" anywhere in the reply, inside words too, so "cannot" and
// "know" read as no, and counts a reply with neither as yes.)
func ParseVote(text string) Vote {
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return Vote{Value: VoteUnread, Method: answer.MethodNone, Reason: answer.ReasonEmpty, Err: "empty response"}
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		for _, k := range voteKeys {
			v, ok := o.Get(k)
			if !ok {
				continue
			}
			switch string(answer.TrimRaw(v)) {
			case "true":
				return Vote{Value: VoteYes, Method: m}
			case "false":
				return Vote{Value: VoteNo, Method: m}
			}
			s, _ := answer.RawString(v)
			return readVote(s, m)
		}
	}
	if v, ok := answer.Sections(body, voteLabels)["vote"]; ok {
		return readVote(v, answer.MethodLabelled)
	}
	return readVote(answer.FirstLine(body), answer.MethodAnswerLine)
}

// readVote reads the leading word of v.
func readVote(v string, m answer.Method) Vote {
	words := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return !unicode.IsLetter(r) })
	if len(words) == 0 {
		return Vote{Value: VoteUnread, Method: answer.MethodNone, Reason: answer.ReasonNoAnswer, Err: "no vote"}
	}
	w := words[0]
	if w != VoteYes && w != VoteNo {
		return Vote{Value: VoteUnread, Method: answer.MethodNone, Reason: answer.ReasonNoAnswer,
			Err: fmt.Sprintf("vote %q is neither yes nor no", kit.Truncate(v, 40))}
	}
	if len(words) >= 3 && words[1] == "or" && (words[2] == VoteYes || words[2] == VoteNo) {
		return Vote{Value: VoteUnread, Method: answer.MethodNone, Reason: answer.ReasonAmbiguous,
			Err: fmt.Sprintf("vote %q names both", kit.Truncate(v, 40))}
	}
	return Vote{Value: w, Method: m}
}

// Text is the reading of a free-text reply (an analysis, revision advice).
type Text struct {
	Text   string
	Method answer.Method
	Reason string // answer.ReasonEmpty when the reply holds nothing
}

// ParseText reads a free-text reply: the first of keys of a JSON object
// that holds a string, else the value of a line labelled with one of
// labels (upper case, e.g. "REVISIONS"), else the whole reply, trimmed.
func ParseText(text string, keys []string, labels ...string) Text {
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return Text{Method: answer.MethodNone, Reason: answer.ReasonEmpty}
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		if s, ok := o.FirstString(keys...); ok && strings.TrimSpace(s) != "" {
			return Text{Text: strings.TrimSpace(s), Method: m}
		}
	}
	canon := map[string]string{}
	for _, l := range labels {
		canon[l] = "text"
	}
	if v, ok := answer.Sections(body, canon)["text"]; ok && strings.TrimSpace(v) != "" {
		return Text{Text: strings.TrimSpace(v), Method: answer.MethodLabelled}
	}
	if t := strings.TrimSpace(body); t != "" {
		return Text{Text: t, Method: answer.MethodAnswerLine}
	}
	return Text{Method: answer.MethodNone, Reason: answer.ReasonEmpty}
}

// Report is the reading of a synthesis or revision reply.
type Report struct {
	KeyKnowledge  string
	TotalAnalysis string
	Method        answer.Method
	Reason        string // answer.ReasonEmpty when the reply holds nothing
	Notes         []string
}

var reportLabels = map[string]string{"KEY KNOWLEDGE": "key", "TOTAL ANALYSIS": "total", "REVISED ANALYSIS": "total"}

// ParseReport reads a synthesised (or revised) report: the key_knowledge
// and total_analysis fields of a JSON object, else the "Key Knowledge:" and
// "Total Analysis:" lines (a value runs on to the next label). Without a
// total analysis the whole reply is the analysis, noted (the reference code
// fails on such a reply).
func ParseReport(text string) Report {
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return Report{Method: answer.MethodNone, Reason: answer.ReasonEmpty}
	}
	if o, m, ok := answer.DecodeObject(body, false); ok {
		total, _ := o.FirstString("totalanalysis", "revisedanalysis", "analysis", "report")
		if strings.TrimSpace(total) != "" {
			key, _ := o.FirstString("keyknowledge", "knowledge")
			return Report{KeyKnowledge: strings.TrimSpace(key), TotalAnalysis: strings.TrimSpace(total), Method: m}
		}
	}
	sec := answer.Sections(body, reportLabels)
	if total := strings.TrimSpace(sec["total"]); total != "" {
		return Report{KeyKnowledge: strings.TrimSpace(sec["key"]), TotalAnalysis: total, Method: answer.MethodLabelled}
	}
	return Report{TotalAnalysis: strings.TrimSpace(body), Method: answer.MethodAnswerLine,
		Notes: []string{"no \"Total Analysis:\" line: the whole reply is the analysis"}}
}

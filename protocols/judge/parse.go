package judge

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Verdict is the consensus judge's output object (seed 003 §F.3) as read.
type Verdict struct {
	Reasoning string
	// Answer is the consensus option on a multiple-choice item; None is
	// true when the judge wrote NoAnswer (the algorithm's safe default).
	Answer string
	None   bool
	// Urgency is the rank (0 = least urgent) of the consensus level on a
	// triage item (the judge writes it 1…L on the scale it was shown); -1
	// when unread.
	Urgency int
	// Specialty is the consensus specialty ("" when unread or not asked).
	Specialty string
	// AverageConfidence is the average the judge stated, in [0,1]; -1 when
	// none could be read.
	AverageConfidence float64
	// LowConfidence is the judge's is_low_confidence flag;
	// LowConfidenceRead says whether a yes/no flag was read at all.
	LowConfidence     bool
	LowConfidenceRead bool
	// Method is how the deciding field (the answer, or on triage the
	// urgency) was read; Reason (an answer.Reason constant) and Err say why
	// it could not be.
	Method answer.Method
	Reason string
	Err    string
	Notes  []string
}

// Read reports whether the deciding field was read: the answer (or NONE)
// on a multiple-choice item, the urgency on a triage item.
func (v Verdict) Read(t Task) bool {
	if t.Triage() {
		return v.Urgency >= 0
	}
	return v.Answer != "" || v.None
}

// labels are the labelled lines of the text form (and the tolerated
// variants), by field.
var labels = map[string]string{
	"CONSENSUS ANSWER": "answer", "ANSWER": "answer", "FINAL ANSWER": "answer",
	"CONSENSUS URGENCY": "urgency", "URGENCY": "urgency",
	"CONSENSUS SPECIALTY": "specialty", "SPECIALTY": "specialty",
	"REASONING":          "reasoning",
	"AVERAGE CONFIDENCE": "average", "MEAN CONFIDENCE": "average",
	"IS LOW CONFIDENCE": "low", "LOW CONFIDENCE": "low",
}

// JSON keys (normalised: lower case, no underscores) by field.
var (
	answerKeys    = []string{"consensusanswer", "answer", "finalanswer"}
	urgencyKeys   = []string{"consensusurgency", "urgency"}
	specialtyKeys = []string{"consensusspecialty", "specialty"}
	averageKeys   = []string{"averageconfidence", "meanconfidence", "avgconfidence"}
	lowKeys       = []string{"islowconfidence", "lowconfidence"}
)

// ParseVerdict reads the judge's reply to task t (options as the answer
// parser takes them): its JSON object, else its labelled lines. The
// answer is an option or NoAnswer, never a guess; the urgency a whole
// number on the 1…L scale shown (or a level the options name); the
// average confidence a number in [0,1] (a percentage converts, with a
// note); the flag a yes/no. Whatever cannot be read is recorded as unread
// with a note.
func ParseVerdict(text string, options []answer.Option, t Task) Verdict {
	v := Verdict{Urgency: -1, AverageConfidence: -1}
	set := answer.NewSet(options)
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		v.Method, v.Reason, v.Err = answer.MethodNone, answer.ReasonEmpty, "empty response"
		return v
	}
	o, m, isJSON := answer.DecodeObject(body, false)
	sec := answer.Sections(body, labels)
	if !isJSON {
		m = answer.MethodLabelled
	}
	get := func(keys []string, label string) (json.RawMessage, string, bool) {
		if isJSON {
			if raw, ok := o.Get(keys...); ok {
				return raw, answer.RawText(raw), true
			}
		}
		s, ok := sec[label]
		return nil, answer.TrimValue(answer.FirstLine(s)), ok
	}
	if isJSON {
		v.Reasoning, _ = o.FirstString("reasoning", "rationale", "explanation")
	}
	if v.Reasoning == "" {
		v.Reasoning = sec["reasoning"]
	}
	if t.Triage() {
		raw, s, ok := get(urgencyKeys, "urgency")
		v.readUrgency(raw, s, ok, m, set, t, body)
		if t.AskSpecialty {
			if _, s, ok := get(specialtyKeys, "specialty"); ok && strings.TrimSpace(s) != "" {
				v.Specialty = strings.Join(strings.Fields(s), " ")
			} else {
				v.note("no consensus specialty")
			}
		}
	} else {
		_, s, ok := get(answerKeys, "answer")
		if ok && isNone(s) {
			v.None, v.Method = true, m
		} else {
			p := kit.ReadPick(text, set, labels)
			v.Answer, v.Method, v.Reason, v.Err = p.Answer, p.Method, p.Reason, p.Err
		}
	}
	raw, s, ok := get(averageKeys, "average")
	v.readAverage(raw, s, ok)
	raw, s, ok = get(lowKeys, "low")
	v.readLow(raw, s, ok)
	v.Notes = append(set.Notes(), v.Notes...)
	return v
}

// isNone reports whether a value is the judge's NoAnswer.
func isNone(s string) bool {
	return strings.EqualFold(strings.Trim(s, " \t*_`\"'.()[]"), NoAnswer)
}

// readUrgency reads the consensus urgency: a whole number 1…Levels (the
// scale the judge was shown), else a level the value names (its option
// letter, code or name); without such a field, a level the reply names as
// its answer in free text.
func (v *Verdict) readUrgency(raw json.RawMessage, s string, found bool, m answer.Method, set *answer.Set, t Task, body string) {
	if !found {
		p := kit.ReadPick(body, set, labels)
		if p.Answer == "" {
			v.Method, v.Reason, v.Err = p.Method, p.Reason, "no consensus urgency: "+p.Err
			return
		}
		v.Method, v.Urgency = p.Method, rankOf(p.Answer, t)
		return
	}
	var x float64
	var ok bool
	if raw != nil {
		x, _, ok = answer.RawNumber(raw)
	} else {
		x, _, ok = answer.LeadNumber(s)
	}
	if ok {
		if n := int(x); float64(n) == x && n >= 1 && n <= t.Levels {
			v.Method, v.Urgency = m, n-1
			return
		}
		v.Method, v.Reason = answer.MethodNone, answer.ReasonNotAnOption
		v.Err = fmt.Sprintf("consensus urgency %q is not a whole number from 1 to %d", kit.Truncate(s, 40), t.Levels)
		return
	}
	if l, reason := set.One(s); l != "" {
		v.Method, v.Urgency = m, rankOf(l, t)
		v.note("consensus urgency %q read as the level of option %s", kit.Truncate(s, 40), l)
		return
	} else if reason != "" {
		v.Reason = reason
	}
	if v.Reason == "" {
		v.Reason = answer.ReasonNoAnswer
	}
	v.Method, v.Err = answer.MethodNone, fmt.Sprintf("consensus urgency %q names no level", kit.Truncate(s, 40))
}

// rankOf is the urgency rank of option letter l (-1 when none).
func rankOf(l string, t Task) int {
	for i, x := range t.Letters {
		if x == l && i < len(t.Ranks) {
			return t.Ranks[i]
		}
	}
	return -1
}

// readAverage reads the stated average confidence: a number in [0,1], or a
// percentage converted with a note; else unknown with a note.
func (v *Verdict) readAverage(raw json.RawMessage, s string, found bool) {
	if !found {
		v.note("no average confidence")
		return
	}
	var x float64
	var kind answer.NumKind
	var ok bool
	if raw != nil {
		x, kind, ok = answer.RawNumber(raw)
	} else {
		x, kind, ok = answer.LeadNumber(s)
	}
	switch {
	case ok && kind == answer.NumPercent && x >= 0 && x <= 100:
		v.AverageConfidence = x / 100
		v.note("average confidence %q read as %.2f", kit.Truncate(s, 40), v.AverageConfidence)
	case ok && !math.IsNaN(x) && x >= 0 && x <= 1:
		v.AverageConfidence = x
	default:
		v.note("average confidence %q is not a number in [0,1]; recorded as unknown", kit.Truncate(s, 40))
	}
}

// readLow reads the is_low_confidence flag: a yes/no, else unread with a
// note (never "no").
func (v *Verdict) readLow(raw json.RawMessage, s string, found bool) {
	if !found {
		v.note("no low-confidence flag")
		return
	}
	var b, ok bool
	if raw != nil {
		b, ok = answer.RawBool(raw)
	} else {
		b, ok = answer.BoolFromText(s)
	}
	if !ok {
		v.note("low-confidence flag %q is not a yes or no; recorded as unread", kit.Truncate(s, 40))
		return
	}
	v.LowConfidence, v.LowConfidenceRead = b, true
}

func (v *Verdict) note(format string, args ...any) {
	v.Notes = append(v.Notes, fmt.Sprintf(format, args...))
}

package judge

import (
	"encoding/json"
	"fmt"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Judgement is the consensus judge's reply as read.
type Judgement struct {
	kit.Pick
	Reasoning string
	// AverageConfidence is the average the judge stated, in [0,1]; -1 when
	// none could be read.
	AverageConfidence float64
	// LowConfidence is the judge's low-confidence flag; LowConfidenceRead
	// says whether a yes/no flag was read at all.
	LowConfidence     bool
	LowConfidenceRead bool
	Notes             []string
}

var labels = map[string]string{
	"ANSWER": "answer", "FINAL ANSWER": "answer", "DECISION": "answer", "REASONING": "reasoning",
	"AVERAGE CONFIDENCE": "average", "MEAN CONFIDENCE": "average",
	"LOW CONFIDENCE": "low", "IS LOW CONFIDENCE": "low",
}

// ParseJudgement reads the judge's answer (an option of options, or none and
// why: never a guess), its stated average confidence (a number in [0,1],
// else unknown with a note) and its low-confidence flag (yes/no, else unread
// with a note).
func ParseJudgement(text string, options []answer.Option) Judgement {
	set := answer.NewSet(options)
	j := Judgement{Pick: kit.ReadPick(text, set, labels), AverageConfidence: -1}
	_, body := answer.Prepare(text)
	var avgRaw, lowRaw json.RawMessage
	avgSet, lowSet := false, false
	if o, _, ok := answer.DecodeObject(body, false); ok {
		avgRaw, avgSet = o.Get("averageconfidence", "meanconfidence", "avgconfidence")
		lowRaw, lowSet = o.Get("lowconfidence", "islowconfidence")
		j.Reasoning, _ = o.FirstString("reasoning", "rationale", "explanation")
	}
	sec := answer.Sections(body, labels)
	if j.Reasoning == "" {
		j.Reasoning = sec["reasoning"]
	}
	j.readAverage(avgRaw, sec, avgSet)
	j.readLow(lowRaw, sec, lowSet)
	j.Notes = append(set.Notes(), j.Notes...)
	return j
}

func (j *Judgement) readAverage(raw json.RawMessage, sec map[string]string, set bool) {
	text := answer.RawText(raw)
	var x float64
	var kind answer.NumKind
	var ok bool
	switch {
	case set:
		x, kind, ok = answer.RawNumber(raw)
	default:
		if text, set = sec["average"]; !set {
			return
		}
		x, kind, ok = answer.LeadNumber(answer.FirstLine(text))
	}
	switch {
	case ok && kind == answer.NumPercent && x >= 0 && x <= 100:
		j.AverageConfidence = x / 100
		j.note("average confidence %q read as %.2f", kit.Truncate(text, 40), j.AverageConfidence)
	case ok && x >= 0 && x <= 1:
		j.AverageConfidence = x
	default:
		j.note("average confidence %q is not a number in [0,1]; recorded as unknown", kit.Truncate(text, 40))
	}
}

func (j *Judgement) readLow(raw json.RawMessage, sec map[string]string, set bool) {
	var v, ok bool
	var text string
	switch {
	case set:
		v, ok = answer.RawBool(raw)
		text = answer.RawText(raw)
	default:
		if text, set = sec["low"]; !set {
			j.note("no low-confidence flag")
			return
		}
		v, ok = answer.BoolFromText(answer.TrimValue(answer.FirstLine(text)))
	}
	if !ok {
		j.note("low-confidence flag %q is not a yes or no; recorded as unread", kit.Truncate(text, 40))
		return
	}
	j.LowConfidence, j.LowConfidenceRead = v, true
}

func (j *Judgement) note(format string, args ...any) {
	j.Notes = append(j.Notes, fmt.Sprintf(format, args...))
}

package firstanswer

import (
	"encoding/json"
	"fmt"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Answer is one agent's first answer: the answer package's reading (ranking,
// confidence, reasoning, method, abstention reason, notes) and the risk and
// veto flag seed 004's rule reads.
type Answer struct {
	answer.Answer
	// Risk is the stated risk in [0,1], -1 when none could be read.
	Risk float64
	// Veto is the veto flag; VetoRead says whether a flag was read at all
	// (an answer without a readable flag is a parse failure for the veto rule).
	Veto     bool
	VetoRead bool
}

var labels = map[string]string{
	"REASONING": "reasoning", "RANKING": "ranking", "FINAL RANKING": "ranking", "CONFIDENCE": "confidence",
	"ANSWER": "answer", "FACTS": "facts", "RISK": "risk", "VETO": "veto",
}

// Parse reads a first answer. The ranking, confidence and reasoning are
// answer.Parse's; the risk and the veto flag come from the JSON object's
// "risk" and "veto" keys, else from RISK: and VETO: lines. A risk outside
// [0,1] is unknown (-1) with a note, never clamped ("35%" converts, with a
// note); a veto flag that is missing or not a yes/no is unread, with a note,
// never taken as "no".
func Parse(text string, options []answer.Option) Answer {
	a := Answer{Answer: answer.Parse(text, options), Risk: -1}
	_, body := answer.Prepare(text)
	var riskRaw, vetoRaw json.RawMessage
	var riskText, vetoText string
	riskSet, vetoSet := false, false
	if o, _, ok := answer.DecodeObject(body, false); ok {
		riskRaw, riskSet = o.Get("risk", "riskscore", "harmrisk")
		vetoRaw, vetoSet = o.Get("veto", "vetoflag")
	}
	if !riskSet || !vetoSet {
		sec := answer.Sections(body, labels)
		if !riskSet {
			riskText, riskSet = sec["risk"]
		}
		if !vetoSet {
			vetoText, vetoSet = sec["veto"]
		}
	}
	a.readRisk(riskRaw, riskText, riskSet)
	a.readVeto(vetoRaw, vetoText, vetoSet)
	return a
}

// readRisk reads the risk from a JSON value or a labelled value.
func (a *Answer) readRisk(raw json.RawMessage, text string, set bool) {
	if !set {
		return
	}
	var x float64
	var kind answer.NumKind
	var ok bool
	if raw != nil {
		x, kind, ok = answer.RawNumber(raw)
		text = answer.RawText(raw)
	} else {
		x, kind, ok = answer.LeadNumber(answer.FirstLine(text))
	}
	switch {
	case !ok:
		a.note("risk %q is not a number; recorded as unknown", short(text))
	case kind == answer.NumPercent && x >= 0 && x <= 100:
		a.Risk = x / 100
		a.note("risk %q read as %.2f", short(text), a.Risk)
	case x >= 0 && x <= 1:
		a.Risk = x
	default:
		a.note("risk %q is outside [0,1]; recorded as unknown, not rescaled", short(text))
	}
}

// readVeto reads the veto flag from a JSON value or a labelled value.
func (a *Answer) readVeto(raw json.RawMessage, text string, set bool) {
	if !set {
		a.note("no veto flag")
		return
	}
	var v, ok bool
	if raw != nil {
		v, ok = answer.RawBool(raw)
		text = answer.RawText(raw)
	} else {
		v, ok = answer.BoolFromText(answer.TrimValue(answer.FirstLine(text)))
	}
	if !ok {
		a.note("veto flag %q is not a yes or no; recorded as unread", short(text))
		return
	}
	a.Veto, a.VetoRead = v, true
}

func (a *Answer) note(format string, args ...any) {
	a.Notes = append(a.Notes, fmt.Sprintf(format, args...))
}

// short bounds a value quoted in a note.
func short(s string) string { return kit.Truncate(s, 40) }

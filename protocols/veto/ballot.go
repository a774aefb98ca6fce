package veto

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// What seed 004's rule adds to the shared first answer (firstanswer.Extra):
// the instruction to judge the risk and to raise a veto, and the two fields
// after the shared ones. The shared request itself is unchanged; veto's
// first answer is that request with these additions.
var ballotExtra = firstanswer.Extra{
	Context: "\nAlso judge the risk of committing to your first choice: how likely it is to be a harmful error. " +
		"Raise a veto when the team should not commit to any answer, for example when that risk is 0.5 or more.\n",
	Fields: []firstanswer.Field{
		{Name: "risk", Type: kit.Number, JSON: "<0 to 1>", Label: "RISK", Text: "<0 to 1>"},
		{Name: "veto", Type: kit.Boolean, JSON: "<true or false>", Label: "VETO", Text: "<yes or no>"},
	},
}

// Ballot is one agent's first answer with the risk and veto flag seed 004's
// rule reads.
type Ballot struct {
	answer.Answer
	// Risk is the stated risk in [0,1], -1 when none could be read.
	Risk float64
	// Veto is the veto flag; VetoRead says whether a flag was read at all
	// (an answer without a readable flag is a parse failure for the rule).
	Veto     bool
	VetoRead bool
}

// ask asks agents 0…n−1 for their ballots at once and records how each was
// read (in agent order).
func ask(ctx context.Context, s *kit.Session, n int, temp float64) ([]Ballot, error) {
	out := make([]Ballot, n)
	err := kit.Parallel(ctx, n, func(ctx context.Context, i int) error {
		c, err := firstanswer.CallWith(s, i, temp, ballotExtra)
		if err != nil {
			return err
		}
		text, err := s.Do(ctx, c)
		if err != nil {
			return err
		}
		out[i] = ParseBallot(text, s.Options)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, b := range out {
		s.NoteAnswer(kit.KindFirst, 0, i, b.Answer)
	}
	return out, nil
}

var labels = map[string]string{
	"REASONING": "reasoning", "RANKING": "ranking", "FINAL RANKING": "ranking", "CONFIDENCE": "confidence",
	"ANSWER": "answer", "FACTS": "facts", "RISK": "risk", "VETO": "veto",
}

// ParseBallot reads a ballot. The ranking, confidence and reasoning are
// answer.Parse's; the risk and the veto flag come from the JSON object's
// "risk" and "veto" keys, else from RISK: and VETO: lines. A risk outside
// [0,1] is unknown (-1) with a note, never clamped ("35%" converts, with a
// note); a veto flag that is missing or not a yes/no is unread, with a note,
// never taken as "no".
func ParseBallot(text string, options []answer.Option) Ballot {
	a := Ballot{Answer: answer.Parse(text, options), Risk: -1}
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
func (a *Ballot) readRisk(raw json.RawMessage, text string, set bool) {
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
func (a *Ballot) readVeto(raw json.RawMessage, text string, set bool) {
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

func (a *Ballot) note(format string, args ...any) {
	a.Notes = append(a.Notes, fmt.Sprintf(format, args...))
}

// short bounds a value quoted in a note.
func short(s string) string { return kit.Truncate(s, 40) }

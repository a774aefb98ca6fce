package veto

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Ballot is one agent's reply in a veto round: seed 004's AgentDecision
// (confidence, risk, decision, reasoning) on top of the shared first
// answer's ranking.
type Ballot struct {
	// Answer is the reply read by answer.Parse: ranking, confidence in
	// [0,1] (-1 when unread), reasoning.
	answer.Answer
	// Decision is the ballot: an option letter, aggregator.Refuse or
	// aggregator.Veto; "" when it could not be read.
	Decision string
	// Risk is the stated risk in [0,1]; -1 when it could not be read.
	Risk float64
	// Read is how the ballot was read (json, json_embedded, json_partial,
	// labelled_lines); answer.MethodNone when it is unreadable: its
	// decision, confidence or risk could not be read (the seed's agent
	// "defaults to REFUSE" when its output fails to parse or lacks a key),
	// with Why saying which.
	Read answer.Method
	Why  string
}

// Readable reports whether the ballot could be read.
func (b Ballot) Readable() bool { return b.Read != answer.MethodNone }

// The seed's parse-failure ballot ("Failed to analyze - defaulting to
// REFUSE for safety"): REFUSE with confidence 50 and risk 75 (of 100).
const (
	failConfidence = 0.50
	failRisk       = 0.75
)

var ballotLabels = map[string]string{
	"REASONING": "reasoning", "RANKING": "ranking", "FINAL RANKING": "ranking", "CONFIDENCE": "confidence",
	"ANSWER": "answer", "FACTS": "facts", "DIAGNOSIS": "diagnosis", "SPECIALTY": "specialty",
	"RISK": "risk", "DECISION": "decision", "FINAL DECISION": "decision", "BALLOT": "decision", "FINAL BALLOT": "decision",
	"VOTE": "decision", "VETO": "veto",
}

// ParseBallot reads a ballot. The ranking, confidence and reasoning are
// answer.Parse's; the decision and the risk come from the JSON object's
// "decision" and "risk" keys, else from DECISION: and RISK: lines. A
// decision is an option (by letter, or by text or level name as
// answer.Set.One reads it), REFUSE or VETO (their leading word, any case);
// anything else is unread, never guessed from the ranking. A risk outside
// [0,1] is unread ("35%" converts, with a note), never rescaled.
func ParseBallot(text string, options []answer.Option) Ballot {
	b := Ballot{Answer: answer.Parse(text, options), Risk: -1, Read: answer.MethodNone}
	_, body := answer.Prepare(text)
	var decRaw, riskRaw json.RawMessage
	var decText, riskText string
	decSet, riskSet := false, false
	method := answer.MethodLabelled
	if o, m, ok := answer.DecodeObject(body, false); ok {
		decRaw, decSet = o.Get("decision", "finaldecision", "ballot", "vote")
		riskRaw, riskSet = o.Get("risk", "riskscore", "harmrisk")
		if decSet {
			method = m
		}
	}
	if !decSet || !riskSet {
		sec := answer.Sections(body, ballotLabels)
		if !decSet {
			decText, decSet = sec["decision"]
		}
		if !riskSet {
			riskText, riskSet = sec["risk"]
		}
	}
	b.readRisk(riskRaw, riskText, riskSet)
	b.readDecision(decRaw, decText, decSet, options)
	switch {
	case b.Decision == "":
		b.Why = "no readable decision (an option letter, REFUSE or VETO)"
	case b.Confidence < 0:
		b.Why = "no readable confidence"
	case b.Risk < 0:
		b.Why = "no readable risk"
	default:
		b.Read = method
	}
	return b
}

// readDecision reads the decision from a JSON value or a labelled value.
func (b *Ballot) readDecision(raw json.RawMessage, text string, set bool, options []answer.Option) {
	if !set {
		b.note("no decision")
		return
	}
	if raw != nil {
		s, ok := answer.RawString(raw)
		if !ok {
			b.note("decision %s is not a string", short(answer.RawText(raw)))
			return
		}
		text = s
	}
	v := answer.TrimValue(answer.FirstLine(text))
	switch answer.LeadingWord(strings.TrimLeft(v, " \t*_\"'`[(")) {
	case "refuse", "refused", "refusal", "refuses":
		b.Decision = aggregator.Refuse
		return
	case "veto", "vetoed", "vetoes":
		b.Decision = aggregator.Veto
		return
	}
	letter, reason := answer.NewSet(options).One(v)
	if letter == "" {
		b.note("decision %q is not an option, REFUSE or VETO (%s); recorded as unread", short(v), reason)
		return
	}
	b.Decision = letter
	if first := b.First(); first != "" && first != letter {
		b.note("decision %s differs from the ranking's first choice %s", letter, first)
	}
}

// readRisk reads the risk from a JSON value or a labelled value.
func (b *Ballot) readRisk(raw json.RawMessage, text string, set bool) {
	if !set {
		b.note("no risk")
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
		b.note("risk %q is not a number; recorded as unread", short(text))
	case kind == answer.NumPercent && x >= 0 && x <= 100:
		b.Risk = x / 100
		b.note("risk %q read as %.2f", short(text), b.Risk)
	case kind != answer.NumPercent && x >= 0 && x <= 1:
		b.Risk = x
	default:
		b.note("risk %q is outside [0,1]; recorded as unread, not rescaled", short(text))
	}
}

func (b *Ballot) note(format string, args ...any) {
	b.Notes = append(b.Notes, fmt.Sprintf(format, args...))
}

// short bounds a value quoted in a note.
func short(s string) string { return kit.Truncate(s, 40) }

// Counted is a ballot as seed 004's rule counts it for the agent with the
// given role: an unreadable ballot is the seed's parse-failure ballot
// (REFUSE, confidence 0.50, risk 0.75); a VETO from any agent but the
// Safety agent is that agent's REFUSE (only the Safety agent may veto; the
// seed's own consequence of a veto is REFUSE, and REFUSE is what an
// out-of-format ballot counts as). note says why a ballot was not counted
// as cast ("" when it was).
func (b Ballot) Counted(role string) (v aggregator.VetoBallot, note string) {
	switch {
	case !b.Readable():
		return aggregator.VetoBallot{Choice: aggregator.Refuse, Risk: failRisk, Confidence: failConfidence},
			"unreadable ballot (" + b.Why + "): the seed's parse-failure ballot, REFUSE with confidence 50 and risk 75"
	case b.Decision == aggregator.Veto && role != RoleSafety:
		return aggregator.VetoBallot{Choice: aggregator.Refuse, Risk: b.Risk, Confidence: b.Confidence},
			"cast VETO, which only the Safety agent may: counted as REFUSE"
	case b.Decision == aggregator.Veto:
		return aggregator.VetoBallot{Choice: aggregator.Refuse, Veto: true, Risk: b.Risk, Confidence: b.Confidence}, ""
	}
	return aggregator.VetoBallot{Choice: b.Decision, Risk: b.Risk, Confidence: b.Confidence}, ""
}

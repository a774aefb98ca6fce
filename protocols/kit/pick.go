package kit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/answer"
)

// Pick is a decider's answer (the judge's, the chairman's): one option, or
// none and why. Nothing is ever guessed: an answer that is not an option, or
// text that commits to different options, is no pick.
type Pick struct {
	Answer string // an option letter, or "" with Reason and Err set
	Method answer.Method
	Reason string // an answer.Reason constant when Answer is ""
	Err    string
}

// PickKeys are the JSON keys and labels a decider's answer is read from.
var PickKeys = []string{"answer", "finalanswer", "decision", "choice", "consensusanswer"}

// ReadPick reads the option a decider's reply chooses: the "answer" field of
// its JSON object, else its ANSWER line (labels maps its labels, among them
// "ANSWER" → "answer"), else the reply read as free text (answer.Set.Read:
// explicit commitments, ambiguity → no pick).
func ReadPick(text string, set *answer.Set, labels map[string]string) Pick {
	if set.Len() == 0 {
		return Pick{Method: answer.MethodNone, Reason: answer.ReasonNoOptions, Err: "the question has no option letters"}
	}
	norm, body := answer.Prepare(text)
	if strings.TrimSpace(norm) == "" {
		return Pick{Method: answer.MethodNone, Reason: answer.ReasonEmpty, Err: "empty response"}
	}
	if p, ok := pickFromJSON(body, set); ok {
		return p
	}
	if p, ok := pickFromLabel(body, set, labels); ok {
		return p
	}
	return pickFromText(body, set)
}

func notOption(l string, m answer.Method, set *answer.Set) Pick {
	return Pick{Method: m, Reason: answer.ReasonNotAnOption, Err: fmt.Sprintf("answer %s is not one of the options %s", l, set.List())}
}

// pickFromJSON reads the answer field of a JSON object (ok=false when there
// is no object, no answer field, or it names no letter at all).
func pickFromJSON(body string, set *answer.Set) (Pick, bool) {
	o, m, ok := answer.DecodeObject(body, false)
	if !ok {
		return Pick{}, false
	}
	s, ok := o.FirstString(PickKeys...)
	if !ok {
		return Pick{}, false
	}
	if l, reason := set.One(s); l != "" {
		return Pick{Answer: l, Method: m}, true
	} else if reason == answer.ReasonAmbiguous {
		return Pick{Method: answer.MethodNone, Reason: reason, Err: fmt.Sprintf("answer %q names no single option", Truncate(s, 60))}, true
	}
	if l := set.NotOption(s); l != "" {
		return notOption(l, m, set), true
	}
	return Pick{}, false
}

// pickFromLabel reads an ANSWER line naming one option; answer lines
// naming different options are ambiguous (no pick).
func pickFromLabel(body string, set *answer.Set, labels map[string]string) (Pick, bool) {
	v, ok := answer.Sections(body, labels)["answer"]
	if !ok {
		return Pick{}, false
	}
	if ls := answerLines(body, set, labels); len(ls) > 1 {
		return Pick{Method: answer.MethodNone, Reason: answer.ReasonAmbiguous, Err: "answer lines name " + JoinAnd(ls)}, true
	}
	l, ok := set.ReadLead(v)
	switch {
	case !ok || l.Alternatives:
		return Pick{}, false
	case l.NotOption != "":
		return notOption(l.NotOption, answer.MethodLabelled, set), true
	}
	return Pick{Answer: l.Letter, Method: answer.MethodLabelled}, true
}

// pickFromText reads the reply as free text, or says why it names no option.
func pickFromText(body string, set *answer.Set) Pick {
	v := set.Read(body)
	if len(v.Ranking) > 0 {
		return Pick{Answer: v.Ranking[0], Method: v.Method}
	}
	reason := v.Reason
	if reason == "" && answer.Refusal(body) {
		reason = answer.ReasonRefusal
	}
	if reason == "" {
		reason = answer.ReasonNoAnswer
	}
	err := "no answer among the options " + set.List() + " found"
	if v.Err != "" {
		err = v.Err
	}
	return Pick{Method: answer.MethodNone, Reason: reason, Err: err}
}

// answerLines returns the distinct options the answer-labelled lines of
// body name, in the order named.
func answerLines(body string, set *answer.Set, labels map[string]string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		head, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		label := strings.ToUpper(strings.Join(strings.Fields(strings.Trim(head, "*#_ \t")), " "))
		if labels[label] != "answer" {
			continue
		}
		if l, ok := set.ReadLead(val); ok && l.Letter != "" && !slices.Contains(out, l.Letter) {
			out = append(out, l.Letter)
		}
	}
	return out
}

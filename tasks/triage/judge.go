package triage

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// The diagnosis judge (--diagnosis-judge) is one extra call per triage
// question whose team stated a diagnosis and whose dataset gives one: after
// the protocol has decided, the model is shown both diagnoses and asked
// whether they name the same condition. It is a call of its own kind
// (phase "score", kind "diagnosis_judge", agent -1), in calls.parquet and the
// row's calls and tokens like any other; the protocol never sees the gold
// diagnosis, only this call does. Its verdict is read from a "MATCH: yes" or
// "MATCH: no" line (the last one; a reply that is only "yes" or "no" counts
// too); a reply that says neither, or both, leaves the normalised match in
// place (diagnosis_method "normalized") and the call's parse_method "none".
const (
	PhaseScore            = "score"
	KindDiagnosisJudge    = "diagnosis_judge"
	MethodLLMJudge        = "llm_judge"
	diagnosisJudgeOrder   = 1 << 30 // after every protocol call
	diagnosisJudgeSystem  = "You are a physician grading answers to clinical case vignettes. You compare a stated diagnosis with the correct one and answer with a single line: MATCH: yes or MATCH: no."
	diagnosisJudgeUserFmt = "Correct diagnosis: %s\nStated diagnosis: %s\n\nDoes the stated diagnosis name the same condition as the correct diagnosis, or one of the alternatives the correct diagnosis lists as acceptable? A more general or a different condition does not match. Answer with one line: MATCH: yes or MATCH: no."
)

// JudgeDiagnosis (the task's Judge) asks the model whether the row's stated
// diagnosis matches the gold one and records its verdict in the row; it
// returns the parse note of the call. It does nothing (asked false) when the
// row has no diagnosis or no gold diagnosis. A model-call error is returned,
// wrapped as the diagnosis judge's: the question fails like on any other
// call.
func JudgeDiagnosis(ctx context.Context, c llm.Client, u protocol.Unit, q qa.Question, r *results.QuestionRow) (protocol.ParseNote, bool, error) {
	if r.ItemKind != qa.KindTriage || strings.TrimSpace(r.Diagnosis) == "" || strings.TrimSpace(r.GoldDiagnosis) == "" {
		return protocol.ParseNote{}, false, nil
	}
	meta := llm.Meta{QuestionID: q.ID, Arm: u.Arm, Repeat: u.Repeat, Phase: PhaseScore, Kind: KindDiagnosisJudge,
		Order: diagnosisJudgeOrder, Agent: -1, Role: "Diagnosis judge"}
	req := llm.Request{
		Model: u.Model,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: diagnosisJudgeSystem},
			{Role: llm.RoleUser, Content: fmt.Sprintf(diagnosisJudgeUserFmt, oneLine(r.GoldDiagnosis), oneLine(r.Diagnosis))}},
		Seed: llm.DeriveSeed(u.RunSeed, u.Repeat, q.ID, meta),
		Meta: meta,
	}
	resp, err := c.Chat(ctx, req)
	if err != nil {
		return protocol.ParseNote{}, true, fmt.Errorf("diagnosis judge call: %w", err)
	}
	note := protocol.ParseNote{Kind: KindDiagnosisJudge, Agent: -1}
	match, ok := ReadVerdict(resp.Text)
	if !ok {
		note.Method, note.Err, note.Reason = answer.MethodNone, "no single MATCH: yes or MATCH: no in the judge's reply", answer.ReasonNoAnswer
		return note, true, nil
	}
	note.Method = answer.MethodAnswerLine
	r.DiagnosisMatch, r.DiagnosisMethod = &match, MethodLLMJudge
	return note, true, nil
}

// oneLine keeps a free text on one line, so it cannot forge a MATCH line of
// the prompt.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var reVerdict = regexp.MustCompile(`(?im)^[ \t*_>#-]*match[ \t*_]*:[ \t*_]*(yes|no)\b`)

// ReadVerdict reads the diagnosis judge's verdict: the last "MATCH: yes|no"
// line (markdown emphasis allowed), or a reply that is only "yes" or "no".
// ok is false when there is none, or when the MATCH lines disagree.
func ReadVerdict(text string) (match, ok bool) {
	ms := reVerdict.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		switch strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!*_ ")) {
		case "yes":
			return true, true
		case "no":
			return false, true
		}
		return false, false
	}
	first := strings.ToLower(ms[0][1])
	for _, m := range ms[1:] {
		if strings.ToLower(m[1]) != first {
			return false, false
		}
	}
	return first == "yes", true
}

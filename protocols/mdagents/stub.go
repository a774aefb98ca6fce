package mdagents

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// Stub is a model that answers every call kind of mdagents with a typical
// well-formed answer, for dry runs: the router sends a third of the
// questions down each path (by a hash of the question id); the recruiters
// name 5 experts and 3 teams of 3; every expert talks in the discussion's
// first turn (to the next expert) and nobody in the second, so the
// discussion ends there. long asks for answers of a language model's length.
// Usage counts characters / 4, as the simulator does.
func Stub(long bool) llm.Client { return stub{long: long} }

type stub struct{ long bool }

const (
	stubShort = "The key findings point to A; B is the closest alternative."
	stubLong  = "The presentation, the timeline and the key laboratory finding point to this option, " +
		"while the alternatives explain only part of the picture. The second option is the closest " +
		"alternative but does not account for the main finding. The question asks for the most likely " +
		"answer, and the classic association supports this choice over the rest."
)

func (m stub) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r := stubShort
	if m.long {
		r = stubLong
	}
	reason := `"reasoning":"` + r + `"`
	var text string
	switch req.Meta.Kind {
	case KindRoute:
		h := fnv.New32a()
		h.Write([]byte(req.Meta.QuestionID))
		text = `{` + reason + `,"complexity":"` + RouteNames[h.Sum32()%3] + `"}`
	case KindReason:
		text = `{` + reason + `}`
	case KindRecruit:
		var es []string
		for _, e := range []string{"Cardiologist", "Pulmonologist", "Internist", "Radiologist", "Pathologist"} {
			es = append(es, `{"role":"`+e+`","description":"Specializes in the findings of the case.","hierarchy":"Independent"}`)
		}
		text = `{` + reason + `,"experts":[` + strings.Join(es, ",") + `]}`
	case KindTeams:
		var ts []string
		for _, t := range []string{"Initial Assessment Team (IAT)", "Diagnostic Evidence Team (DET)", "Final Review and Decision Team (FRDT)"} {
			ts = append(ts, `{"name":"`+t+`","members":[{"role":"Internist","lead":true,"expertise":"Leads the team."},`+
				`{"role":"Radiologist","lead":false,"expertise":"Reads the imaging."},{"role":"Pathologist","lead":false,"expertise":"Reads the laboratory."}]}`)
		}
		text = `{` + reason + `,"teams":[` + strings.Join(ts, ",") + `]}`
	case KindParticipate:
		text = fmt.Sprintf(`{%s,"talk":%t}`, reason, req.Meta.Turn == 1)
	case KindChoose:
		text = fmt.Sprintf(`{%s,"experts":[%d]}`, reason, (req.Meta.Agent+1)%Experts+1)
	case KindDelivery:
		text = `{` + reason + `,"investigations":"` + r + `"}`
	case KindInvestigate:
		text = `{` + reason + `,"investigation":"` + r + `"}`
	default: // the answers: basic, opinion, message, final, moderator, report, decision
		text = `{` + reason + `,"answer":"A"}`
	}
	n := 0
	for _, msg := range req.Messages {
		n += len(msg.Content)
	}
	return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: (n+3)/4 + 4*len(req.Messages), CompletionTokens: (len(text) + 3) / 4}, Attempts: 1}, nil
}

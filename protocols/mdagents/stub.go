package mdagents

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Stub is a model that answers every call kind of mdagents with a typical
// well-formed answer, for dry runs: the router sends a third of the
// questions down each path (by a hash of the question id); the recruiters
// name 5 experts and 3 teams of 3; every expert talks in the discussion's
// first turn (to the next expert) and nobody in the second, so the
// discussion ends there. long asks for answers of a language model's length.
// Usage as kit.StubResponse counts it.
func Stub(long bool) llm.Client { return stub{long: long} }

type stub struct{ long bool }

func (m stub) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r := kit.StubReasoning(m.long)
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
	return kit.StubResponse(req, text), nil
}

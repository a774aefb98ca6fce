package teamwork

import (
	"context"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Stub is a model that answers each call kind with a typical well-formed
// answer, for dry runs (expected calls and tokens without calling a model).
// The simulator writes short answers; language models write about four
// times as much: long selects those.
func Stub(long bool) llm.Client { return stubModel{long: long} }

type stubModel struct{ long bool }

const (
	shortReasoning = "From my view the findings point to A; B is the closest alternative."
	// longReasoning is as long as a model's typical reasoning; it avoids
	// the words that make the answer reader search a text for a stated
	// answer (answer, choice, option), which would cost a dry run's CPU
	// without changing its counts.
	longReasoning = "The presentation, the timeline and the key laboratory finding point to this entity, " +
		"while the alternatives explain only part of the picture. The second entity is the closest " +
		"alternative but does not account for the main finding. The question asks for the most likely " +
		"result, and the classic association supports this entity over the rest."
	fact = "Finding 3 of the case supports the leading diagnosis"
)

func (m stubModel) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r := shortReasoning
	if m.long {
		r = longReasoning
	}
	var text string
	switch req.Meta.Kind {
	case KindAssess:
		text = `{"analysis":"` + r + `","agents":3}`
	case KindRecruit:
		text = `{"roles":[{"name":"Internal Medicine","focus":"overall assessment"},{"name":"Cardiology","focus":"cardiac causes"},{"name":"Neurology","focus":"neurological causes"},{"name":"Pharmacology","focus":"drug effects"}]}`
	case KindSynthesize:
		text = `{"facts":["` + fact + `","` + fact + `","` + fact + `"],"report":"` + r + `","quality":[{"agent":1,"score":0.71},{"agent":2,"score":0.75},{"agent":3,"score":0.43},{"agent":4,"score":0.6}]}`
	case KindMediate:
		text = `{"summary":"` + r + `","leaning":"A"}`
	case KindMonitorSelect:
		text = `{"concern":"` + r + `","agent":1}`
	case KindMonitorRate:
		text = `{"debated_point":"` + r + `","quality":0.7}`
	case KindTieBreak:
		text = `{"reasoning":"` + r + `","answer":"A"}`
	case KindMonitorRespond:
		text = `{"response":"` + r + `","accepts":false,"ranking":["A","B","D","C"],"confidence":0.62}`
	case kit.KindFirst: // the initial prediction: the shared first answer, facts with SMM
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.62`
		if asksFacts(req) {
			text += `,"facts":["` + fact + `","` + fact + `"]`
		}
		text += "}"
	default: // discuss, final
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.62}`
	}
	return kit.StubResponse(req, text), nil
}

// asksFacts reports whether a first answer asks for facts (SMM): in its
// schema, or as a FACTS line of its format.
func asksFacts(req llm.Request) bool {
	if req.Schema != nil {
		return strings.Contains(string(req.Schema.Schema), `"facts"`)
	}
	return len(req.Messages) > 0 && strings.Contains(req.Messages[len(req.Messages)-1].Content, "\nFACTS:")
}

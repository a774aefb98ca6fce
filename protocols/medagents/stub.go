package medagents

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Stub answers every call kind of medagents with a typical well-formed
// answer, for dry runs: in the first consultation round the first expert
// votes no (so one advice and one revision are made), every other vote is
// yes — 27 calls with the defaults. long asks for answers of a language
// model's length. Usage counts characters / 4, as the simulator does.
func Stub(long bool) llm.Client { return stub{long: long} }

type stub struct{ long bool }

var fieldsLine = regexp.MustCompile(`(?m)^NUMBER OF FIELDS: (\d+)`)

const (
	stubShort = "The findings point to the first option; the second is the closest alternative."
	stubLong  = "The presentation, the timeline and the key laboratory finding point to the first option, " +
		"while the alternatives explain only part of the picture. The second option is the closest " +
		"alternative but does not account for the main finding, and the remaining options conflict with " +
		"the examination. The classic association supports the first option over the rest."
)

func (m stub) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	t := stubShort
	if m.long {
		t = stubLong
	}
	var text string
	switch req.Meta.Kind {
	case KindQuestionDomains, KindOptionDomains:
		n := 1
		for _, msg := range req.Messages {
			if mm := fieldsLine.FindStringSubmatch(msg.Content); mm != nil {
				n, _ = strconv.Atoi(mm[1])
			}
		}
		names := make([]string, n)
		for i := range names {
			names[i] = strconv.Quote(stubFields[i%len(stubFields)])
		}
		text = `{"fields":[` + strings.Join(names, ",") + `]}`
	case KindQuestionAnalysis, KindOptionAnalysis:
		text = `{"analysis":"` + t + `"}`
	case KindReport:
		text = `{"key_knowledge":"` + t + `","total_analysis":"` + t + `"}`
	case KindVote:
		vote := "yes"
		if req.Meta.Turn == 1 && req.Meta.Agent == 0 {
			vote = "no"
		}
		text = `{"vote":"` + vote + `"}`
	case KindAdvice:
		text = `{"revisions":"` + t + `"}`
	case KindRevision:
		text = `{"total_analysis":"` + t + `"}`
	case KindFinal:
		text = `{"answer":"A"}`
	default:
		return llm.Response{}, &llm.Error{Class: llm.ClassBadRequest, Err: fmt.Errorf("medagents stub: unknown call kind %q", req.Meta.Kind)}
	}
	return kit.StubResponse(req, text), nil
}

// stubFields are the stub's domains.
var stubFields = []string{"Internal Medicine", "Cardiology", "Pharmacology", "Emergency Medicine", "Pathology"}

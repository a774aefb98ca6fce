package kit

import (
	"context"
	"regexp"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// Stub is a model that answers every call kind of the protocols here with a
// typical well-formed answer, for dry runs (expected calls and tokens without
// calling a model). long asks for answers of a language model's length
// rather than the simulator's. Usage counts characters / 4, as the
// simulator does.
func Stub(long bool) llm.Client { return stub{long: long} }

type stub struct{ long bool }

const (
	stubShort = "The key findings point to A; B is the closest alternative."
	stubLong  = "The presentation, the timeline and the key laboratory finding point to this option, " +
		"while the alternatives explain only part of the picture. The second option is the closest " +
		"alternative but does not account for the main finding. The question asks for the most likely " +
		"answer, and the classic association supports this choice over the rest."
)

var labelLine = regexp.MustCompile(`(?m)^POSITION response ([A-Za-z]+):`)

func (m stub) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r := StubReasoning(m.long)
	var text string
	switch req.Meta.Kind {
	case KindZeroShot:
		text = `{"answer":"A"}`
	case KindFirst:
		// the shared first answer; the risk and the flag only a veto ballot asks for
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.72`
		if asksVeto(req) {
			text += `,"risk":0.25,"veto":false`
		}
		text += "}"
	case KindRevise:
		text = `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.74}`
	case KindPeerReview:
		text = stubReview(req, r)
	case KindChairman:
		text = `{"answer":"A","reasoning":"` + r + `","contributors":[{"id":1,"weight":0.6,"reason":"` + r + `"},{"id":2,"weight":0.4,"reason":"` + r + `"}]}`
	case KindJudge:
		// seed 003's output object; a triage judge reads consensus_urgency.
		text = `{"reasoning":"` + r + `","consensus_answer":"A","consensus_urgency":2,"average_confidence":0.72,"is_low_confidence":false}`
	}
	return StubResponse(req, text), nil
}

// stubReview reviews every label the prompt shows, ranking them in the
// order shown.
func stubReview(req llm.Request, r string) string {
	var labels []string
	for _, msg := range req.Messages {
		for _, m := range labelLine.FindAllStringSubmatch(msg.Content, -1) {
			labels = append(labels, `"Response `+m[1]+`"`)
		}
	}
	var reviews []string
	for _, l := range labels {
		reviews = append(reviews, `{"response":`+l+`,"strengths":"`+r+`","weaknesses":"`+r+`"}`)
	}
	return `{"reviews":[` + strings.Join(reviews, ",") + `],"final_ranking":[` + strings.Join(labels, ",") + `]}`
}

// asksVeto reports whether a first answer is a veto ballot: its schema or
// its labelled lines ask for the flag.
func asksVeto(req llm.Request) bool {
	if req.Schema != nil {
		return strings.Contains(string(req.Schema.Schema), `"veto"`)
	}
	return len(req.Messages) > 0 && strings.Contains(req.Messages[len(req.Messages)-1].Content, "\nVETO:")
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// StubReasoning is the dry-run stubs' reasoning: the simulator's length, or
// a language model's typical length when long.
func StubReasoning(long bool) string {
	if long {
		return stubLong
	}
	return stubShort
}

// StubResponse is a dry-run stub's answer text with the usage every stub
// and the simulator count: prompt characters / 4 plus 4 per message, and
// answer characters / 4, rounded up.
func StubResponse(req llm.Request, text string) llm.Response {
	n := 0
	for _, msg := range req.Messages {
		n += len(msg.Content)
	}
	return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: ceilDiv(n, 4) + 4*len(req.Messages), CompletionTokens: ceilDiv(len(text), 4)}, Attempts: 1}
}

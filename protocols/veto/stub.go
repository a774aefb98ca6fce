package veto

import (
	"context"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// stub is the dry-run model: veto's ballot kinds answered with a typical
// well-formed ballot (a vote for A), every other kind by kit.Stub. Usage
// counts characters / 4, as kit.Stub and the simulator do.
func stub(long bool) llm.Client { return stubClient{inner: kit.Stub(long), long: long} }

type stubClient struct {
	inner llm.Client
	long  bool
}

const (
	stubShort = "The key findings point to A; B is the closest alternative, and committing to A carries little risk."
	stubLong  = "The presentation, the timeline and the key laboratory finding point to this option, " +
		"while the alternatives explain only part of the picture. The second option is the closest " +
		"alternative but does not account for the main finding. From my role on the panel, committing " +
		"the team to this answer is useful and well supported, and the risk of harm from acting on it is low."
)

func (m stubClient) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Meta.Kind != KindDebate && req.Meta.Kind != KindBallot {
		return m.inner.Chat(ctx, req)
	}
	r := stubShort
	if m.long {
		r = stubLong
	}
	text := `{"reasoning":"` + r + `","ranking":["A","B","D","C"],"confidence":0.72,"risk":0.2,"decision":"A"}`
	return kit.StubResponse(req, text), nil
}

// Package protocoltest holds protocols for tests of the protocol contract:
// AlwaysFirst is the smallest protocol there is, and adding it to a registry
// is all it takes to run it (see runner's TestAddingAProtocol).
package protocoltest

import (
	"context"
	"fmt"
	"io"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
)

// AlwaysFirst asks the model once and then answers the first option,
// whatever the model said. Its only arm spec is "always-first".
var AlwaysFirst = &protocol.Protocol{
	Name: "always-first",
	Doc:  "One call per question whose reply is ignored; the decision is always the first option (a floor for tests).",
	Parse: func(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
		if spec != "always-first" {
			return nil, false, nil
		}
		return alwaysFirst{temp: s.AgentTemp}, true, nil
	},
	Presets: []string{"always-first"},
	Accounting: func(w io.Writer) error {
		_, err := fmt.Fprintln(w, "always-first: 1 call per question")
		return err
	},
	Stub: func(bool) llm.Client {
		return llm.ClientFunc(func(context.Context, llm.Request) (llm.Response, error) {
			return llm.Response{Text: "A", Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 1}, Attempts: 1}, nil
		})
	},
}

type alwaysFirst struct{ temp float64 }

func (alwaysFirst) Protocol() *protocol.Protocol { return AlwaysFirst }

func (alwaysFirst) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: "always-first", Protocol: AlwaysFirst.Name, AgentPolicy: "fixed:1"}
}

func (alwaysFirst) Calls(int) (int, int) { return 1, 0 }

func (a alwaysFirst) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	meta := llm.Meta{QuestionID: item.ID, Arm: u.Arm, Repeat: u.Repeat, Phase: "answer", Kind: "first", Agent: 0, Role: "solo"}
	req := llm.Request{Model: u.Model, Temperature: a.temp, Meta: meta, Seed: llm.DeriveSeed(u.RunSeed, u.Repeat, item.ID, meta),
		Messages: []llm.Message{{Role: llm.RoleUser, Content: item.Stem}}}
	if _, err := c.Chat(ctx, req); err != nil {
		return nil, err
	}
	first := item.Letters()[0]
	ans := answer.Answer{Ranking: []string{first}, Confidence: -1, Method: answer.MethodNone}
	return &protocol.Outcome{N: 1, Roles: []string{"solo"}, Rounds: [][]answer.Answer{{ans}},
		Decision: aggregator.Decision{Rule: "first_option", Winner: first}, Predicted: first}, nil
}

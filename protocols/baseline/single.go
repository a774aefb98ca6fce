package baseline

import (
	"context"
	"embed"
	"fmt"
	"io"

	"github.com/medteam-bench/medteam/aggregator"
	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// RuleSingle is the decision rule of zeroshot and cot: the answer's first choice.
const RuleSingle = "single"

// GreedyTemperature is cot's temperature: greedy decoding. The OpenAI-
// compatible backend sends it as openai.ZeroTemperature (1e-7), because
// go-openai leaves a zero temperature off the wire and servers would then
// sample at their default (1.0); Ollama's native API receives 0.
const GreedyTemperature = 0

// ZeroShot asks once for the letter alone (docs/protocols.md#zeroshot).
var ZeroShot = singleProtocol("zeroshot", "Zero-shot baseline: one call asking for the letter of the best option, "+
	"greedy (temperature 0); the decision is the answer's first choice, an unreadable answer an abstention.")

// CoT is chain of thought (docs/protocols.md#cot): the shared first answer
// of agent 0 (package firstanswer: reasoning first, then the ranking of
// every option and a confidence), greedy; the decision is its first choice.
// sc's sample 0 is the same request at the sampling temperature.
var CoT = singleProtocol("cot", "Chain-of-thought baseline: the shared first answer (reasoning first, then a ranking of every "+
	"option and a confidence) of agent 0, greedy (temperature 0); the decision is its first choice, an unreadable answer an abstention.")

var zeroShotSchema = kit.Schema(kit.KindZeroShot, kit.P("answer", kit.String))

func singleProtocol(name, doc string) *protocol.Protocol {
	p := &protocol.Protocol{Name: name, Doc: doc, Presets: []string{name}, Stub: kit.Stub, Prompts: kit.HashOf(prompts)}
	if name == "cot" {
		p.Sim = &CoTSim
		p.Prompts = kit.HashOf(firstanswer.Prompts)
		p.Aliases = []string{"chain-of-thought", "chainofthought", "chain_of_thought"}
	} else {
		p.Aliases = []string{"zero-shot", "zero_shot"}
		p.OwnFirstAnswer = true // its own letter-only prompt
		p.Sim = &ZeroShotSim
	}
	p.Parse = func(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
		sp, ok, err := kit.ParseSpec(spec, name)
		if !ok || err != nil {
			return nil, ok, err
		}
		if len(sp.Bare) > 0 || len(sp.Keyed) > 0 {
			return nil, true, fmt.Errorf("%s takes no options", name)
		}
		return single{p: p, name: name, structured: s.Structured, maxTokens: s.MaxTokens}, true, nil
	}
	p.Accounting = func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "calls = 1\narm       answer  total\n%-8s  1       1\n", name)
		return err
	}
	return p
}

// single is an arm of zeroshot or cot.
type single struct {
	p          *protocol.Protocol
	name       string
	structured bool
	maxTokens  int
}

func (a single) Protocol() *protocol.Protocol { return a.p }

func (a single) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: a.name, Protocol: a.name, AgentPolicy: "fixed:1", Structured: a.structured}
}

func (a single) Calls(int) (int, int) { return 1, 0 }

// call is the arm's one call: cot's is firstanswer's for agent 0 at the
// greedy temperature; zeroshot's asks for the letter alone.
func (a single) call(s *kit.Session) (kit.Call, error) {
	if a.name == "cot" {
		c, err := firstanswer.Call(s, 0, GreedyTemperature)
		c.Role = "solo"
		return c, err
	}
	d := map[string]any{"Question": s.Question, "JSON": a.structured}
	system, err := prompts.Render("system", d)
	if err != nil {
		return kit.Call{}, err
	}
	user, err := prompts.Render(kit.KindZeroShot, d)
	if err != nil {
		return kit.Call{}, err
	}
	return kit.Call{Phase: kit.PhaseAnswer, Kind: kit.KindZeroShot, Role: "solo", Temperature: GreedyTemperature,
		System: system, User: user, Schema: zeroShotSchema}, nil
}

func (a single) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	call, err := a.call(s)
	if err != nil {
		return nil, err
	}
	text, err := s.Do(ctx, call)
	if err != nil {
		return nil, err
	}
	ans := answer.Parse(text, s.Options)
	s.NoteAnswer(call.Kind, 0, 0, ans)
	s.Out.N, s.Out.Roles = 1, []string{"solo"}
	s.Out.Rounds = [][]answer.Answer{{ans}}
	votes := []string{ans.First()}
	dec := aggregator.Plurality(item.Letters(), votes)
	if ans.First() == "" {
		s.SafeDefault(dec, RuleSingle, ans.Reason+": "+ans.Err)
		return s.Out, nil
	}
	s.Commit(dec, RuleSingle)
	return s.Out, nil
}

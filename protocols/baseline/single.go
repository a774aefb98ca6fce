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
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/qa"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = kit.MustPrompts(promptFS, "prompts/*.tmpl")

// RuleSingle is the decision rule of zeroshot and cot: the answer's first choice.
const RuleSingle = "single"

// ZeroShot asks once for the letter alone (DESIGN §5 "zeroshot").
var ZeroShot = singleProtocol(kit.KindZeroShot, "Zero-shot baseline: one call asking for the letter of the best option, "+
	"greedy (temperature 0); the decision is the answer's first choice, an unreadable answer an abstention.")

// CoT asks once for reasoning first, then the letter (DESIGN §5 "cot").
var CoT = singleProtocol(kit.KindCoT, "Chain-of-thought baseline: one call asking for step-by-step reasoning, then the letter, "+
	"greedy (temperature 0); the decision is the answer, an unreadable answer an abstention.")

var schemas = map[string]*llm.Schema{
	kit.KindZeroShot: kit.Schema(kit.KindZeroShot, kit.P("answer", kit.String)),
	kit.KindCoT:      kit.Schema(kit.KindCoT, kit.P("reasoning", kit.String), kit.P("answer", kit.String)),
}

func singleProtocol(kind, doc string) *protocol.Protocol {
	p := &protocol.Protocol{Name: kind, Doc: doc, Presets: []string{kind}, Stub: kit.Stub, Prompts: kit.HashOf(prompts)}
	p.Parse = func(spec string, s protocol.Settings) (protocol.Arm, bool, error) {
		sp, ok, err := kit.ParseSpec(spec, kind)
		if !ok || err != nil {
			return nil, ok, err
		}
		if len(sp.Bare) > 0 || len(sp.Keyed) > 0 {
			return nil, true, fmt.Errorf("%s takes no options", kind)
		}
		return single{p: p, kind: kind, structured: s.Structured, maxTokens: s.MaxTokens}, true, nil
	}
	p.Accounting = func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "calls = 1\narm       answer  total\n%-8s  1       1\n", kind)
		return err
	}
	return p
}

// single is an arm of zeroshot or cot.
type single struct {
	p          *protocol.Protocol
	kind       string
	structured bool
	maxTokens  int
}

func (a single) Protocol() *protocol.Protocol { return a.p }

func (a single) Info() protocol.ArmInfo {
	return protocol.ArmInfo{Label: a.kind, Protocol: a.kind, AgentPolicy: "fixed:1", Structured: a.structured}
}

func (a single) Calls(int) (int, int) { return 1, 0 }

func (a single) Run(ctx context.Context, c llm.Client, item qa.Item, u protocol.Unit) (*protocol.Outcome, error) {
	s := kit.NewSession(c, item, u, a.structured, a.maxTokens)
	d := map[string]any{"Question": s.Question, "JSON": a.structured}
	system, err := prompts.Render("system", d)
	if err != nil {
		return nil, err
	}
	user, err := prompts.Render(a.kind, d)
	if err != nil {
		return nil, err
	}
	text, err := s.Do(ctx, kit.Call{Phase: kit.PhaseAnswer, Kind: a.kind, Role: "solo", System: system, User: user, Schema: schemas[a.kind]})
	if err != nil {
		return nil, err
	}
	ans := answer.Parse(text, s.Options)
	s.NoteAnswer(a.kind, 0, 0, ans)
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

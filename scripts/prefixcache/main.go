// Command prefixcache measures how much of a run's prompts a provider's
// prefix cache would serve (issue 37): it runs arms on the simulated
// backend, pads every reply to a realistic reasoning length, records the
// requests each arm sends in the order a sequential run sends them, and
// applies two rules to them — OpenAI's (prompts of ≥ 1,024 tokens, cached in
// 128-token steps) and vLLM's (16-token blocks) — with tokens ≈ bytes / 4.
//
//	go run ./scripts/prefixcache [-questions 50] [-pad 300] [-layout shared|source] [-kinds] [arm …]
//
// Without arms it measures configs/protocols.yaml's. -kinds also prints,
// per arm, each call kind's calls, prompt sizes, shared prefixes and cached
// shares. Each arm is run alone
// (its own run, nothing shared with another arm).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/tasks"
)

// protocolsArms are configs/protocols.yaml's arms.
var protocolsArms = []string{"zeroshot", "cot", "sc:3", "debate:3,2", "vote", "veto", "judge",
	"council:balanced", "council:risk-averse", "council:goal-seeking", "council:novelty",
	"medagents", "mdagents", "base", "full"}

// options are the command's flags.
type options struct {
	n, pad                int
	layout                string
	show, together, kinds bool
}

func main() {
	var o options
	flag.IntVar(&o.n, "questions", 50, "questions of the embedded MedQA sample")
	flag.IntVar(&o.pad, "pad", 300, "words of neutral reasoning each reply is padded with (0 = the simulator's own length)")
	flag.BoolVar(&o.show, "show", false, "write one reply of each kind to stderr")
	flag.BoolVar(&o.together, "sweep", false, "also run the arms together, as one sweep (one unit at a time; the run sends a request several arms make alike once), and measure what it sends")
	flag.StringVar(&o.layout, "layout", "", "--prompt-layout: shared or source (\"\" = the default)")
	flag.BoolVar(&o.kinds, "kinds", false, "also print each arm's call kinds: calls/question, prompt tokens per call, tokens shared with an earlier prompt, cached share per rule")
	flag.Parse()
	arms := flag.Args()
	if len(arms) == 0 {
		arms = protocolsArms
	}
	if err := run(os.Stdout, arms, o); err != nil {
		fmt.Fprintln(os.Stderr, "prefixcache:", err)
		os.Exit(1)
	}
}

func run(w *os.File, arms []string, o options) error {
	qs, err := datasets.Sample()
	if err != nil {
		return err
	}
	qs = qs[:min(o.n, len(qs))]
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\tcalls/q\tprompt tokens/q\tOpenAI rule cached\tvLLM rule cached\tOpenAI rule, any layout at most")
	var all Tally
	kinds := map[string][]KindRow{}
	for _, spec := range arms {
		reqs, err := measure([]string{spec}, qs, o)
		if err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
		t := tally(reqs)
		kinds[spec], all = ByKind(reqs), all.Add(t)
		fmt.Fprintf(tw, "%s\t%.2f\t%d\t%s\t%s\t%s\n", spec, float64(len(reqs))/float64(len(qs)), t.Prompt/len(qs), pct(t.OpenAI, t.Prompt), pct(t.VLLM, t.Prompt), pct(t.Ceiling, t.Prompt))
	}
	fmt.Fprintf(tw, "all arms, each alone\t\t%d\t%s\t%s\t%s\n", all.Prompt/len(qs), pct(all.OpenAI, all.Prompt), pct(all.VLLM, all.Prompt), pct(all.Ceiling, all.Prompt))
	if o.together {
		reqs, err := measure(arms, qs, o)
		if err != nil {
			return err
		}
		t := tally(reqs)
		fmt.Fprintf(tw, "all arms as one sweep\t%.2f\t%d\t%s\t%s\t%s\n", float64(len(reqs))/float64(len(qs)), t.Prompt/len(qs), pct(t.OpenAI, t.Prompt), pct(t.VLLM, t.Prompt), pct(t.Ceiling, t.Prompt))
	}
	if err := tw.Flush(); err != nil || !o.kinds {
		return err
	}
	for _, spec := range arms {
		fmt.Fprintln(w)
		if err := writeKinds(w, spec, kinds[spec], len(qs)); err != nil {
			return err
		}
	}
	return nil
}

func pct(a, b int) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// settings are configs/protocols.yaml's.
func settings(layout string) protocol.Settings {
	s := protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	setLayout(&s, layout)
	return s
}

// measure runs arms as one run, one unit at a time, and returns the
// requests it sent (a request several arms make alike is sent once) in the
// order a sequential run sends them.
func measure(specs []string, qs []qa.Question, o options) ([]llm.Request, error) {
	var arms []runner.Arm
	for _, spec := range specs {
		a, err := protocols.All().Parse(spec, settings(o.layout))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		arms = append(arms, runner.Arm{Label: a.Info().Label, Protocol: a})
	}
	p, err := sim.LookupProfile("default")
	if err != nil {
		return nil, err
	}
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	rec := &recorder{next: padder{next: protocols.NewSim(p, items), words: o.pad}, shown: map[string]bool{}, unit: map[string]int{}}
	if o.show {
		rec.show = os.Stderr
	}
	plan := runner.Plan{RunID: "prefixcache", Sets: []runner.QuestionSet{{Name: "medqa-sample", Questions: qs}},
		Arms: arms, Repeats: 1, Seed: 1, Parallel: 1, Tasks: tasks.All(),
		Models: []runner.Model{{Name: "sim/default", Request: "default", Client: rec}}}
	if _, err := runner.Run(context.Background(), plan, nil); err != nil {
		return nil, err
	}
	return rec.inOrder(), nil
}

// tally is what both rules cache of the requests, in the order sent, and
// the most OpenAI's could under any layout (Ceiling, per question).
func tally(reqs []llm.Request) Tally {
	groups := make([]string, len(reqs))
	for i, r := range reqs {
		groups[i] = r.Meta.QuestionID
	}
	t := Measure(messages(reqs))
	t.Ceiling = Ceiling(messages(reqs), groups)
	return t
}

// messages are the requests' messages.
func messages(reqs []llm.Request) [][]llm.Message {
	out := make([][]llm.Message, len(reqs))
	for i := range reqs {
		out[i] = reqs[i].Messages
	}
	return out
}

// recorder keeps every request it passes on.
type recorder struct {
	next  llm.Client
	mu    sync.Mutex
	sent  []llm.Request
	show  io.Writer // one reply of each kind is written here (nil: none)
	shown map[string]bool
	unit  map[string]int // question and arm → the order its first request came in
}

func (r *recorder) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	k := req.Meta.QuestionID + "\x00" + req.Meta.Arm
	if _, ok := r.unit[k]; !ok {
		r.unit[k] = len(r.unit)
	}
	r.sent = append(r.sent, req)
	r.mu.Unlock()
	resp, err := r.next.Chat(ctx, req)
	if r.show != nil && err == nil {
		r.mu.Lock()
		if !r.shown[req.Meta.Kind] {
			r.shown[req.Meta.Kind] = true
			fmt.Fprintf(r.show, "%s %s: %d bytes: %.300q\n", req.Meta.Arm, req.Meta.Kind, len(resp.Text), resp.Text)
		}
		r.mu.Unlock()
	}
	return resp, err
}

// inOrder is the prompts in the order a sequential run sends them: unit by
// unit (one at a time), each unit's calls in their protocol order
// (Meta.Order), whatever the concurrency within the unit.
func (r *recorder) inOrder() []llm.Request {
	reqs := append([]llm.Request(nil), r.sent...)
	unit := func(m llm.Meta) int { return r.unit[m.QuestionID+"\x00"+m.Arm] }
	sort.SliceStable(reqs, func(i, j int) bool {
		a, b := reqs[i].Meta, reqs[j].Meta
		if unit(a) != unit(b) {
			return unit(a) < unit(b)
		}
		return a.Order < b.Order
	})
	return reqs
}

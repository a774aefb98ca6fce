package protocols_test

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// layoutArms are configs/protocols.yaml's arms and a few variants.
var layoutArms = []string{"zeroshot", "cot", "sc:3", "debate:3,2", "debate:3,3", "vote", "vote:weighted", "veto", "veto:rounds=1",
	"judge", "council:balanced", "council:novelty", "medagents", "medagents:syn_only", "mdagents", "base", "full"}

// requestLog keeps every request an arm sends.
type requestLog struct {
	next llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *requestLog) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.next.Chat(ctx, req)
}

// layoutRun runs spec with set on the sample's first n questions and
// returns each question's outcome and requests (in call order).
func layoutRun(t *testing.T, spec string, set protocol.Settings, n int) ([]*protocol.Outcome, [][]llm.Request) {
	t.Helper()
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	qs = qs[:n]
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	p, err := sim.LookupProfile("noisy")
	if err != nil {
		t.Fatal(err)
	}
	m := protocols.NewSim(p, items)
	a, err := protocols.All().Parse(spec, set)
	if err != nil {
		t.Fatal(err)
	}
	var outs []*protocol.Outcome
	var reqs [][]llm.Request
	for _, q := range qs {
		log := &requestLog{next: m}
		out, err := a.Run(context.Background(), log, q.Item(), protocol.Unit{Model: "sim", Arm: a.Info().Label, RunSeed: 3})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		sort.SliceStable(log.reqs, func(i, j int) bool { return log.reqs[i].Meta.Order < log.reqs[j].Meta.Order })
		outs, reqs = append(outs, out), append(reqs, log.reqs)
	}
	return outs, reqs
}

func layoutSettings(structured bool) protocol.Settings {
	return protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: structured, AgentTemp: 0.7, LeaderTemp: 0.5}
}

// TestSourceLayoutRequestsUnchanged (issue 37): every protocol's requests
// in the source layout (--prompt-layout source; the zero Settings') are
// byte for byte those sent before the layout switch: per arm, text and
// JSON, the SHA-256 of every request hash (model, messages, sampling,
// seed, schema) on 6 questions of the sample, in call order. The golden was
// written by the code before the switch.
func TestSourceLayoutRequestsUnchanged(t *testing.T) {
	var sb strings.Builder
	for _, spec := range layoutArms {
		for _, structured := range []bool{false, true} {
			_, reqs := layoutRun(t, spec, layoutSettings(structured), 6)
			h, n := sha256.New(), 0
			for _, q := range reqs {
				for _, req := range q {
					fmt.Fprintln(h, llm.HashOf(&req))
					n++
				}
			}
			fmt.Fprintf(&sb, "%s json=%v: %d requests %x\n", spec, structured, n, h.Sum(nil)[:12])
		}
	}
	golden := filepath.Join("testdata", "source_requests.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("source-layout requests changed:\n got:\n%s\nwant:\n%s", got, want)
	}
}

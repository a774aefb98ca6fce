package runner

import (
	"context"
	"testing"

	"github.com/medteam-bench/medteam/llm/prefixcache"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
)

// TestDryRunCachedShare: under a cache rule the dry run estimates the
// prompt tokens a provider's cache would serve — more than none and less
// than all of them, the same on every run whatever the scheduling (each
// question's prompts against that question's cache) — and without a rule
// none.
func TestDryRunCachedShare(t *testing.T) {
	set := protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5}
	var arms []Arm
	for _, spec := range []string{"base", "full", "debate:3,2", "medagents"} {
		a, err := protocols.All().Parse(spec, set)
		if err != nil {
			t.Fatal(err)
		}
		arms = append(arms, Arm{Label: a.Info().Label, Protocol: a})
	}
	p := stubPlan(t, arms, 6)
	p.Parallel = 6
	share := map[prefixcache.Rule]int64{}
	for _, rule := range []prefixcache.Rule{prefixcache.None, prefixcache.VLLM, prefixcache.OpenAI, prefixcache.VLLM} {
		est, err := DryRunWith(context.Background(), p, DryRunOptions{CacheRule: rule})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d of %d sent prompt tokens cached (%.1f%%)", rule, est.SentCached, est.SentPrompt, 100*est.CachedShare())
		if prev, ok := share[rule]; ok && prev != est.SentCached {
			t.Errorf("%s: %d cached tokens, %d on the run before", rule, est.SentCached, prev)
		}
		share[rule] = est.SentCached
		if rule == prefixcache.None && est.SentCached != 0 || rule != prefixcache.None && (est.SentCached <= 0 || est.SentCached >= est.SentPrompt) {
			t.Errorf("%s: %d of %d prompt tokens cached", rule, est.SentCached, est.SentPrompt)
		}
	}
}

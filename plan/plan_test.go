package plan

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// simOpener opens every model as the simulator's endpoint would record it,
// without a client (nothing runs in these tests).
func simOpener(_ context.Context, model string, _ Spec, _ []qa.Question) (*Endpoint, error) {
	p, name, _ := strings.Cut(model, "/")
	return &Endpoint{Ref: results.ModelRef{Name: model, Provider: p}, Request: name, Sim: p == "sim"}, nil
}

func defaultSpec() Spec {
	return Spec{Datasets: []string{datasets.SampleName}, Models: []string{"sim/default"}, NumCtx: 8192, Configs: []string{"full"},
		Turns: 2, Discussion: "round_robin", Seed: 1, SampleSeed: 1, Repeats: 1, AgentTemp: 0.7, LeaderTemp: 0.5}
}

// The plan hash names run directories and decides resumes: it must not move
// when the code that computes it does. These are the hashes of plans run
// before the plan package existed (the sweep of configs/ablation.yaml and
// 'medteam run' with no flags). A changed prompt set is a different plan:
// issue 22 (reasoning first, no sentence caps, the shared first answer as
// teamwork's prediction, whose prompts now enter prompt_set_hash) moved them
// once, through prompt_set_hash alone. Issue 36 moved them through
// protocol_version (3: vote:weighted's ReConcile weights; teamwork's roles
// column marks hidden roles); issue 37 (--prompt-layout, whose templates
// render the source layout byte for byte as before but are new template
// text) moved them again through prompt_set_hash.
func TestPlanHashKnownAnswers(t *testing.T) {
	sweep := defaultSpec()
	if err := LoadSweep("../configs/ablation.yaml", &sweep); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
		want string
	}{
		{"configs/ablation.yaml", sweep, "c6b86f609d29"},
		{"run (no flags)", defaultSpec(), "40ab15e56d7a"},
		{"run --limit 20 --shard 2/3 --config base,c2 --text", func() Spec {
			s := defaultSpec()
			s.Limit, s.Shard, s.Configs, s.Text = 20, "2/3", []string{"base", "c2"}, true
			return s
		}(), "9d5546ff4d8f"},
	} {
		r, err := Resolve(context.Background(), tc.spec, simOpener)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hash[:12] != tc.want {
			t.Errorf("%s: plan hash %.12s, want %s\n%s", tc.name, r.Hash, tc.want, r.Doc)
		}
		if r.Questions() == 0 || len(r.Arms) == 0 || !r.Simulated() {
			t.Errorf("%s: %d questions, %d arms, simulated %v", tc.name, r.Questions(), len(r.Arms), r.Simulated())
		}
	}
}

func TestUnshardGivesOnePlanForAllShards(t *testing.T) {
	var hashes []string
	for _, shard := range []string{"1/3", "2/3", "3/3"} {
		s := defaultSpec()
		s.Shard = shard
		r, err := Resolve(context.Background(), s, simOpener)
		if err != nil {
			t.Fatal(err)
		}
		_, h, doc, err := Unshard(r.Doc)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Spec.Shard != "" || doc.Datasets[0].Questions != 0 {
			t.Fatalf("shard %s: unsharded doc keeps %q, %d questions", shard, doc.Spec.Shard, doc.Datasets[0].Questions)
		}
		hashes = append(hashes, h)
	}
	if hashes[0] != hashes[1] || hashes[1] != hashes[2] {
		t.Fatalf("unsharded hashes differ: %v", hashes)
	}
}

func TestSpecErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Turns = 4 }, "--turns 4"},
		{func(s *Spec) { s.Agents = 5 }, "--agents 5"},
		{func(s *Spec) { s.Discussion = "chaos" }, `--discussion "chaos"`},
		{func(s *Spec) { s.AgentTemp = 3 }, "--agent-temperature 3"},
		{func(s *Spec) { s.Configs = []string{"full", "full"} }, "twice"},
		{func(s *Spec) { s.Configs = []string{"smm+xyz"} }, `--config "smm+xyz"`},
		{func(s *Spec) { s.Repeats = 0 }, "--repeats"},
		{func(s *Spec) { s.Models = nil }, "--model"},
		{func(s *Spec) { s.Shard = "4/3" }, "--shard"},
	} {
		s := defaultSpec()
		tc.edit(&s)
		_, err := Resolve(context.Background(), s, simOpener)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsInput(err) {
			t.Errorf("want an input error naming %s, got %v", tc.want, err)
		}
	}
}

func TestOpenerErrorClosesWhatWasOpened(t *testing.T) {
	s := defaultSpec()
	s.Models = []string{"sim/default", "sim/weak", "bad/x"}
	closed := 0
	open := func(ctx context.Context, m string, sp Spec, qs []qa.Question) (*Endpoint, error) {
		if strings.HasPrefix(m, "bad/") {
			return nil, errors.New("no such provider")
		}
		ep, _ := simOpener(ctx, m, sp, qs)
		ep.Close = func() { closed++ }
		return ep, nil
	}
	if _, err := Resolve(context.Background(), s, open); err == nil || closed != 2 {
		t.Fatalf("err %v, %d of 2 endpoints closed", err, closed)
	}
}

func TestLoadSweepErrorsNameFileLineAndKey(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"arms: [base]\nturns: 5\n", "x.yaml:2: turns: 5"},
		{"arms: [base]\ncolour: red\n", `x.yaml:2: unknown key "colour"`},
		{"arms: []\n", "x.yaml:1: arms must be a non-empty list"},
		{"arms: [base, nope]\n", `x.yaml:1: arm "nope"`},
		{"arms: [base]\ntemperature: {agent: 9}\n", "temperature.agent: 9"},
		{"arms: [base]\nlimit: many\n", "limit must be an integer"},
		{"arms:\n  - base\n  - sc:0\n", `x.yaml:3: arm "sc:0"`},
		{"arms: [vote, debate:3, 1, council:reckless]\n", `x.yaml:1: arm "council:reckless": council: unknown strategy`},
	} {
		path := dir + "/x.yaml"
		if err := writeFile(path, tc.yaml); err != nil {
			t.Fatal(err)
		}
		s := defaultSpec()
		err := LoadSweep(path, &s)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !IsInput(err) {
			t.Errorf("%q: want an input error with %q, got %v", tc.yaml, tc.want, err)
		}
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }

// TestProtocolArms: the other protocols' arms load from a sweep file (flow
// lists split at option commas are joined again) and from --config tokens,
// and a plan that runs them records their prompt sets; a teamwork plan's
// document is unchanged (TestPlanHashKnownAnswers).
func TestProtocolArms(t *testing.T) {
	path := t.TempDir() + "/p.yaml"
	if err := writeFile(path, "arms: [zeroshot, sc:5, debate:3,2, vote:weighted, n=5, base]\nagents: 3\n"); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	if err := LoadSweep(path, &s); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Configs, "|"); got != "zeroshot|sc:5|debate:3,2|vote:weighted,n=5|base" {
		t.Fatalf("configs %q", got)
	}
	c := defaultSpec()
	c.Configs = []string{"debate:3", "2", "vote", "full"} // as --config debate:3,2,vote,full splits
	want := []string{"zeroshot|sc:k=5|debate:n=3,r=2|vote:weighted,n=5|base/n3", "debate:n=3,r=2|vote|full"}
	for i, spec := range []Spec{s, c} {
		r, err := Resolve(context.Background(), spec, simOpener)
		if err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, a := range r.Arms {
			labels = append(labels, a.Label)
		}
		doc := r.Document()
		if strings.Join(labels, "|") != want[i] || doc.ProtocolPrompts["vote"] == "" || doc.ProtocolPrompts["teamwork"] != "" {
			t.Fatalf("arms %q, prompts %v", labels, doc.ProtocolPrompts)
		}
	}
}

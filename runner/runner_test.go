package runner

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/report"
	"github.com/medteam-bench/medteam/tasks"
	"github.com/medteam-bench/medteam/teamwork"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func simPlan(t testing.TB, profile string, presets []string, parallel int) (Plan, *sim.Model) {
	t.Helper()
	qs, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	return simPlanFor(t, qs, profile, presets, parallel)
}

func simPlanFor(t testing.TB, qs []qa.Question, profile string, presets []string, parallel int) (Plan, *sim.Model) {
	t.Helper()
	p, err := sim.LookupProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]sim.Item{}
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
	}
	var arms []Arm
	for _, name := range presets {
		c, err := teamwork.ParseComponents(name, teamwork.Default())
		if err != nil {
			t.Fatal(err)
		}
		arms = append(arms, Arm{Label: c.Label(), Protocol: teamwork.Arm{Config: c}})
	}
	model := protocols.NewSim(p, items)
	return Plan{RunID: "test", Sets: []QuestionSet{{Name: "medqa-sample", Questions: qs}}, Arms: arms,
		Tasks:   tasks.All(),
		Models:  []Model{{Name: "sim/" + profile, Request: profile, Client: model}},
		Repeats: 1, Seed: 1, Parallel: parallel}, model
}

// goldenMetrics are the fixed-seed simulator figures per preset.
type goldenMetrics struct {
	Arm              string  `json:"arm"`
	Questions        int     `json:"questions"`
	Correct          int     `json:"correct"`
	Abstained        int     `json:"abstained"`
	Ties             int     `json:"ties"`
	AgreementInitial float64 `json:"agreement_initial"`
	AgreementFinal   float64 `json:"agreement_final"`
	Calls            int64   `json:"calls"`
	PromptTokens     int64   `json:"prompt_tokens"`
	CompletionTokens int64   `json:"completion_tokens"`
	ParseFailures    int64   `json:"parse_failures"`
}

// syntheticQuestions are n four-option questions with spread gold letters:
// enough items for paired effects on the simulator, with no dataset file.
func syntheticQuestions(n int) []qa.Question {
	qs := make([]qa.Question, n)
	for i := range qs {
		id := fmt.Sprintf("syn-%04d", i)
		opts := make([]qa.Option, 4)
		for k := range opts {
			l := string(rune('A' + k))
			opts[k] = qa.Option{Letter: l, Text: fmt.Sprintf("finding %s of case %d", l, i)}
		}
		qs[i] = qa.Question{ID: id, Dataset: "synthetic", Split: "test",
			Stem: fmt.Sprintf("Case %d: which finding best explains the presentation?", i), Options: opts,
			Gold: string(rune('A' + (i*7+3)%4))}
	}
	return qs
}

// TestGoldenSimMetrics pins the simulator's metrics per preset (seed 1):
// profile default on the embedded sample, and profile misled — where a
// leader who reads fluent distractor reasoning as good reasoning leads the
// team astray — on 300 synthetic questions. Any change to the protocol,
// prompts, parsers or simulator that changes behaviour shows here;
// regenerate with `go test ./runner -run Golden -update` and review the diff.
func TestGoldenSimMetrics(t *testing.T) {
	sample, err := datasets.Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		profile, file string
		qs            []qa.Question
	}{
		{"default", "sim_default_presets.golden.json", sample},
		{"misled", "sim_misled_presets.golden.json", syntheticQuestions(300)},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			plan, _ := simPlanFor(t, tc.qs, tc.profile, teamwork.PresetNames(), 4)
			res, err := Run(context.Background(), plan, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", tc.file), goldenOf(res))
		})
	}
}

func goldenOf(res *Result) []goldenMetrics {
	var got []goldenMetrics
	for _, s := range report.Summarize(res.Questions) {
		got = append(got, goldenMetrics{
			Arm: s.Arm, Questions: s.Questions, Correct: s.Correct, Abstained: s.Abstained, Ties: s.Ties,
			AgreementInitial: round4(s.AgreementInitial), AgreementFinal: round4(s.AgreementFinal),
			Calls: s.Calls, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens, ParseFailures: s.ParseFailures,
		})
	}
	return got
}

func checkGolden(t *testing.T, path string, got []goldenMetrics) {
	t.Helper()
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want []goldenMetrics
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w goldenMetrics
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("got  %+v\nwant %+v", g, w)
			}
		}
		t.Fatal("simulator metrics changed; if intended, rerun with -update and review the diff")
	}
}

// TestSimComponentCanHurt (issue 8 item 6): the simulator does not make
// component effects foregone. On profile misled, adding leadership with its
// leaning shown to the agents (base → c2:leaning; the default mediator is
// neutral and shows none) lowers accuracy, paired question by question: more
// questions go from right to wrong than from wrong to right; on profile
// default it helps.
func TestSimComponentCanHurt(t *testing.T) {
	qs := syntheticQuestions(300)
	for _, tc := range []struct {
		profile string
		hurts   bool
	}{{"misled", true}, {"default", false}} {
		plan, _ := simPlanFor(t, qs, tc.profile, []string{"base", "c2"}, 4)
		c := plan.Arms[1].Protocol.(teamwork.Arm).Config
		c.ShowLeaning = true
		plan.Arms[1] = Arm{Label: "c2", Protocol: teamwork.Arm{Config: c}}
		res, err := Run(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		correct := map[string]map[string]bool{}
		for _, q := range res.Questions {
			if correct[q.Arm] == nil {
				correct[q.Arm] = map[string]bool{}
			}
			correct[q.Arm][q.QuestionID] = q.Correct
		}
		rw, wr := 0, 0
		for id, ok := range correct["base"] {
			switch l := correct["c2"][id]; {
			case ok && !l:
				rw++
			case !ok && l:
				wr++
			}
		}
		t.Logf("%s: adding leadership: %d questions right→wrong, %d wrong→right", tc.profile, rw, wr)
		if hurt := rw > wr; hurt != tc.hurts {
			t.Errorf("%s: leadership hurts = %v (right→wrong %d, wrong→right %d), want %v", tc.profile, hurt, rw, wr, tc.hurts)
		}
	}
}

func round4(x float64) float64 { return float64(int64(x*10000+0.5)) / 10000 }

// TestRowsIndependentOfParallelism: same seed, same rows whatever --parallel.
// Which arm's unit sends a request that several arms share (the recruitment
// calls, always; predictions of arms alike in SMM and TO) and which get it
// marked cached depends on which unit asks first, so per-row attempts,
// cached flags and paid tokens are scheduling-dependent (as after a
// resume); the number of requests sent is not.
func TestRowsIndependentOfParallelism(t *testing.T) {
	var prev []string
	prevSent := -1
	for _, par := range []int{1, 3, 16} {
		plan, _ := simPlan(t, "noisy", []string{"base", "full"}, par)
		res, err := Run(context.Background(), plan, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sig []string
		sent := 0
		for i := range res.Questions {
			r := res.Questions[i]
			sent += int(r.Calls - r.CachedCalls)
			r.WallMS, r.CallLatencyMS, r.Attempts, r.CachedCalls = 0, 0, 0, 0
			r.PaidPromptTokens, r.PaidCompletionTokens = 0, 0        // paid by whichever unit sent the shared call
			r.PaidCachedPromptTokens, r.CallsCachedUnreported = 0, 0 // likewise counted over the paid calls
			stated, verified := int32(-1), int32(-1)                 // compare the counts, not the pointers
			if r.FactsStated != nil {
				stated, verified = *r.FactsStated, *r.FactsVerified
			}
			r.FactsStated, r.FactsVerified = nil, nil
			sig = append(sig, fmt.Sprintf("%+v %d %d", r, stated, verified))
		}
		for i := range res.Calls {
			c := res.Calls[i]
			c.LatencyMS, c.Attempts, c.Cached = 0, 0, false
			p, q, _ := c.Tokens()
			cached := int64(-1)
			if c.CachedPromptTokens != nil {
				cached = *c.CachedPromptTokens
			}
			c.PromptTokens, c.CompletionTokens, c.CachedPromptTokens = nil, nil, nil // compare the counts, not the pointers
			sig = append(sig, fmt.Sprintf("%+v %d %d %d", c, p, q, cached))
		}
		if prev != nil && !reflect.DeepEqual(sig, prev) {
			t.Fatalf("--parallel %d changed the rows", par)
		}
		if prevSent >= 0 && sent != prevSent {
			t.Fatalf("--parallel %d sent %d requests, --parallel 1 sent %d", par, sent, prevSent)
		}
		prev, prevSent = sig, sent
	}
}

// TestCallRowsAddUp: every question's call count equals its call rows, and
// token sums agree.
func TestCallRowsAddUp(t *testing.T) {
	plan, _ := simPlan(t, "noisy", []string{"base", "c5", "full"}, 8)
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	type agg struct{ calls, prompt, completion int64 }
	by := map[string]*agg{}
	for _, c := range res.Calls {
		k := c.Arm + "|" + c.QuestionID
		if by[k] == nil {
			by[k] = &agg{}
		}
		by[k].calls++
		p, q, ok := c.Tokens()
		if !ok {
			t.Fatalf("call %+v: null token counts from the simulator", c)
		}
		by[k].prompt += p
		by[k].completion += q
		if c.ParseMethod == "" {
			t.Fatalf("call %+v has no parse method", c)
		}
	}
	var total int64
	for _, q := range res.Questions {
		a := by[q.Arm+"|"+q.QuestionID]
		if a == nil || a.calls != int64(q.Calls) || a.prompt != q.PromptTokens || a.completion != q.CompletionTokens {
			t.Fatalf("question %s/%s: row says %d calls %d+%d tokens, call rows %+v", q.Arm, q.QuestionID, q.Calls, q.PromptTokens, q.CompletionTokens, a)
		}
		total += int64(q.Calls)
	}
	if total != int64(len(res.Calls)) {
		t.Fatalf("%d calls in question rows, %d call rows", total, len(res.Calls))
	}
}

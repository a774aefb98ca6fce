// Command cachemeasure measures how much of a protocol's prompts a
// provider's prefix cache could serve: for each rule and arm it starts the
// loopback latency server (llmtest.LatencyServer) with that cache rule and
// answers padded to -pad-words words, runs `medteam run` of the arm on -n
// questions against it (one question at a time, response cache off), and
// prints the share of prompt tokens the server served from its cache, the
// share the run recorded in calls.parquet (they must agree), the calls and
// prompt tokens per question, and the wall time (with -prefill, what prefix
// reuse buys on a local server).
//
//	go run ./scripts/cachemeasure -n 20 -agents 3 -rules vllm,openai \
//	    -arms 'full;base;debate:3,2;medagents;council:balanced'
//	go run ./scripts/cachemeasure -sweep configs/protocols.yaml -n 50
//
// Arguments after -- are passed to medteam run (e.g. -- --prompt-layout source).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

const defaultData = "../shared/datasets/medqa/phrases_no_exclude_test.jsonl"

type config struct {
	n, agents, pad int
	rules, arms    []string
	dataset, bin   string
	prefill, delay time.Duration
	onAnswer       bool
	extra          []string
}

func main() {
	var c config
	var rules, arms, sweep string
	flag.IntVar(&c.n, "n", 20, "questions per arm")
	flag.IntVar(&c.agents, "agents", 3, "team size (--agents)")
	flag.IntVar(&c.pad, "pad-words", 300, "words of each answer's free-text field (realistic reasoning); 0 = the short fixed answers")
	flag.StringVar(&rules, "rules", "vllm,openai", "cache rules, comma-separated: openai, vllm")
	flag.StringVar(&arms, "arms", "full;base;debate:3,2;medagents;council:balanced", "arms, separated by ';'")
	flag.StringVar(&sweep, "sweep", "", "take the arms from this sweep file's arms: list instead of -arms")
	flag.StringVar(&c.dataset, "dataset", defaultData, "dataset (medqa-sample: the embedded 50 questions)")
	flag.DurationVar(&c.delay, "delay", 10*time.Millisecond, "server time per request")
	flag.BoolVar(&c.onAnswer, "store-on-answer", false, "cache a prompt when answered, not on arrival: requests in flight together (parallel agents) do not share a prefix")
	flag.DurationVar(&c.prefill, "prefill", 0, "server time per uncached prompt token (e.g. 20us), for the wall-time column")
	flag.StringVar(&c.bin, "medteam", "", "medteam binary (default: go build ./cmd/medteam)")
	flag.Parse()
	c.extra = flag.Args()
	c.rules = split(rules, ",")
	c.arms = split(arms, ";")
	if sweep != "" {
		a, err := sweepArms(sweep)
		if err != nil {
			fail(err)
		}
		c.arms = a
	}
	if err := run(c, os.Stdout); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cachemeasure:", err)
	os.Exit(1)
}

func split(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// sweepArms reads the "arms:" list of a sweep file (one "- arm" per line).
func sweepArms(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var arms []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "arms:"):
			in = true
		case in && strings.HasPrefix(t, "- "):
			arms = append(arms, strings.Trim(strings.TrimSpace(strings.SplitN(t[2:], "#", 2)[0]), `"'`))
		case in && t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(line, " "):
			in = false
		}
	}
	if len(arms) == 0 {
		return nil, fmt.Errorf("%s: no arms: list found", path)
	}
	return arms, nil
}

func run(c config, w io.Writer) error {
	if c.dataset == defaultData {
		if _, err := os.Stat(c.dataset); err != nil {
			return fmt.Errorf("dataset %s not found (run from the repo root with ../shared beside it, or pass -dataset medqa-sample)", c.dataset)
		}
	}
	tmp, err := os.MkdirTemp("", "cachemeasure")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if c.bin == "" {
		c.bin = filepath.Join(tmp, "medteam")
		if out, err := exec.Command("go", "build", "-o", c.bin, "./cmd/medteam").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/medteam: %v\n%s", err, out)
		}
	}
	fmt.Fprintf(w, "%d questions of %s, --agents %d, reasoning padded to %d words, %v per request + %v per uncached prompt token, stored on answer %v, extra flags %q\n\n",
		c.n, c.dataset, c.agents, c.pad, c.delay, c.prefill, c.onAnswer, c.extra)
	fmt.Fprintf(w, "| rule | arm | calls/q | prompt tok/q | cached (server) | cached (recorded) | wall s |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, rs := range c.rules {
		rule, err := llmtest.ParseCacheRule(rs)
		if err != nil {
			return fmt.Errorf("-rules: %w", err)
		}
		for i, arm := range c.arms {
			m, err := measure(c, rule, arm, filepath.Join(tmp, fmt.Sprintf("out-%s-%d", rs, i)))
			if err != nil {
				return fmt.Errorf("%s under %s: %w", arm, rule, err)
			}
			fmt.Fprintf(w, "| %s | %s | %.1f | %.0f | %.1f%% | %.1f%% | %.1f |\n", rule, arm,
				float64(m.calls)/float64(c.n), float64(m.prompt)/float64(c.n), pct(m.cached, m.prompt), pct(m.recCached, m.recPrompt), m.wall.Seconds())
			if m.cached != m.recCached {
				fmt.Fprintf(w, "|  | **recorded %d cached tokens, the server served %d** | | | | | |\n", m.recCached, m.cached)
			}
		}
	}
	return nil
}

func pct(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

type measurement struct {
	calls, prompt, cached int64
	recPrompt, recCached  int64
	wall                  time.Duration
}

// measure runs one arm against a fresh server under rule.
func measure(c config, rule llmtest.CacheRule, arm, out string) (measurement, error) {
	srv := llmtest.NewLatencyServerWith(64, c.delay, false, llmtest.LatencyOptions{Cache: rule, Prefill: c.prefill, PadWords: c.pad, StoreOnAnswer: c.onAnswer})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return measurement{}, err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	defer hs.Shutdown(context.Background())
	args := append([]string{"run", "--model", "openai/bench", "--base-url", "http://" + ln.Addr().String() + "/v1",
		"--dataset", c.dataset, "--limit", fmt.Sprint(c.n), "--config", arm, "--agents", fmt.Sprint(c.agents),
		"--cache", "off", "--parallel", "1", "--out", out}, c.extra...)
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=bench")
	start := time.Now()
	if b, err := cmd.CombinedOutput(); err != nil {
		return measurement{}, fmt.Errorf("medteam %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	st := srv.Stats()
	m := measurement{calls: st.Requests, prompt: st.PromptTokens, cached: st.CachedTokens, wall: time.Since(start)}
	m.recPrompt, m.recCached, err = recorded(out)
	return m, err
}

// recorded sums the prompt and cached prompt tokens of the run's calls.parquet.
func recorded(out string) (prompt, cached int64, err error) {
	files, _ := filepath.Glob(filepath.Join(out, "*", "calls.parquet"))
	if len(files) != 1 {
		return 0, 0, fmt.Errorf("want one run directory with calls.parquet under %s, found %d", out, len(files))
	}
	rows, err := parquet.ReadFile[results.CallRow](files[0])
	if err != nil {
		return 0, 0, err
	}
	for _, r := range rows {
		if r.PromptTokens != nil {
			prompt += *r.PromptTokens
		}
		if r.CachedPromptTokens != nil {
			cached += *r.CachedPromptTokens
		}
	}
	if prompt == 0 {
		return 0, 0, errors.New("calls.parquet records no prompt tokens")
	}
	return prompt, cached, nil
}

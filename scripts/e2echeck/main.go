// Command e2echeck checks the output of medteam runs made against a real
// Ollama server (see scripts/e2e-ollama.sh) and replays some of the recorded
// calls to that server to check that the recorded prompt token counts are the
// server's own.
//
// Usage:
//
//	go run ./scripts/e2echeck [flags] RUN_DIR...
//
// Checks on each run directory (questions.parquet, calls.parquet, manifest.json):
//
//   - questions.parquet has -rows rows, one per question × arm × repeat, and
//     every question appears in every arm;
//   - a question row either has no error, or an error with an error class;
//   - every call row with status ok has prompt_tokens > 0 and
//     completion_tokens > 0 (and completion_tokens ≤ -max-tokens when given),
//     and prompt_tokens < -num-ctx (a prompt that fills the context window was
//     silently truncated by the server); every error call has a class;
//   - every ok call has a parse method, every unparseable call (parse_method
//     "none") has a parse_error, and every abstaining question has a reason and,
//     unless it failed, an unreadable call that explains it;
//   - question rows agree with the calls of their last try (calls, prompt and completion token
//     sums, parse failures) and the manifest agrees with the files (counts, sha256);
//   - replay (with -server): a few recorded calls are sent again to the server's
//     native /api/chat and the server's prompt_eval_count must equal the row's
//     prompt_tokens.
//
// The replay rebuilds each call's messages from the transcript in the prompt
// column (needs --transcripts). medteam renders messages as blocks
// "[role]\ncontent" joined by a blank line (llm.RenderMessages), and teamwork
// always sends exactly two messages, system then user. A prompt is replayed
// only when it splits into exactly that: a content that itself contained a
// "\n\n[user]\n" line would be ambiguous, and such a call is skipped (counted,
// and another call is taken instead), never guessed.
//
// The replay is the exact request as far as the prompt is concerned: same
// model, same messages, same num_ctx (so the same truncation rules), the row's
// seed and the arm's temperature; it asks for one token (num_predict 1) since
// only the prompt is compared, omits the structured-output schema (Ollama
// applies it as a sampling grammar; it is not part of the prompt), and sends
// "truncate": false, so a prompt longer than the context is an HTTP 400
// instead of a silently shortened count. Ollama v0.17.4 reports
// prompt_eval_count as the number of prompt tokens after tokenization and
// truncation and before its prompt (KV) cache is consulted, so a cached prefix
// does not lower it: the comparison does not depend on what the server
// processed before. The first replayed call is sent twice to check exactly
// that (the second time, sent at once, its whole prompt is in the cache).
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/medteam-bench/medteam/results"
)

type options struct {
	server    string
	model     string
	rows      int
	numCtx    int
	maxTokens int
	replay    int
	timeout   time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.server, "server", "", "Ollama base URL (e.g. http://127.0.0.1:11434) for the replay check; empty skips the replay")
	flag.StringVar(&o.model, "model", "", "model name to replay with (default: the run's model without its provider prefix)")
	flag.IntVar(&o.rows, "rows", 20, "expected rows of questions.parquet per run (0 = any)")
	flag.IntVar(&o.numCtx, "num-ctx", 0, "num_ctx the run used: prompts must stay below it, and replays send it (0 = server default, no check)")
	flag.IntVar(&o.maxTokens, "max-tokens", 0, "completion token cap the run used (0 = no check)")
	flag.IntVar(&o.replay, "replay", 8, "calls to replay per run (0 = none; -1 = all)")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "timeout of one replayed request")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: e2echeck [flags] RUN_DIR...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var client *api.Client
	if o.server != "" {
		u, err := url.Parse(o.server)
		if err != nil || u.Scheme == "" || u.Host == "" {
			fmt.Fprintf(os.Stderr, "e2echeck: -server %q: want a URL such as http://127.0.0.1:11434\n", o.server)
			os.Exit(2)
		}
		client = api.NewClient(u, &http.Client{Timeout: o.timeout})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err := client.Version(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "e2echeck: server %s: %v\n", o.server, err)
			os.Exit(1)
		}
		fmt.Printf("server %s (ollama %s)\n", o.server, v)
	}
	failed := 0
	for _, dir := range flag.Args() {
		c := &checker{opts: o, client: client, dir: dir}
		c.run()
		failed += len(c.violations)
	}
	if failed > 0 {
		fmt.Printf("\ne2echeck: FAILED: %d violation(s)\n", failed)
		os.Exit(1)
	}
	fmt.Printf("\ne2echeck: OK (%d run(s))\n", flag.NArg())
}

type checker struct {
	opts       options
	client     *api.Client
	dir        string
	violations []string
	byKind     map[string]int
}

// maxPrinted caps the violations printed per kind and run; all are counted.
const maxPrinted = 5

// failf records a violation of kind what (a short label) and prints the
// first few of each kind at once.
func (c *checker) failf(what, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.violations = append(c.violations, msg)
	if c.byKind == nil {
		c.byKind = map[string]int{}
	}
	c.byKind[what]++
	if c.byKind[what] <= maxPrinted {
		fmt.Printf("  FAIL: %s\n", msg)
	}
}

// summarize prints how many violations of each kind were not printed.
func (c *checker) summarize() {
	for _, what := range mapKeys(c.byKind) {
		if n := c.byKind[what]; n > maxPrinted {
			fmt.Printf("  FAIL: … %d more: %s\n", n-maxPrinted, what)
		}
	}
}

type qkey struct {
	question, arm string
	repeat        int32
}

func (c *checker) run() {
	fmt.Printf("\nrun %s\n", c.dir)
	qs, err := results.ReadQuestions(filepath.Join(c.dir, results.QuestionsFile))
	if err != nil {
		c.failf("reading questions", "reading questions: %v", err)
		return
	}
	calls, err := results.ReadCalls(filepath.Join(c.dir, results.CallsFile))
	if err != nil {
		c.failf("reading calls", "reading calls: %v", err)
		return
	}
	m, err := results.ReadManifest(filepath.Join(c.dir, results.ManifestFile))
	if err != nil {
		c.failf("reading manifest", "reading manifest: %v", err)
	}
	c.checkManifest(m, err == nil, len(qs), len(calls))
	c.checkQuestions(qs, calls)
	c.checkCalls(calls, unread(qs))
	c.replay(m, calls)
	c.summarize()
	if n := len(c.violations); n > 0 {
		fmt.Printf("  => %d violation(s)\n", n)
	} else {
		fmt.Println("  => ok")
	}
}

func (c *checker) checkManifest(m results.Manifest, ok bool, nq, nc int) {
	if !ok {
		return
	}
	if m.Counts.Questions != nq || m.Counts.Calls != nc {
		c.failf("manifest counts differ from the files", "manifest counts %d questions / %d calls, files have %d / %d", m.Counts.Questions, m.Counts.Calls, nq, nc)
	}
	for _, name := range []string{results.QuestionsFile, results.CallsFile} {
		want, listed := m.Files[name]
		if !listed {
			continue
		}
		got, err := results.FileSHA256(filepath.Join(c.dir, name))
		if err != nil || got != want {
			c.failf("file sha256 differs from the manifest", "%s: sha256 %s, manifest says %s (%v)", name, got, want, err)
		}
	}
	if m.Simulated {
		c.failf("simulated run", "manifest says the run is simulated; this check is for real servers")
	}
}

// callSums are what the calls of one question row add up to.
type callSums struct {
	calls, parseNone, abstainExplained int
	prompt, completion                 int64
}

// sumCalls adds up the calls of each question row.
func sumCalls(calls []results.CallRow) map[tryKey]*callSums {
	byQ := map[tryKey]*callSums{}
	for _, r := range calls {
		k := tryKey{qkey{r.QuestionID, r.Arm, r.Repeat}, r.UnitTry}
		s := byQ[k]
		if s == nil {
			s = &callSums{}
			byQ[k] = s
		}
		s.calls++
		s.prompt += tokens(r.PromptTokens)
		s.completion += tokens(r.CompletionTokens)
		if r.ParseMethod == "none" {
			s.parseNone++
		}
		if r.ParseMethod == "none" || r.ParseError != "" || r.Status != "ok" {
			s.abstainExplained++
		}
	}
	return byQ
}

// tryKey is one try of a unit: calls.parquet keeps the calls of every try
// (unit_try), the question row describes the last (tries − 1).
type tryKey struct {
	qkey
	try int32
}

// questionTally counts the question rows for the summary lines and the
// coverage checks.
type questionTally struct {
	seen      map[qkey]bool
	arms      map[string]map[string]bool // arm → questions
	questions map[string]bool
	errs      int
	abstained int
	classes   map[string]int
	reasons   map[string]int
	model     string
	// triage rows and their safety counts
	triage, under, over, safe, redFlags int
}

func (t *questionTally) add(k qkey, r results.QuestionRow) {
	t.seen[k] = true
	if t.arms[r.Arm] == nil {
		t.arms[r.Arm] = map[string]bool{}
	}
	t.arms[r.Arm][r.QuestionID] = true
	t.questions[r.QuestionID] = true
	t.model = r.Model
	if r.Error != "" {
		t.errs++
		t.classes[r.ErrorClass]++
	}
	if r.Abstained {
		t.abstained++
		t.reasons[r.AbstainReason]++
	}
}

func (c *checker) checkQuestions(qs []results.QuestionRow, calls []results.CallRow) {
	if c.opts.rows > 0 && len(qs) != c.opts.rows {
		c.failf("question row count", "questions.parquet has %d rows, want %d", len(qs), c.opts.rows)
	}
	byQ := sumCalls(calls)
	t := questionTally{seen: map[qkey]bool{}, arms: map[string]map[string]bool{}, questions: map[string]bool{},
		classes: map[string]int{}, reasons: map[string]int{}}
	for _, r := range qs {
		k := qkey{r.QuestionID, r.Arm, r.Repeat}
		where := fmt.Sprintf("question %s arm %s repeat %d", r.QuestionID, r.Arm, r.Repeat)
		if t.seen[k] {
			c.failf("duplicate row", "%s: duplicate row", where)
		}
		t.add(k, r)
		s := byQ[tryKey{k, max(0, r.Tries-1)}]
		if s == nil {
			s = &callSums{}
		}
		c.checkQuestionError(r, where)
		c.checkQuestionSums(r, s, where)
		c.checkAbstention(r, s, where)
		c.checkTriage(r, where, &t)
	}
	for arm, got := range t.arms {
		if len(got) != len(t.questions) {
			c.failf("arm misses questions", "arm %s has %d of the %d questions", arm, len(got), len(t.questions))
		}
	}
	armNames := mapKeys(t.arms)
	fmt.Printf("  questions: %d rows (%d questions × %d arms: %s), model %s\n", len(qs), len(t.questions), len(t.arms), strings.Join(armNames, ","), t.model)
	fmt.Printf("  question errors: %d%s; abstained: %d%s\n", t.errs, countList(t.classes), t.abstained, countList(t.reasons))
	if t.triage > 0 {
		fmt.Printf("  triage rows: %d (under-triage %d, over-triage %d, safe %d, red flags %d)\n", t.triage, t.under, t.over, t.safe, t.redFlags)
	}
	for k := range byQ {
		if !t.seen[k.qkey] {
			c.failf("calls without a question row", "calls of question %s arm %s repeat %d have no question row", k.question, k.arm, k.repeat)
		}
	}
}

// checkQuestionError: an error has a class, and a class has an error.
func (c *checker) checkQuestionError(r results.QuestionRow, where string) {
	if r.Error != "" {
		if r.ErrorClass == "" {
			c.failf("question error without a class", "%s: error without a class: %s", where, r.Error)
		}
	} else if r.ErrorClass != "" {
		c.failf("error class without an error", "%s: error class %q without an error", where, r.ErrorClass)
	}
}

// checkQuestionSums: the row's calls, tokens and parse failures are those of
// its calls.
func (c *checker) checkQuestionSums(r results.QuestionRow, s *callSums, where string) {
	if int(r.Calls) != s.calls {
		c.failf("question calls differ from calls.parquet", "%s: calls = %d, calls.parquet has %d", where, r.Calls, s.calls)
	}
	if r.PromptTokens != s.prompt || r.CompletionTokens != s.completion {
		c.failf("question tokens differ from the sum of its calls", "%s: tokens %d+%d, its calls sum to %d+%d", where, r.PromptTokens, r.CompletionTokens, s.prompt, s.completion)
	}
	if r.Error == "" && int(r.ParseFailures) != s.parseNone {
		c.failf("parse_failures differ from unparseable calls", "%s: parse_failures = %d, %d calls have parse_method none", where, r.ParseFailures, s.parseNone)
	}
}

// checkAbstention: an abstention has a reason and, unless the question
// failed, a call that explains it; a row that did not abstain has a
// prediction.
func (c *checker) checkAbstention(r results.QuestionRow, s *callSums, where string) {
	if !r.Abstained {
		if r.Predicted == "" && r.Error == "" { // a failed unit predicts nothing and is no abstention
			c.failf("no prediction but not abstained", "%s: no prediction but not abstained", where)
		}
		return
	}
	if r.AbstainReason == "" {
		c.failf("abstained without a reason", "%s: abstained without a reason", where)
	}
	if r.Error == "" && s.abstainExplained == 0 {
		c.failf("abstained but none of its calls failed to parse or errored", "%s: abstained (%s) but none of its calls failed to parse or errored", where, r.AbstainReason)
	}
}

// callTally counts the call rows for the summary lines.
type callTally struct {
	ok, errN, cached, parseNone                  int
	prompt, completion, maxPrompt, maxCompletion int64
	classes, methods                             map[string]int
}

// unread is the tries whose replies no protocol read: every try of a unit
// but its last, and the last of a unit that failed — the protocol stopped
// at the error, so the answered calls before it have no parse method.
// Keyed "question/arm/repeat/try".
func unread(qs []results.QuestionRow) map[string]bool {
	out := map[string]bool{}
	for _, q := range qs {
		last := int(q.Tries) - 1
		if q.Error != "" {
			last++
		}
		for try := 0; try < last; try++ {
			out[fmt.Sprintf("%s/%s/%d/%d", q.QuestionID, q.Arm, q.Repeat, try)] = true
		}
	}
	return out
}

func (c *checker) checkCalls(calls []results.CallRow, unread map[string]bool) {
	t := callTally{classes: map[string]int{}, methods: map[string]int{}}
	for _, r := range calls {
		where := fmt.Sprintf("call %s/%s/%d seq %d (%s)", r.QuestionID, r.Arm, r.Repeat, r.Seq, r.Kind)
		if r.Cached {
			t.cached++
		}
		switch r.Status {
		case "ok":
			c.checkOKCall(r, where, &t, unread[fmt.Sprintf("%s/%s/%d/%d", r.QuestionID, r.Arm, r.Repeat, r.UnitTry)])
		case "error":
			t.errN++
			t.classes[r.ErrorClass]++
			if r.ErrorClass == "" || r.Error == "" {
				c.failf("error call without class or message", "%s: error call without class or message (%q, %q)", where, r.ErrorClass, r.Error)
			}
		default:
			c.failf("unknown call status", "%s: status %q", where, r.Status)
		}
	}
	fmt.Printf("  calls: %d (ok %d, error %d%s, cached %d)\n", len(calls), t.ok, t.errN, countList(t.classes), t.cached)
	fmt.Printf("  tokens of ok calls: prompt %d (max %d), completion %d (max %d)\n", t.prompt, t.maxPrompt, t.completion, t.maxCompletion)
	fmt.Printf("  parse methods:%s; unparseable %d (all with parse_error unless FAIL above)\n", countList(t.methods), t.parseNone)
	if t.ok == 0 {
		c.failf("no call succeeded", "no call succeeded")
	}
}

// checkOKCall counts a call with status ok and checks its token usage (and
// the -max-tokens and -num-ctx bounds) and its parse method.
func (c *checker) checkOKCall(r results.CallRow, where string, t *callTally, unreadTry bool) {
	t.ok++
	t.prompt += tokens(r.PromptTokens)
	t.completion += tokens(r.CompletionTokens)
	t.maxPrompt = max(t.maxPrompt, tokens(r.PromptTokens))
	t.maxCompletion = max(t.maxCompletion, tokens(r.CompletionTokens))
	if r.PromptTokens == nil || r.CompletionTokens == nil {
		c.failf("ok call without usage", "%s: status ok, but the server reported no token usage (null token columns)", where)
	} else if tokens(r.PromptTokens) <= 0 || tokens(r.CompletionTokens) <= 0 {
		c.failf("ok call without prompt or completion tokens", "%s: status ok with prompt_tokens %d, completion_tokens %d", where, tokens(r.PromptTokens), tokens(r.CompletionTokens))
	}
	if c.opts.maxTokens > 0 && tokens(r.CompletionTokens) > int64(c.opts.maxTokens) {
		c.failf("completion tokens over --max-tokens", "%s: completion_tokens %d > max tokens %d", where, tokens(r.CompletionTokens), c.opts.maxTokens)
	}
	if c.opts.numCtx > 0 && tokens(r.PromptTokens) >= int64(c.opts.numCtx) {
		c.failf("prompt filled num_ctx (truncated)", "%s: prompt_tokens %d ≥ num_ctx %d: the prompt filled the context window (silently truncated), or the run used another num_ctx", where, tokens(r.PromptTokens), c.opts.numCtx)
	}
	t.methods[cmp.Or(r.ParseMethod, "(none recorded)")]++
	if r.ParseMethod == "" && !unreadTry {
		c.failf("ok call without a parse method", "%s: ok call without a parse method", where)
	}
	if r.ParseMethod == "none" {
		t.parseNone++
		if r.ParseError == "" {
			c.failf("unparseable (parse_method none) without a parse_error", "%s: unparseable (parse_method none) without a parse_error", where)
		}
	}
}

// parseRendered turns a transcript prompt back into messages. See the
// package comment for the format and why only system+user is accepted.
func parseRendered(s string) ([]api.Message, error) {
	roles := []string{"system", "user", "assistant", "tool"}
	type hdr struct {
		at, end int
		role    string
	}
	var hs []hdr
	for _, role := range roles {
		h := "[" + role + "]\n"
		if strings.HasPrefix(s, h) {
			hs = append(hs, hdr{0, len(h), role})
		}
		sep := "\n\n" + h
		for i := 0; ; {
			j := strings.Index(s[i:], sep)
			if j < 0 {
				break
			}
			hs = append(hs, hdr{i + j, i + j + len(sep), role})
			i += j + 1
		}
	}
	sort.Slice(hs, func(a, b int) bool { return hs[a].at < hs[b].at })
	if len(hs) != 2 || hs[0].at != 0 || hs[0].role != "system" || hs[1].role != "user" {
		got := make([]string, len(hs))
		for i, h := range hs {
			got[i] = h.role
		}
		return nil, fmt.Errorf("prompt does not split into exactly [system] and [user] (headers found: %v)", got)
	}
	return []api.Message{
		{Role: "system", Content: s[hs[0].end:hs[1].at]},
		{Role: "user", Content: s[hs[1].end:]},
	}, nil
}

// pickReplays chooses calls deterministically: the longest prompt first (the
// one most at risk of truncation), then the longest of each kind, then the
// longest of the rest.
func pickReplays(calls []results.CallRow) []results.CallRow {
	var cand []results.CallRow
	for _, r := range calls {
		if r.Status == "ok" && !r.Cached && tokens(r.PromptTokens) > 0 {
			cand = append(cand, r)
		}
	}
	slices.SortStableFunc(cand, func(a, b results.CallRow) int {
		return cmp.Or(cmp.Compare(tokens(b.PromptTokens), tokens(a.PromptTokens)), cmp.Compare(a.QuestionID, b.QuestionID),
			cmp.Compare(a.Arm, b.Arm), cmp.Compare(a.Repeat, b.Repeat), cmp.Compare(a.Seq, b.Seq))
	})
	var out, rest []results.CallRow
	kinds := map[string]bool{}
	for i, r := range cand {
		if i == 0 || !kinds[r.Kind] {
			kinds[r.Kind] = true
			out = append(out, r)
		} else {
			rest = append(rest, r)
		}
	}
	return append(out, rest...)
}

func (c *checker) replay(m results.Manifest, calls []results.CallRow) {
	if c.client == nil || c.opts.replay == 0 {
		fmt.Println("  replay: skipped (no -server, or -replay 0)")
		return
	}
	temps := map[string]map[string]float64{}
	for _, a := range m.Arms {
		temps[a.Label] = a.Temperatures
	}
	want := c.opts.replay
	if want < 0 {
		want = len(calls)
	}
	var agreed, skipped, tried int
	repeated := false
	for _, r := range pickReplays(calls) {
		if tried >= want {
			break
		}
		where := fmt.Sprintf("replay of %s/%s/%d seq %d (%s, %d prompt tokens)", r.QuestionID, r.Arm, r.Repeat, r.Seq, r.Kind, tokens(r.PromptTokens))
		if r.Prompt == "" {
			c.failf("no prompt text recorded (run with --transcripts)", "%s: no prompt text recorded (run with --transcripts)", where)
			return
		}
		msgs, err := parseRendered(r.Prompt)
		if err != nil {
			skipped++
			continue
		}
		tried++
		req := c.replayRequest(r, msgs, temps[r.Arm])
		got, ok := c.replayOnce(req, r, where)
		if !ok {
			continue
		}
		agreed++
		if !repeated {
			repeated = true
			c.replayAgain(req, got, where)
		}
	}
	fmt.Printf("  replay: %d/%d calls agree with the server's prompt_eval_count", agreed, tried)
	if skipped > 0 {
		fmt.Printf(" (%d ambiguous transcripts skipped)", skipped)
	}
	fmt.Println()
	if tried == 0 {
		c.failf("replay: no call could be replayed", "replay: no call could be replayed")
	}
}

// replayRequest rebuilds call r's request for the server: its model (or
// -model), messages, seed and its role's temperature in the arm (temps;
// 0.7 for agents and 0.5 for the leader when the manifest has none), one
// token to predict, -num-ctx, no streaming and no truncation.
func (c *checker) replayRequest(r results.CallRow, msgs []api.Message, temps map[string]float64) *api.ChatRequest {
	model := c.opts.model
	if model == "" {
		_, model, _ = strings.Cut(r.Model, "/")
	}
	temp := 0.7
	role := "agent"
	if r.Agent < 0 {
		role, temp = "leader", 0.5
	}
	if t, ok := temps[role]; ok {
		temp = t
	}
	opts := map[string]any{"num_predict": 1, "seed": r.Seed, "temperature": temp}
	if c.opts.numCtx > 0 {
		opts["num_ctx"] = c.opts.numCtx
	}
	stream, truncate := false, false
	return &api.ChatRequest{Model: model, Messages: msgs, Stream: &stream, Truncate: &truncate, Options: opts}
}

// replayOnce sends req and reports whether the server's prompt token count
// equals the row's; it returns the server's count.
func (c *checker) replayOnce(req *api.ChatRequest, r results.CallRow, where string) (int, bool) {
	got, err := c.chat(req)
	if err != nil {
		c.failf("replay request failed", "%s: %v", where, err)
		return 0, false
	}
	if int64(got) != tokens(r.PromptTokens) {
		c.failf("replayed prompt tokens differ", "%s: server counts %d prompt tokens, the row says %d", where, got, tokens(r.PromptTokens))
		return 0, false
	}
	return got, true
}

// replayAgain sends the same request again at once: its whole prompt is now
// in the server's prompt cache, and the count (got) must not change.
func (c *checker) replayAgain(req *api.ChatRequest, got int, where string) {
	again, err := c.chat(req)
	switch {
	case err != nil:
		c.failf("replay repeat failed", "%s, repeated: %v", where, err)
	case again != got:
		c.failf("replay repeat counted differently", "%s: the same request counted %d prompt tokens, then %d with its prompt cached", where, got, again)
	default:
		fmt.Printf("  replay repeat: the same request again, its prompt now cached, counts %d again\n", again)
	}
}

// chat sends one non-streaming request and returns prompt_eval_count.
func (c *checker) chat(req *api.ChatRequest) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.timeout)
	defer cancel()
	var resp *api.ChatResponse
	err := c.client.Chat(ctx, req, func(r api.ChatResponse) error {
		resp = &r
		return nil
	})
	if err != nil {
		var se api.StatusError
		if errors.As(err, &se) && se.StatusCode == http.StatusBadRequest {
			return 0, fmt.Errorf("HTTP 400 with truncate=false (prompt longer than num_ctx?): %v", err)
		}
		return 0, err
	}
	if resp == nil || !resp.Done {
		return 0, errors.New("no final response")
	}
	if resp.PromptEvalCount <= 0 {
		return 0, fmt.Errorf("server reported prompt_eval_count %d", resp.PromptEvalCount)
	}
	return resp.PromptEvalCount, nil
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// countList renders {a: 2, b: 1} as " (a 2, b 1)", or "" when empty.
func countList(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	parts := make([]string, 0, len(m))
	for _, k := range mapKeys(m) {
		parts = append(parts, cmp.Or(k, `""`)+" "+strconv.Itoa(m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// tokens is a nullable token count of calls.parquet, 0 when null (the API
// reported no usage).
func tokens(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

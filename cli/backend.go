package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/llm/ollama"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
)

// backendFlags select and tune the model endpoint (the endpoint address and
// Ollama's context length are plan settings: plan.Spec.BaseURL, NumCtx).
type backendFlags struct {
	apiKey      string
	cacheMode   string
	cachePath   string
	timeout     time.Duration
	maxAttempts int
	retryBase   time.Duration
	inFlight    int
	maxInFlight int
	maxResponse int64
	offline     bool        // a dry run: open no connection (no reachability probe, no model digest)
	cacheNotes  *cacheNotes // write failures of the caches opened (nil: none opened)
}

func (b *backendFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&b.apiKey, "api-key", "", "API key for openai/ models (default $OPENAI_API_KEY); never written anywhere")
	fl.StringVar(&b.cacheMode, "cache", "auto", "response cache: rw, read, off, or auto (rw for real models, off for sim)")
	fl.StringVar(&b.cachePath, "cache-path", "", "response cache file (default: the user cache dir, medteam/responses.db)")
	fl.DurationVar(&b.timeout, "timeout", llm.DefaultPerCallTimeout, "per-attempt timeout of one model call")
	fl.IntVar(&b.maxAttempts, "max-attempts", llm.DefaultMaxAttempts, "attempts per model call (retryable errors only: 429, 5xx, timeouts, resets, malformed bodies)")
	fl.DurationVar(&b.retryBase, "retry-base-delay", llm.DefaultBaseDelay, "first backoff delay between attempts (doubles per attempt, jittered, capped at 30s; a server's Retry-After wins when longer)")
	fl.IntVar(&b.inFlight, "in-flight", 0, "fix the model calls in flight to the endpoint at this many (no adaptation); with --max-in-flight, the starting cap instead. 0 = adaptive from the provider's start (ollama 4, openai 8)")
	fl.IntVar(&b.maxInFlight, "max-in-flight", 0, fmt.Sprintf("ceiling of the adaptive cap on model calls in flight, e.g. the provider's documented concurrency limit; 0 = the provider's default (ollama 16, openai %d)", llm.DefaultMaxInFlight))
	fl.Int64Var(&b.maxResponse, "max-response-bytes", llm.DefaultMaxResponseBytes, "cap in bytes on the body of one model response (4194304 = 4 MiB); a larger answer fails the call with class oversize after reading at most this much (not retried, never cached)")
}

// defaultOpenAIBase is OpenAI's own API, used when neither --base-url nor
// OPENAI_BASE_URL is set.
const defaultOpenAIBase = "https://api.openai.com/v1"

// answered turns a probe's error into nil when the endpoint did answer (any
// HTTP answer but a 5xx or 429, e.g. 404 from a server without the probed
// route): a probe asks "is anyone there", not "is the request right".
// chatProbe is the circuit breaker's probe of an endpoint: the cheapest
// real call of the run's kind, a one-token chat completion of the run's
// model straight to the endpoint (no retry, no cache, not in the run's
// calls; the run counts the probes and their tokens apart: runner.Stats
// Probes). A server whose model list answers while its chat fails is down
// for the run (issue 28 item 5), and so is one whose chat hangs (the probe
// is bounded by the per-call timeout, at most probeTimeout).
func chatProbe(c llm.Client, model string, timeout time.Duration) runner.Probe {
	if timeout <= 0 || timeout > probeTimeout {
		timeout = probeTimeout
	}
	return func(ctx context.Context) (llm.Response, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp, err := c.Chat(ctx, llm.Request{Model: model, MaxTokens: 1,
			Messages: []llm.Message{{Role: "user", Content: probePrompt}}, Meta: llm.Meta{Kind: "probe"}})
		resp.Attempts = llm.Sent(resp, err)
		if err != nil && ctx.Err() != nil {
			return resp, &llm.Error{Class: llm.ClassTimeout, Err: fmt.Errorf("probe chat did not answer in %s: %w", timeout, err)}
		}
		return resp, answered(err)
	}
}

// probePrompt is the probe's whole request.
const probePrompt = "Reply with OK."

// probeTimeout bounds one probe.
const probeTimeout = 30 * time.Second

func answered(err error) error {
	switch llm.ClassOf(err) {
	case llm.ClassNetwork, llm.ClassTimeout, llm.ClassServer, llm.ClassRateLimited, llm.ClassAuth, llm.ClassCanceled:
		return err
	}
	return nil
}

// splitModel parses provider/name.
func splitModel(model string) (provider, name string, err error) {
	provider, name, ok := strings.Cut(model, "/")
	if !ok || provider == "" || name == "" {
		return "", "", usagef("--model %q: write provider/model, e.g. sim/default, ollama/llama3.1:8b, openai/gpt-4o-mini", model)
	}
	return provider, name, nil
}

// opener opens plan endpoints with these flags.
func (b *backendFlags) opener() plan.Opener {
	return func(ctx context.Context, model string, s plan.Spec, qs []qa.Question) (*plan.Endpoint, error) {
		return openEndpoint(ctx, model, b, s, qs)
	}
}

// backendOpeners build the backend of each provider and fill in what the
// endpoint records of it.
var backendOpeners = map[string]func(ctx context.Context, ep *plan.Endpoint, b *backendFlags, s plan.Spec, qs []qa.Question) (llm.Client, error){
	"sim":    openSim,
	"ollama": openOllama,
	"openai": openOpenAI,
}

// openEndpoint builds the client stack cache ▸ limiter ▸ retry ▸ backend
// (the runner adds a meter per question outside it).
func openEndpoint(ctx context.Context, model string, b *backendFlags, s plan.Spec, qs []qa.Question) (*plan.Endpoint, error) {
	provider, name, err := splitModel(model)
	if err != nil {
		return nil, err
	}
	if err := b.validate(s); err != nil {
		return nil, err
	}
	open, ok := backendOpeners[provider]
	if !ok {
		return nil, usagef("--model %q: unknown provider %q; use sim, ollama or openai", model, provider)
	}
	ep := &plan.Endpoint{Request: name, Ref: results.ModelRef{Name: model, Provider: provider}, Close: func() {}}
	backend, err := open(ctx, ep, b, s, qs)
	if err != nil {
		return nil, err
	}
	rp := llm.DefaultRetryPolicy()
	rp.MaxAttempts, rp.PerCallTimeout = b.maxAttempts, b.timeout
	if b.retryBase > 0 {
		rp.BaseDelay = b.retryBase
	}
	lim := llm.NewLimiter(nil, b.limitPolicy(provider))
	ep.Gate = &llm.GateSocket{}
	ep.Client, ep.Limits = llm.NewGatedRetry(backend, rp, lim, ep.Gate), lim.Stats
	if !ep.Sim { // the simulator has no capacity to follow: the runner's floor sets its pace
		ep.Spare = lim.Spare
	}
	if err := b.wrapCache(ep); err != nil {
		return ep, err
	}
	if s.RetryTruncated {
		// Above the cache: the cut reply and its retry are cached (and
		// served on a rerun) each under its own request's key.
		ep.Client = llm.NewTruncationRetry(ep.Client)
	}
	return ep, nil
}

// validate checks the backend flags that need no backend.
func (b *backendFlags) validate(s plan.Spec) error {
	if b.maxAttempts < 1 || b.timeout < 0 || s.NumCtx < 0 || b.inFlight < 0 || b.maxInFlight < 0 {
		return usagef("--max-attempts must be ≥ 1; --timeout, --num-ctx, --in-flight and --max-in-flight must be ≥ 0")
	}
	if b.maxInFlight > 0 && b.inFlight > b.maxInFlight {
		return usagef("--in-flight %d is above --max-in-flight %d: the starting cap must be within the ceiling", b.inFlight, b.maxInFlight)
	}
	if b.maxResponse < 1 {
		return usagef("--max-response-bytes must be ≥ 1 (default %d, 4 MiB), got %d", llm.DefaultMaxResponseBytes, b.maxResponse)
	}
	return nil
}

// limitPolicy is the provider's limiter policy under --in-flight and
// --max-in-flight: --in-flight alone fixes the cap; --max-in-flight bounds
// the adaptive cap (starting at --in-flight when given).
func (b *backendFlags) limitPolicy(provider string) llm.LimitPolicy {
	lp := llm.DefaultLimitPolicy(provider)
	switch {
	case b.maxInFlight > 0:
		lp.Max = b.maxInFlight
		lp.Initial = min(lp.Initial, lp.Max)
		if b.inFlight > 0 {
			lp.Initial = b.inFlight
		}
	case b.inFlight > 0:
		lp.Initial, lp.Min, lp.Max = b.inFlight, b.inFlight, b.inFlight
	}
	return lp
}

func openSim(_ context.Context, ep *plan.Endpoint, _ *backendFlags, _ plan.Spec, qs []qa.Question) (llm.Client, error) {
	p, err := sim.LookupProfile(ep.Request)
	if err != nil {
		return nil, usagef("--model %q: %v", ep.Ref.Name, err)
	}
	items := make(map[string]sim.Item, len(qs))
	for _, q := range qs {
		items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold}
		if g := q.TriageGold; g != nil && q.Kind == qa.KindTriage {
			items[q.ID] = sim.Item{Letters: q.Letters(), Gold: q.Gold, Diagnosis: g.Diagnosis}
		}
	}
	ep.Sim = true
	return protocols.NewSim(p, items), nil
}

func openOllama(ctx context.Context, ep *plan.Endpoint, b *backendFlags, s plan.Spec, _ []qa.Question) (llm.Client, error) {
	c, err := ollama.New(ollama.Config{Host: s.BaseURL, NumCtx: s.NumCtx, MaxResponseBytes: b.maxResponse})
	if err != nil {
		return nil, usagef("--base-url: %v", err)
	}
	ep.Ref.BaseURL = c.Endpoint()
	ep.Probe = chatProbe(c, ep.Request, b.timeout)
	if b.offline { // a dry run sends nothing: the digest stays unknown
		return c, nil
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	digest, err := c.Digest(pctx, ep.Request)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("model %s at %s: %w (is the server running and the model pulled? try: medteam models --model ollama/ --base-url %s)", ep.Ref.Name, c.Endpoint(), err, c.Endpoint())
	}
	ep.Ref.Digest = digest
	return c, nil
}

func openOpenAI(ctx context.Context, ep *plan.Endpoint, b *backendFlags, s plan.Spec, _ []qa.Question) (llm.Client, error) {
	base := firstNonEmpty(s.BaseURL, os.Getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
	key := firstNonEmpty(b.apiKey, os.Getenv("OPENAI_API_KEY"))
	c, err := openai.New(openai.Config{BaseURL: base, APIKey: key, MaxResponseBytes: b.maxResponse})
	if err != nil {
		return nil, usagef("--base-url: %v", err)
	}
	ep.Ref.BaseURL = cache.CleanBaseURL(c.Endpoint())
	ep.Probe = chatProbe(c, ep.Request, b.timeout)
	if b.offline { // a dry run sends nothing
		return c, nil
	}
	// Reachability before the run, as for Ollama: a wrong address or a
	// stopped server fails here, not after the first question.
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, err = c.Models(pctx)
	err = answered(err)
	cancel()
	if err != nil {
		if llm.ClassOf(err).Fatal() {
			return nil, fmt.Errorf("model %s at %s: %w\n%s", ep.Ref.Name, ep.Ref.BaseURL, err, fatalHint(err))
		}
		return nil, fmt.Errorf("model %s: cannot reach %s: %w (is the server running and the address right? try: medteam models --model openai/ --base-url %s)", ep.Ref.Name, ep.Ref.BaseURL, err, ep.Ref.BaseURL)
	}
	return c, nil
}

// wrapCache puts the response cache around ep's client as --cache says.
func (b *backendFlags) wrapCache(ep *plan.Endpoint) error {
	mode := b.cacheMode
	if mode == "auto" {
		mode = "rw"
		if ep.Sim {
			mode = "off"
		}
	}
	m, err := cache.ParseMode(mode)
	if err != nil || m == cache.ModeOff {
		if err != nil {
			return usagef("--cache: %v", err)
		}
		return nil
	}
	path := b.cachePath
	if path == "" {
		if path, err = cache.DefaultPath(); err != nil {
			return fmt.Errorf("locating the response cache: %w (set --cache-path or --cache off)", err)
		}
	}
	db, err := cache.Open(path)
	if err != nil {
		return fmt.Errorf("opening the response cache: %w (set --cache-path or --cache off)", err)
	}
	if b.cacheNotes == nil {
		b.cacheNotes = &cacheNotes{}
	}
	b.cacheNotes.watch(path, db)
	ep.Close = func() { db.Close() }
	ep.Client = db.Wrap(ep.Client, cache.Identity{Provider: ep.Ref.Provider, BaseURL: ep.Ref.BaseURL, Model: ep.Request, Digest: ep.Ref.Digest}, m)
	return nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// scrubArgs hides secret flag values (API keys, credentials in a base URL)
// before argv is recorded anywhere.
func scrubArgs(argv []string) []string {
	out := make([]string, len(argv))
	copy(out, argv)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case a == "--api-key" && i+1 < len(out):
			out[i+1] = "[redacted]"
			i++
		case strings.HasPrefix(a, "--api-key="):
			out[i] = "--api-key=[redacted]"
		case a == "--base-url" && i+1 < len(out):
			out[i+1] = cache.CleanBaseURL(out[i+1])
			i++
		case strings.HasPrefix(a, "--base-url="):
			out[i] = "--base-url=" + cache.CleanBaseURL(strings.TrimPrefix(a, "--base-url="))
		}
	}
	return out
}

// fatalHint explains a fatal backend error in one message.
func fatalHint(err error) string {
	switch llm.ClassOf(err) {
	case llm.ClassAuth:
		return "the endpoint refused the credentials: set OPENAI_API_KEY (or --api-key) for this endpoint"
	case llm.ClassNotFound:
		return "the endpoint does not serve this model: check --model and list what it serves with 'medteam models'"
	}
	var e *llm.Error
	if errors.As(err, &e) {
		return string(e.Class)
	}
	return ""
}

// printUsageMissing says how many calls of the run the endpoint answered
// without reporting token usage, and what that does to the totals and the
// budget.
func printUsageMissing(w io.Writer, rows []results.QuestionRow, st runner.Stats, b runner.Budget) {
	var n int64
	for _, r := range rows {
		n += int64(r.CallsUsageMissing)
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "usage not reported for %d call(s) (questions.parquet calls_usage_missing; null token columns in calls.parquet): token totals and costs are lower bounds", n)
	switch {
	case st.EstimatedTokens > 0:
		fmt.Fprintf(w, "; this invocation's %d tokens include an estimate of %d for the calls sent without usage", st.Tokens, st.EstimatedTokens)
	case st.UsageMissing > 0 && (b.Tokens > 0 || b.USD > 0):
		fmt.Fprint(w, "; no estimate was available to charge the budget for them")
	}
	fmt.Fprintln(w)
}

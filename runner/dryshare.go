package runner

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/prefixcache"
)

// shareTally counts, in a dry run, the requests a run would share: the
// memo (memo.go) sends a request that several arms (or calls) of one
// question, model and repeat make alike once. The dry run's arms keep
// their own stub's answers, so their logical estimates do not depend on
// which arm asked first; the tally only notes each request's hash, and a
// request counts as sent once, with the tokens of the first arm in plan
// order that makes it. Counts are deterministic whatever the scheduling.
type shareTally struct {
	rank                  map[string]int // arm label → plan order
	per                   int            // units of one question and model (arms × repeats)
	mu                    sync.Mutex
	open                  map[string]*questionTally // by model and question
	calls                 int64                     // calls noted so far
	sent                  int64                     // distinct requests of the finished questions
	sentPrompt, sentCompl int64
	// rule is the provider prompt-cache rule the sent requests are
	// counted under (prefixcache.None: none); sentCached is the prompt
	// tokens of the sent requests its cache would serve.
	rule       prefixcache.Rule
	sentCached int64
}

// questionTally is the requests of one question and model so far.
type questionTally struct {
	first map[string]firstAsk // by request hash and repeat
	units int                 // units finished
}

// firstAsk is the earliest arm (plan order) that made a request, with
// the tokens its stub's answer counted.
type firstAsk struct {
	rank               int
	prompt, completion int
	// Under a cache rule: the request's place (repeat, protocol order),
	// messages and reply, for the question's prompt cache at its close.
	repeat, order int
	msgs          []llm.Message
	reply         string
}

func newShareTally(arms []Arm, repeats int) *shareTally {
	t := &shareTally{rank: map[string]int{}, per: len(arms) * max(repeats, 1), open: map[string]*questionTally{}}
	for i, a := range arms {
		t.rank[a.Label] = i
	}
	return t
}

func questionKey(model, question string) string { return model + "\x00" + question }

// note records one answered request of model, answered reply.
func (t *shareTally) note(model string, req *llm.Request, u llm.Usage, reply string) {
	key := llm.HashOf(req) + "/" + strconv.Itoa(req.Meta.Repeat)
	ask := firstAsk{rank: t.rank[req.Meta.Arm], prompt: u.PromptTokens, completion: u.CompletionTokens}
	if t.rule != prefixcache.None {
		ask.repeat, ask.order, ask.msgs, ask.reply = req.Meta.Repeat, req.Meta.Order, req.Messages, reply
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls++
	q := t.question(questionKey(model, req.Meta.QuestionID))
	if f, ok := q.first[key]; !ok || ask.rank < f.rank {
		q.first[key] = ask
	}
}

func (t *shareTally) question(k string) *questionTally {
	q := t.open[k]
	if q == nil {
		q = &questionTally{first: map[string]firstAsk{}}
		t.open[k] = q
	}
	return q
}

// finished records a finished unit; after the last of its question and
// model, that question's distinct requests are added up and forgotten.
func (t *shareTally) finished(model, question string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := questionKey(model, question)
	q := t.question(k)
	if q.units++; q.units < t.per {
		return
	}
	t.close(k, q)
}

func (t *shareTally) close(k string, q *questionTally) {
	for _, f := range q.first {
		t.sent++
		t.sentPrompt += int64(f.prompt)
		t.sentCompl += int64(f.completion)
	}
	if t.rule != prefixcache.None {
		t.sentCached += cachedOf(t.rule, q.first)
	}
	delete(t.open, k)
}

// cachedOf is the prompt tokens of a question's sent requests that a
// provider's cache under rule would serve: the requests in the order a
// sequential run makes them (arms in plan order, repeats, the protocol's
// call order) against a cache of that question's prompts (and under vLLM
// its replies), each request's cached count scaled to the stub's token
// count. Prompts other questions share (instructions) are left out, so the
// count does not depend on scheduling; it is a lower bound.
func cachedOf(rule prefixcache.Rule, first map[string]firstAsk) int64 {
	asks := slices.SortedFunc(maps.Values(first), func(a, b firstAsk) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.repeat, b.repeat), cmp.Compare(a.order, b.order),
			cmp.Compare(len(a.msgs), len(b.msgs)), cmp.Compare(a.prompt, b.prompt))
	})
	c := prefixcache.New(rule)
	var cached int64
	for _, f := range asks {
		n := c.Serve("", f.msgs, f.reply)
		if total := prefixcache.PromptTokens(f.msgs); total > 0 {
			cached += int64(n) * int64(f.prompt) / int64(total)
		}
	}
	return cached
}

// totals closes what is still open (a unit that failed) and returns the
// calls shared, the tokens of the calls sent and the prompt tokens of
// theirs the provider's cache would serve.
func (t *shareTally) totals() (shared, prompt, completion, cached int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, q := range t.open {
		t.close(k, q)
	}
	return t.calls - t.sent, t.sentPrompt, t.sentCompl, t.sentCached
}

// tallied notes every answer of c for model in t.
func tallied(c llm.Client, model string, t *shareTally) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := c.Chat(ctx, req)
		if err == nil {
			t.note(model, &req, resp.Usage, resp.Text)
		}
		return resp, err
	})
}

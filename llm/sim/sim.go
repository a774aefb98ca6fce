package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// Item is what the simulator learns of a question, at construction only:
// its option letters and the gold letter, and, for a triage item, the gold
// diagnosis: an agent's answer then states a diagnosis on a DIAGNOSIS line
// (or under "diagnosis" in JSON) — the gold one when its first choice is
// the gold letter, WrongDiagnosis otherwise.
type Item struct {
	Letters   []string
	Gold      string
	Diagnosis string
}

// item is an Item with everything the simulator derives from the question
// id alone, computed once by New.
type item struct {
	id         string
	letters    []string
	gold       int8
	distractor int8
	difficulty float64
	zq         float64 // per-question shared normal of the correctness draw
	qhash      uint64
	truePool   [poolSize]uint8
	falsePool  [poolSize]uint8
	relevance  [nSpecialties]uint8 // specialties, most relevant first
	relRank    [nSpecialties]uint8 // relevance rank of each specialty
	agents     int                 // TeamSize answer, 2–4
	diagnosis  string              // the gold diagnosis of a triage item ("" otherwise)
	err        error               // non-nil for an unusable item
}

func (it *item) letterIndex(s string) int {
	for i, l := range it.letters {
		if l == s {
			return i
		}
	}
	for i, l := range it.letters {
		if equalFoldASCII(l, s) {
			return i
		}
	}
	return -1
}

// Model is the simulated backend. It is safe for concurrent use; its
// answers depend on nothing but the profile, the items and the request.
type Model struct {
	p     Profile
	items map[string]*item
	kinds map[string]*Behaviour // the registered behaviours, by kind
	mk    *markerSet            // the prompt markers it reads
	first []FirstField          // the fields behaviours add to the first answer
	calls atomic.Int64

	// failing holds, for requests whose last attempts failed by fault
	// injection, the number of consecutive failures, so that a retried
	// request draws a fresh fault decision (and eventually succeeds). An
	// entry is dropped on the first success. Only used when ErrorRate > 0;
	// it never influences an answer's text.
	mu      sync.Mutex
	failing map[uint64]uint32
}

var _ llm.Client = (*Model)(nil)

// New returns a simulated model answering with profile p about items (keyed
// by question id), and the calls of the protocols' kinds with their
// behaviours bs (the registry's: protocols.All().Sim()). The map is copied;
// it is the only place the simulator learns gold answers. A kind claimed
// twice, or a code taken twice, panics: the behaviours are code, not input.
func New(p Profile, items map[string]Item, bs ...Behaviour) *Model {
	m := &Model{p: p, items: make(map[string]*item, len(items)), failing: map[uint64]uint32{}}
	m.register(bs)
	for id, src := range items {
		m.items[id] = newItem(p, id, src)
	}
	return m
}

// newItem checks src and derives the question's traits from its id (and
// the profile's Spread); an unusable item carries its error.
func newItem(p Profile, id string, src Item) *item {
	it := &item{id: id, letters: append([]string(nil), src.Letters...), gold: -1, distractor: -1, diagnosis: src.Diagnosis}
	it.qhash = mix64(fnv64(id))
	if it.err = it.findGold(src.Gold); it.err != nil {
		return it
	}
	it.drawTraits(p)
	it.drawRelevance()
	it.drawPools()
	return it
}

// findGold checks the option letters (2 to maxLetters, no repeats) and sets
// the index of the gold letter among them.
func (it *item) findGold(gold string) error {
	n := len(it.letters)
	if n < 2 || n > maxLetters {
		return fmt.Errorf("question %q has %d options; the simulator needs 2 to %d", it.id, n, maxLetters)
	}
	for i, l := range it.letters {
		for j := 0; j < i; j++ {
			if it.letters[j] == l {
				return fmt.Errorf("question %q repeats option letter %q", it.id, l)
			}
		}
		if l == gold {
			it.gold = int8(i)
		}
	}
	if it.gold < 0 {
		return fmt.Errorf("question %q: gold %q is not one of its letters %v", it.id, gold, it.letters)
	}
	return nil
}

// drawTraits draws the difficulty, the shared correctness noise, the
// attractive distractor (never the gold) and the team size of the TeamSize
// answer.
func (it *item) drawTraits(p Profile) {
	r := newStream(it.qhash, tagDifficulty)
	it.difficulty = 0.5 + p.Spread*(r.float()-0.5)

	r = newStream(it.qhash, tagShared)
	it.zq = r.normal()

	r = newStream(it.qhash, tagDistractor)
	d := r.intn(len(it.letters) - 1)
	if d >= int(it.gold) {
		d++
	}
	it.distractor = int8(d)

	r = newStream(it.qhash, tagAgents)
	switch u := r.float(); {
	case u < 0.25:
		it.agents = 2
	case u < 0.75:
		it.agents = 3
	default:
		it.agents = 4
	}
}

// drawRelevance orders the specialties by relevance to the question: a
// seeded permutation.
func (it *item) drawRelevance() {
	r := newStream(it.qhash, tagRelevance)
	for i := range it.relevance {
		it.relevance[i] = uint8(i)
	}
	for i := nSpecialties - 1; i > 0; i-- {
		j := r.intn(i + 1)
		it.relevance[i], it.relevance[j] = it.relevance[j], it.relevance[i]
	}
	for rank, s := range it.relevance {
		it.relRank[s] = uint8(rank)
	}
}

// drawPools draws the fact pools: 2·poolSize distinct facts of the bank,
// the first half supportive, the second the distractor pool.
func (it *item) drawPools() {
	r := newStream(it.qhash, tagPools)
	var bank [nFacts]uint8
	for i := range bank {
		bank[i] = uint8(i)
	}
	for i := 0; i < 2*poolSize; i++ {
		j := i + r.intn(nFacts-i)
		bank[i], bank[j] = bank[j], bank[i]
	}
	copy(it.truePool[:], bank[:poolSize])
	copy(it.falsePool[:], bank[poolSize:2*poolSize])
}

// Requests returns the number of Chat calls served (including failed ones).
func (m *Model) Requests() int64 { return m.calls.Load() }

// Chat answers req. It implements llm.Client.
func (m *Model) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	m.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return llm.Response{}, m.ctxError(&req, err)
	}
	it := m.items[req.Meta.QuestionID]
	if it == nil {
		return llm.Response{}, m.badRequest(&req, fmt.Errorf("unknown question id %q", req.Meta.QuestionID))
	}
	if it.err != nil {
		return llm.Response{}, m.badRequest(&req, it.err)
	}
	kc, b, ok := m.kind(req.Meta.Kind)
	if !ok {
		return llm.Response{}, m.badRequest(&req, fmt.Errorf("unknown call kind %q: no core kind and no registered protocol behaviour (sim.New's behaviours) answers it", req.Meta.Kind))
	}

	c := call{m: m, p: &m.p, it: it, req: &req, n: len(it.letters), b: b}
	c.key = callKey(req.Seed, it.qhash, kc, req.Meta.Turn, req.Meta.Agent)

	if m.p.ErrorRate > 0 {
		if err := m.fault(&c); err != nil {
			return llm.Response{}, err
		}
	}

	text := c.respond()

	var lat time.Duration
	if m.p.Latency > 0 {
		r := c.rng(tagLatency)
		lat = time.Duration(float64(m.p.Latency) * (1 + m.p.Jitter*(2*r.float()-1)))
		if lat > 0 {
			t := time.NewTimer(lat)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return llm.Response{}, m.ctxError(&req, ctx.Err())
			}
		} else {
			lat = 0
		}
	}

	promptBytes := 0
	for i := range req.Messages {
		promptBytes += len(req.Messages[i].Content)
	}
	usage := llm.Usage{
		PromptTokens:     max(1, (promptBytes+3)/4+4*len(req.Messages)),
		CompletionTokens: max(1, (len(text)+3)/4),
	}
	return llm.Response{Text: text, Usage: usage, Latency: lat, Attempts: 1}, nil
}

// callKey hashes the identity of a call: everything a draw may depend on
// besides the purpose tag. Arm and Repeat are deliberately absent.
func callKey(seed int64, qhash, kind uint64, turn, agent int) uint64 {
	h := mix64(uint64(seed) + golden)
	h = mix64(h ^ qhash)
	h = mix64(h ^ (kind * 0xd6e8feb86659fd93))
	h = mix64(h ^ uint64(int64(turn))*0xa0761d6478bd642f)
	h = mix64(h ^ uint64(int64(agent)+2)*0xe7037ed1a0b428db)
	return h
}

// kindCode codes the core's own kinds.
func kindCode(k string) (uint64, bool) {
	switch k {
	case kindFirst:
		return 12, true
	}
	return 0, false
}

// fault decides whether this attempt fails. The decision is a pure function
// of the call and the number of consecutive failures it has had so far.
func (m *Model) fault(c *call) error {
	m.mu.Lock()
	attempt := m.failing[c.key]
	r := newStream(c.key^mix64(uint64(attempt)+1), tagFault)
	fail := r.float() < m.p.ErrorRate
	if fail {
		m.failing[c.key] = attempt + 1
	} else if attempt > 0 {
		delete(m.failing, c.key)
	}
	m.mu.Unlock()
	if !fail {
		return nil
	}
	e := &llm.Error{Provider: "sim", Model: c.req.Model}
	switch r.intn(3) {
	case 0:
		e.Class, e.Status = llm.ClassRateLimited, 429
		e.Err = errors.New("simulated rate limit")
	case 1:
		e.Class, e.Status = llm.ClassServer, 503
		e.Err = errors.New("simulated server error")
	default:
		e.Class = llm.ClassTimeout
		e.Err = errors.New("simulated timeout")
	}
	return e
}

func (m *Model) badRequest(req *llm.Request, err error) error {
	return &llm.Error{Class: llm.ClassBadRequest, Provider: "sim", Model: req.Model, Status: 400, Err: err}
}

func (m *Model) ctxError(req *llm.Request, err error) error {
	class := llm.ClassCanceled
	if errors.Is(err, context.DeadlineExceeded) {
		class = llm.ClassTimeout
	}
	return &llm.Error{Class: class, Provider: "sim", Model: req.Model, Err: err}
}

// String describes the model (profile name and item count).
func (m *Model) String() string { return fmt.Sprintf("sim(%s, %d items)", m.p.Name, len(m.items)) }

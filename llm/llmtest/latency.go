package llmtest

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/medteam-bench/medteam/llm"
)

// LatencyAnswer is the answer LatencyServer gives a request whose schema
// has no entry in LatencyAnswers: an agent's ranking (predict, discuss,
// final).
const LatencyAnswer = `{"reasoning":"r","ranking":["A","B","C","D"],"confidence":0.6,"facts":["f"]}`

// LatencyAnswers are well-formed answers of medteam's other structured call
// kinds, by the schema name a request carries (see teamwork/FORMATS.md),
// so that every call parses and a protocol takes its full path.
var LatencyAnswers = map[string]string{
	"medteam_assess":          `{"agents":3,"analysis":"a"}`,
	"medteam_recruit":         `{"roles":[{"name":"Cardiologist","focus":"f"},{"name":"Internist","focus":"f"},{"name":"Pharmacologist","focus":"f"}]}`,
	"medteam_synthesize":      `{"facts":["f"],"report":"r","quality":[0.8,0.6,0.7]}`,
	"medteam_mediate":         `{"summary":"s","leaning":"A"}`,
	"medteam_monitor_select":  `{"agent":2,"concern":"c"}`,
	"medteam_monitor_respond": `{"response":"r","accepts":true,"ranking":["A","B","C","D"],"confidence":0.6}`,
	"medteam_monitor_rate":    `{"quality":0.7,"debated_point":"d"}`,
	"medteam_tiebreak":        `{"answer":"A","reasoning":"r"}`,
}

// LatencyServer is a minimal OpenAI-compatible chat-completion endpoint with
// a hard capacity, for throughput measurements: every POST
// /v1/chat/completions is answered after Delay with a well-formed answer
// (LatencyAnswers by schema name, else LatencyAnswer) and token usage, at
// most Cap requests being served at once; the rest wait in the handler (as
// vLLM or Ollama queue them) or, with Reject, are answered 429 with
// Retry-After: 1 at once (as hosted APIs do). GET /v1/models answers too.
// Its counters are safe to read while it serves.
type LatencyServer struct {
	delay  time.Duration
	reject bool
	opts   LatencyOptions
	cache  *PrefixCache // nil without opts.Cache
	slots  chan struct{}
	start  atomic.Int64 // Unix ns, for the counts after the first second

	Requests atomic.Int64 // answered 200
	Rejected atomic.Int64 // answered 429
	Active   atomic.Int64 // in the handler now (queued or served)
	Peak     atomic.Int64 // most in the handler at once
	Conns    atomic.Int64 // TCP connections accepted (when wired to ConnState)
	Busy     atomic.Int64 // total service time (ns): slot taken to answer written
	// LateAll and LateRejected count the requests, and the 429s, more than
	// a second after Start.
	LateAll, LateRejected atomic.Int64
	// First and Last are when the first chat request arrived and the last
	// answer left (Unix ns; 0 = none yet).
	First, Last atomic.Int64
	// PromptTokens and CachedTokens sum the prompt tokens of the answered
	// requests and those of them served from the prompt cache.
	PromptTokens, CachedTokens atomic.Int64
}

// LatencyOptions are a LatencyServer's optional behaviours; the zero value
// is none of them.
type LatencyOptions struct {
	// Cache, other than CacheNone, caches prompt prefixes under that rule
	// (see PrefixCache) and reports usage.prompt_tokens_details.cached_tokens
	// in every answer; the prompt tokens are then PromptTokens of the
	// messages (else a quarter of the body's bytes, unless Prefill is set).
	Cache CacheRule
	// StoreOnAnswer stores a prompt's prefixes when its answer is sent
	// rather than when it arrives, so requests in flight together (parallel
	// agents) do not share them, as on a provider that caches a prefix once
	// processed; on arrival (the default) they do, as vLLM's scheduler
	// shares the blocks of requests scheduled in the same step, and the
	// counts do not depend on timing.
	StoreOnAnswer bool
	// Prefill, when > 0, is added to the service time per uncached prompt
	// token (the prefill a cached prefix saves on a local server).
	Prefill time.Duration
	// PadWords, when > 0, pads the free-text field of every answer
	// (reasoning, analysis, report, summary, response) to this many words
	// drawn from the request's hash, so that replies have a realistic
	// length and differ from one request to the next; the answer stays
	// well formed.
	PadWords int
}

// NewLatencyServer returns a server of capacity cap and service time delay.
func NewLatencyServer(cap int, delay time.Duration, reject bool) *LatencyServer {
	return NewLatencyServerWith(cap, delay, reject, LatencyOptions{})
}

// NewLatencyServerWith is NewLatencyServer with options.
func NewLatencyServerWith(cap int, delay time.Duration, reject bool, o LatencyOptions) *LatencyServer {
	s := &LatencyServer{delay: delay, reject: reject, opts: o, slots: make(chan struct{}, cap)}
	if o.Cache != CacheNone {
		s.cache = NewPrefixCache(o.Cache)
	}
	s.Start()
	return s
}

// PrefixCache is the server's prompt cache, nil without LatencyOptions.Cache.
func (s *LatencyServer) PrefixCache() *PrefixCache { return s.cache }

// Cap is the requests served at once.
func (s *LatencyServer) Cap() int { return cap(s.slots) }

// Delay is the service time of one request.
func (s *LatencyServer) Delay() time.Duration { return s.delay }

// Start marks the start of a run (for LateAll and LateRejected).
func (s *LatencyServer) Start() { s.start.Store(time.Now().UnixNano()) }

// ConnState counts new connections; set it as http.Server.ConnState.
func (s *LatencyServer) ConnState(_ net.Conn, st http.ConnState) {
	if st == http.StateNew {
		s.Conns.Add(1)
	}
}

type latencyRequest struct {
	Model          string        `json:"model"`
	Messages       []llm.Message `json:"messages"`
	ResponseFormat *struct {
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *LatencyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/stats":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Stats())
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"bench","object":"model"}]}`)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	default:
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
	}
}

func (s *LatencyServer) chat(w http.ResponseWriter, r *http.Request) {
	s.First.CompareAndSwap(0, time.Now().UnixNano())
	n := s.Active.Add(1)
	defer s.Active.Add(-1)
	for p := s.Peak.Load(); n > p && !s.Peak.CompareAndSwap(p, n); p = s.Peak.Load() {
	}
	var req latencyRequest
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	late := time.Since(time.Unix(0, s.start.Load())) > time.Second
	if late {
		s.LateAll.Add(1)
	}
	if !s.take(r) {
		if late {
			s.LateRejected.Add(1)
		}
		s.Rejected.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"error":{"message":"Rate limit reached: too many requests in flight","type":"requests","code":"rate_limit_exceeded"}}`, http.StatusTooManyRequests)
		return
	}
	taken := time.Now()
	defer func() {
		s.Busy.Add(int64(time.Since(taken)))
		<-s.slots
	}()
	content := s.content(req, body)
	prompt := len(body) / 4
	if s.cache != nil || s.opts.Prefill > 0 {
		prompt = PromptTokens(req.Messages)
	}
	cached, store := s.lookup(req, content)
	t := time.NewTimer(s.delay + time.Duration(prompt-max(cached, 0))*s.opts.Prefill)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	store(content)
	s.answer(w, req, content, prompt, cached)
}

// lookup is the prompt cache's reading of req: the tokens it serves (-1:
// no cache) and what stores req's prefixes once answered (under
// StoreOnAnswer; else they are stored on arrival, in the same step as the
// lookup, and store does nothing).
func (s *LatencyServer) lookup(req latencyRequest, content string) (int, func(string)) {
	switch {
	case s.cache == nil:
		return -1, func(string) {}
	case s.opts.StoreOnAnswer:
		return s.cache.Lookup(req.Model, req.Messages)
	}
	return s.cache.Serve(req.Model, req.Messages, content), func(string) {}
}

// content is the answer text to req, whose body is body.
func (s *LatencyServer) content(req latencyRequest, body []byte) string {
	content := LatencyAnswer
	if f := req.ResponseFormat; f != nil && f.JSONSchema != nil {
		if a, ok := LatencyAnswers[f.JSONSchema.Name]; ok {
			content = a
		}
	}
	if s.opts.PadWords > 0 {
		content = padAnswer(content, s.opts.PadWords, body)
	}
	return content
}

// answer writes content as the answer to req, whose prompt is prompt
// tokens long, cached of them from the cache (-1: no cache, none reported).
func (s *LatencyServer) answer(w http.ResponseWriter, req latencyRequest, content string, prompt, cached int) {
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": len(content) / 4, "total_tokens": prompt + len(content)/4}
	if cached >= 0 {
		usage["prompt_tokens_details"] = map[string]int{"cached_tokens": cached}
		s.CachedTokens.Add(int64(cached))
	}
	s.PromptTokens.Add(int64(prompt))
	out, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   usage,
	})
	s.Requests.Add(1) // before the answer leaves, so a finished run has counted it
	s.Last.Store(time.Now().UnixNano())
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// take waits for a service slot (without Reject) or takes a free one; it
// reports false when none was taken (rejected, or the client went away).
func (s *LatencyServer) take(r *http.Request) bool {
	if s.reject {
		select {
		case s.slots <- struct{}{}:
			return true
		default:
			return false
		}
	}
	select {
	case s.slots <- struct{}{}:
		return true
	case <-r.Context().Done():
		return false
	}
}

// LatencyStats is a snapshot of a LatencyServer's counters (GET /stats).
type LatencyStats struct {
	Cap          int     `json:"cap"`
	DelayMS      float64 `json:"delay_ms"`
	Requests     int64   `json:"requests"`
	Rejected     int64   `json:"rejected"`
	Peak         int64   `json:"peak"`
	Conns        int64   `json:"conns"`
	WallS        float64 `json:"wall_s"`   // first request to last answer
	Rate         float64 `json:"rate"`     // requests / wall
	OfBound      float64 `json:"of_bound"` // rate ÷ (cap / delay)
	LateAll      int64   `json:"late_all"` // requests after the first second
	LateRejected int64   `json:"late_rejected"`
	PromptTokens int64   `json:"prompt_tokens"` // of the answered requests
	CachedTokens int64   `json:"cached_tokens"` // of them, served from the prompt cache
}

// Stats returns the counters, with the achieved rate against the bound.
func (s *LatencyServer) Stats() LatencyStats {
	st := LatencyStats{Cap: s.Cap(), DelayMS: float64(s.delay) / float64(time.Millisecond), Requests: s.Requests.Load(),
		Rejected: s.Rejected.Load(), Peak: s.Peak.Load(), Conns: s.Conns.Load(), LateAll: s.LateAll.Load(), LateRejected: s.LateRejected.Load(),
		PromptTokens: s.PromptTokens.Load(), CachedTokens: s.CachedTokens.Load()}
	if f, l := s.First.Load(), s.Last.Load(); f > 0 && l > f {
		st.WallS = float64(l-f) / 1e9
		st.Rate = float64(st.Requests) / st.WallS
		st.OfBound = st.Rate / (float64(st.Cap) / s.delay.Seconds())
	}
	return st
}

// padFields are the free-text fields of the latency answers, which
// padAnswer fills.
var padFields = []string{"reasoning"}

// padWords is the vocabulary of the padding.
var padWords = strings.Fields(`the patient presents with acute chronic pain fever history of
	examination shows elevated reduced normal findings suggest likely diagnosis treatment
	therapy risk factor symptom laboratory imaging reveals consistent with management first
	line option because however therefore given clinical features support exclude other
	causes such as infection inflammation cardiac renal hepatic pulmonary neurologic dose`)

// padAnswer replaces the value of each free-text field of the JSON answer
// content with words words drawn from a hash of body.
func padAnswer(content string, words int, body []byte) string {
	var obj map[string]any
	if json.Unmarshal([]byte(content), &obj) != nil {
		return content
	}
	h := fnv.New64a()
	h.Write(body)
	x := h.Sum64() | 1
	for _, f := range padFields {
		if _, ok := obj[f]; !ok {
			continue
		}
		var b strings.Builder
		for i := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			b.WriteString(padWords[x%uint64(len(padWords))])
		}
		obj[f] = b.String()
	}
	out, _ := json.Marshal(obj)
	return string(out)
}

// Package llmtest is the test kit of the model backends: a conformance suite
// every llm.Client implementation passes (Run), and fake OpenAI-compatible
// and Ollama-compatible HTTP servers (NewOpenAIServer, NewOllamaServer) that
// answer deterministically and inject faults on demand.
//
// # Conformance suite
//
// Run holds a backend to the llm.Client contract, one subtest per check:
// Text, Usage, Deterministic (with Options.SupportsSeed), Structured,
// Canceled, DeadlinePassed, CancelInFlight and DeadlineInFlight (with
// Options.Stall), TypedErrors, the hostile-server checks EmptyChoices,
// MissingUsage, Oversize and Echo/… (with Options.Hostile), and Concurrent.
// Each check states the clause it tests (see checks.go); a check that does
// not apply to the backend is skipped, and one that fails logs its clause.
// CheckError is the suite's test that an error is a classified *llm.Error,
// for backends' own tests too.
//
// RunBatch holds a batch.Provider (llm/batch) to the batch contract on the
// fake batch endpoint: Complete, PartialErrors, Expired, Failed, Cancel,
// Split and List (see batchsuite.go).
//
// # Fake servers
//
// A Server listens on loopback (net/http/httptest) and is closed by the
// test's Cleanup. The OpenAI flavour serves
//
//	POST /v1/chat/completions   GET /v1/models
//
// and the batch API (batch.go):
//
//	POST /v1/files (multipart, purpose=batch)   GET /v1/files/{id}/content
//	POST /v1/batches   GET /v1/batches/{id}   POST /v1/batches/{id}/cancel   GET /v1/batches
//
// and the Ollama flavour serves
//
//	POST /api/chat   GET /api/tags   POST /api/show   GET /api/version
//
// The answer to a chat request is a pure function of the model, the messages
// and the seed (see DefaultRespond, or supply ServerOptions.Respond): the
// same request always gets the same text. A request asking for structured
// output (OpenAI response_format json_object/json_schema, Ollama format
// "json" or a schema) gets a JSON object. Token usage is reported with Tokens
// (about four bytes per token, plus four per message) and can be left out
// (ServerOptions.OmitUsage).
//
// # Prompt caching
//
// With ServerOptions.CacheRule the OpenAI flavour serves prompt prefixes
// from a cache as a provider does (PrefixCache) and reports the cached
// tokens of every answer in "usage": prompt_tokens_details.cached_tokens
// (OpenAI, vLLM), or with ServerOptions.CacheField prompt_cache_hit_tokens
// and prompt_cache_miss_tokens (DeepSeek) or cache_read_input_tokens
// (Anthropic's name). Without a rule no cached field is sent, and the
// Ollama flavour never sends one (Ollama reports none).
//
// A prompt is a sequence of PromptTokens tokens: each message, in order,
// is four header tokens standing for its role, then its content in 4-byte
// pieces (the last one shorter), one token each. The cache keeps, per
// model, every prefix of every prompt it has served that ends on a block
// boundary; a prompt's cached tokens are its longest such prefix seen
// before, under the rule:
//
//	CacheOpenAI  blocks of 128; a prompt under 1,024 tokens, or a match
//	             under 1,024, caches nothing (so 1,024 + 128·k)
//	CacheVLLM    blocks of 16; the prompt's last token is never cached
//
// Under CacheVLLM a prompt is stored followed by its reply as an assistant
// message (vLLM keeps the generated tokens' blocks), so a conversation that
// carries the reply on finds it; under CacheOpenAI only prompts are
// stored. A prompt is looked up and stored in one step on arrival, so
// that parallel requests with a common prefix share it and the counts do
// not depend on timing (LatencyOptions.StoreOnAnswer stores it when
// answered instead: requests in flight together then do not share).
//
// LatencyServer (latency.go) applies the same rules with
// LatencyOptions.Cache, charges LatencyOptions.Prefill of service time per
// uncached prompt token, and pads its answers' free-text fields to
// LatencyOptions.PadWords words (the realistic reply lengths of a
// measurement; see scripts/cachemeasure).
//
// Knobs set at construction (ServerOptions): the served models (other names
// get 404), a bearer key (401 without it), a context length (400 with the
// flavour's own wording for a longer prompt; an Ollama request that does not
// say truncate:false is silently truncated instead, as Ollama does), and the
// rejection of json_schema (400 naming response_format, as servers without
// schema support do).
//
// Faults are set at any time and apply to every endpoint:
//
//	s.FailNext(3, llmtest.RateLimited("2"))   // the next 3 requests get 429
//	s.FailFraction(0.2, llmtest.Status(503))  // about 20% of requests get 503
//	s.ClearFaults()
//
// FailNext faults are served first, in order. The FailFraction draw is
// deterministic: the n-th occurrence of a given request (path and body)
// fails iff hash(FaultSeed, path, body, n) < fraction, so a run is
// reproducible whatever the interleaving of distinct requests, and a retried
// identical request draws afresh (it eventually gets through) unless the
// rule is sticky (FailFractionSticky). Fault kinds: Status (any code, with an
// optional Retry-After), Malformed (a 200 whose body is not the expected
// JSON), Truncated (a 200 whose body stops before its Content-Length), Hang
// (no answer until the client gives up), Slow (a normal answer after a
// delay), Reset (the connection is reset without a response), NoUsage (a
// normal answer without token counts), EmptyChoices (a 200 holding no
// answer: OpenAI "choices": [], Ollama no "message"), Oversize (a
// well-formed answer of any size, streamed), and Echo / EchoError (the
// request's credentials — the Authorization header, decoded Basic
// user:password — echoed in the answer text or in an error body).
// FailFractionMix draws one of several faults per selected request.
// ServerOptions.ChatFaultsOnly keeps faults off the other endpoints.
//
// The fake batch endpoint checks an input file when it is uploaded
// (JSONL; every line a POST to /v1/chat/completions with a body and a
// unique custom_id; 400 otherwise) and a batch when it is created
// (endpoint /v1/chat/completions, completion_window 24h, a known file).
// Each line is answered by the chat endpoint's own handler, so the batch
// answer to a line is the synchronous answer to its body. A batch moves on
// when it is polled (GET /v1/batches/{id}): validating → in_progress →
// finalizing → completed, staying BatchMode.PollsPerStage polls in each
// (0: done at the first poll); no test sleeps. SetBatchMode sets, for the
// batches created next, the outcome (BatchFail: failed in validation with
// errors.data; BatchExpire: the window ends during in_progress) and
// Prefix, the lines answered before an expiry or a cancel — the others are
// error-file entries with code batch_expired or batch_cancelled and no
// response — and partial errors: ErrorFraction of the run lines get an
// error entry of ErrorStatus (429, 500, …), drawn from FaultSeed, the
// custom_id and how many times it has run, so a resubmitted line draws
// afresh (ErrorSticky: it fails every time). Answers go to the output
// file, error entries to the error file; request_counts count both. A
// cancel turns a running batch cancelling and it ends cancelled at its next
// poll; a finished batch refuses it (409). BatchStats counts files
// uploaded, batches created, the lines of each, lines run, polls and
// cancels — what a test of "no batch resubmitted" reads; BatchState and
// BatchInputBodies show a batch's state and its lines' bodies.
//
// Counters (Requests, ChatRequests, Injected) are atomic; Last and LastChat
// return the last request received, for assertions on the wire format.
// Served lists every request with the fault it got, InjectedBy counts the
// chat faults by name, and Fault.Class gives the error class a client should
// report for an attempt that met a fault, so a test can compare what a run
// recorded with what the server did. AwaitChatRequests lets the count settle
// (a request written just before its client gave up reaches the handler a
// moment later).
package llmtest

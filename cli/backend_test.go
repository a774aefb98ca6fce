package cli

import (
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/results"
)

// runDir returns the single run directory under out.
func runDir(t *testing.T, out string) string {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("want one run directory in %s, got %v", out, runs)
	}
	return runs[0]
}

func needMedQA(t *testing.T) {
	t.Helper()
	needShared(t, medqaTest)
}

// sharedDir returns the absolute path of ../shared/REL beside the
// repository (or beside the folder of a git worktree under it), where the
// file PROBE inside it exists; the test skips naming the path when it is
// absent, as in a user's clone.
func sharedDir(t *testing.T, rel, probe string) string {
	t.Helper()
	for _, up := range []string{"../..", "../../.."} {
		d := filepath.Join(up, "shared", filepath.FromSlash(rel))
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(probe))); err == nil {
			abs, err := filepath.Abs(d)
			if err != nil {
				t.Fatal(err)
			}
			return abs
		}
	}
	t.Skipf("needs ../shared/%s (../shared beside the checkout, as in CI): not present", rel)
	return ""
}

// needShared skips a test that reads path, a real file of ../shared (beside
// the checkout in CI, absent from a user's clone), with one line naming it.
func needShared(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("needs %s (../shared beside the checkout, as in CI): not present", path)
	}
}

// TestFaultInjection: 50 questions with the full preset against fake
// servers that fail 20% or 50% of chat requests with every kind of fault —
// 429 with Retry-After, 500, 503, reset, hang past the timeout, truncated
// body, garbage, an answer without usage, an answer without choices, an
// oversize body, an answer echoing the credentials — through the whole
// stack (meter ▸ cache ▸ limiter ▸ retry ▸ backend) and the runner.
//
// Every question gets a row; the attempts recorded in calls.parquet equal
// the requests the server received, exactly; and the failed attempts'
// classes match the faults the server says it injected: per class, the
// recorded count is the injected count less the attempts that a failing
// sibling call canceled in flight (recorded as canceled — the only slack,
// and the canceled attempts cover it).
func TestFaultInjection(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	const key = "sk-medteam-fault-5e1d0c9a77"
	faults := []llmtest.Fault{
		// Retry-After in fractional seconds (as some servers send) keeps the
		// test fast; whole seconds and HTTP dates are covered by the
		// backends' and the retry middleware's own tests.
		llmtest.RateLimited("0.05"), llmtest.Status(500), llmtest.Status(503), llmtest.Reset(), llmtest.Hang(),
		llmtest.Truncated(), llmtest.Malformed(), llmtest.NoUsage(), llmtest.EmptyChoices(),
		llmtest.Oversize(1 << 20), llmtest.Echo(),
	}
	tests := []struct {
		name     string
		flavor   llmtest.Flavor
		fraction float64
		cache    string
	}{
		{"openai/20%", llmtest.FlavorOpenAI, 0.2, "off"},
		{"openai/50%", llmtest.FlavorOpenAI, 0.5, "rw"},
		{"ollama/50%", llmtest.FlavorOllama, 0.5, "rw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // mostly waiting on timeouts and backoff
			opts := llmtest.ServerOptions{Models: []string{"tiny"}, FaultSeed: 5, ChatFaultsOnly: true, KeepBodies: true}
			var srv *llmtest.Server
			args := []string{"run", "--base-url", srv2url(t, &srv, tt.flavor, opts)}
			if tt.flavor == llmtest.FlavorOpenAI {
				args = append(args, "--model", "openai/tiny", "--api-key", key)
			} else {
				args = append(args, "--model", "ollama/tiny")
			}
			srv.FailFractionMix(tt.fraction, faults...)
			out := t.TempDir()
			start := time.Now()
			code, stdout, stderr := runCLI(t, append(args, "--dataset", medqaSample, "--limit", "50", "--config", "full",
				// The timeout must leave the loaded test machine time to answer
				// every request but the injected hangs: a slow answer timed out
				// would be a timeout the server did not inject.
				"--parallel", "16", "--in-flight", "32", "--timeout", "2s", "--retry-base-delay", "5ms", "--max-attempts", "4",
				"--max-response-bytes", "65536", "--cache", tt.cache, "--cache-path", filepath.Join(out, "cache.db"),
				// Injected oversize answers end units in (non-retryable) errors;
				// this test is about accounting, so it tolerates them.
				"--max-error-rate", "1",
				"--out", filepath.Join(out, "runs"))...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, key) {
				t.Fatal("the API key appears in the output")
			}
			dir := runDir(t, filepath.Join(out, "runs"))
			qs, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
			if err != nil {
				t.Fatal(err)
			}
			calls, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 50 {
				t.Fatalf("%d question rows, want 50: questions were lost", len(qs))
			}
			ids := map[string]bool{}
			failed := 0
			for _, q := range qs {
				if ids[q.QuestionID] {
					t.Fatalf("duplicate row for %s", q.QuestionID)
				}
				ids[q.QuestionID] = true
				if q.Error != "" {
					failed++
					if q.ErrorClass == "" {
						t.Fatalf("row %s has an error without a class: %s", q.QuestionID, q.Error)
					}
				}
			}

			// What the client recorded.
			recorded := map[llm.ErrorClass]int{}
			attempts, okCalls, nullUsage := 0, 0, 0
			for _, c := range calls {
				if c.Attempts > 4*3 { // 4 tries; a format downgrade adds requests (none here)
					t.Fatalf("call made %d attempts", c.Attempts)
				}
				if len(c.AttemptErrors) > int(c.Attempts) {
					t.Fatalf("call lists %d failed attempts of %d", len(c.AttemptErrors), c.Attempts)
				}
				attempts += int(c.Attempts)
				for _, e := range c.AttemptErrors {
					recorded[llm.ErrorClass(e)]++
				}
				if c.Status == "ok" && !c.Cached {
					okCalls++
					if _, _, ok := c.Tokens(); !ok {
						nullUsage++
					}
				}
				if strings.Contains(c.Response+c.Error, key) {
					t.Fatalf("the key appears in calls.parquet")
				}
			}
			// What the server did.
			requests := srv.AwaitChatRequests(int64(attempts), 2*time.Second)
			expected := map[llm.ErrorClass]int{}
			successes := 0 // requests the server answered as a success
			probes := 0    // the circuit breaker's probe chats: not calls of the run
			for _, r := range srv.Served() {
				if !r.Chat {
					continue
				}
				if bytes.Contains(r.Body, []byte(probePrompt)) {
					probes++
					continue
				}
				if c := r.Fault.Class(); c != "" {
					expected[c]++
				} else {
					successes++
				}
			}
			injected := srv.InjectedBy()
			t.Logf("%s in %s: %d rows (%d failed), %d calls, %d attempts recorded, %d requests served (%d breaker probes), %d faults %v",
				tt.name, time.Since(start).Round(time.Millisecond), len(qs), failed, len(calls), attempts, requests, probes, srv.Injected(), injected)
			t.Logf("failed attempts by class: injected %v, recorded %v", expected, recorded)

			if mp := manifestProbes(t, dir); mp != probes {
				t.Errorf("manifest.json counts %d probes, the server received %d probe chats", mp, probes)
			}
			if int64(attempts) != requests-int64(probes) {
				t.Errorf("calls.parquet counts %d attempts, the server saw %d chat requests (%d of them breaker probes)", attempts, requests, probes)
			}
			// A success the server sent after the client's per-call deadline
			// (a loaded machine) is a real timeout that nobody injected: it
			// is counted, and must balance the books below.
			late := max(0, recorded[llm.ClassTimeout]-expected[llm.ClassTimeout])
			if late > 0 {
				t.Logf("%d answered requests timed out on the client (slow machine)", late)
			}
			slack := 0
			for c, n := range expected {
				r := recorded[c]
				if c == llm.ClassTimeout {
					r -= late
				}
				if r > n {
					t.Errorf("class %s: %d attempts recorded, only %d injected", c, r, n)
				}
				slack += n - r
				if n > 0 && recorded[c] == 0 {
					t.Errorf("class %s injected %d times, never recorded", c, n)
				}
			}
			for c, n := range recorded {
				if c != llm.ClassCanceled && expected[c] == 0 && (c != llm.ClassTimeout || n > late) {
					t.Errorf("class %s recorded %d times, never injected", c, n)
				}
			}
			if okCalls > successes {
				t.Errorf("%d successful calls, the server answered only %d requests successfully", okCalls, successes)
			}
			// The canceled attempts are exactly the faulted ones not recorded
			// under their class plus the would-be successes canceled.
			if canceled := recorded[llm.ClassCanceled]; slack > canceled || canceled-slack+late != successes-okCalls {
				t.Errorf("%d attempts canceled, %d late; %d faulted attempts unaccounted for and %d successes not recorded", canceled, late, slack, successes-okCalls)
			}
			if nullUsage > injected["no_usage"] || injected["no_usage"] > 0 && nullUsage == 0 {
				t.Errorf("%d calls without usage recorded, %d answers without usage served", nullUsage, injected["no_usage"])
			}
		})
	}
}

// manifestProbes is counts.probes of the run in dir (read as plain JSON).
func manifestProbes(t *testing.T, dir string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Counts struct {
			Probes int `json:"probes"`
		} `json:"counts"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m.Counts.Probes
}

// srv2url starts a fake server of flavor into *srv and returns its base URL.
func srv2url(t *testing.T, srv **llmtest.Server, flavor llmtest.Flavor, opts llmtest.ServerOptions) string {
	t.Helper()
	if flavor == llmtest.FlavorOpenAI {
		*srv = llmtest.NewOpenAIServer(t, opts)
	} else {
		opts.Models = []string{"tiny:latest"}
		*srv = llmtest.NewOllamaServer(t, opts)
	}
	return (*srv).BaseURL()
}

// TestCacheRerun: the same command again with the cache on makes no backend
// request and gives identical decisions; --cache off makes them all again.
func TestCacheRerun(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	cachePath := filepath.Join(t.TempDir(), "cache.db")
	args := func(out, mode string) []string {
		return []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
			"--limit", "10", "--config", "base,full", "--cache", mode, "--cache-path", cachePath, "--out", out}
	}
	decisions := func(out string) []string {
		qs, err := results.ReadQuestions(filepath.Join(runDir(t, out), results.QuestionsFile))
		if err != nil {
			t.Fatal(err)
		}
		var d []string
		for _, q := range qs {
			d = append(d, q.Arm+"|"+q.QuestionID+"|"+q.Predicted+"|"+strings.Join(q.Rounds, ";"))
		}
		return d
	}
	out1, out2, out3 := t.TempDir(), t.TempDir(), t.TempDir()
	if code, so, se := runCLI(t, args(out1, "rw")...); code != 0 {
		t.Fatalf("first run: %d\n%s\n%s", code, so, se)
	}
	first := srv.ChatRequests()
	if first == 0 {
		t.Fatal("first run made no requests")
	}
	code, so, se := runCLI(t, args(out2, "rw")...)
	if code != 0 {
		t.Fatalf("second run: %d\n%s\n%s", code, so, se)
	}
	if got := srv.ChatRequests() - first; got != 0 {
		t.Fatalf("cached rerun made %d backend requests, want 0", got)
	}
	if !slices.Equal(decisions(out1), decisions(out2)) {
		t.Fatal("cached rerun changed decisions")
	}
	cached, err := results.ReadQuestions(filepath.Join(runDir(t, out2), results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range cached {
		if q.CachedCalls != q.Calls || q.Attempts != 0 {
			t.Fatalf("row %s: %d of %d calls cached, %d attempts", q.QuestionID, q.CachedCalls, q.Calls, q.Attempts)
		}
	}
	if code, so, se := runCLI(t, args(out3, "off")...); code != 0 {
		t.Fatalf("uncached run: %d\n%s\n%s", code, so, se)
	}
	if got := srv.ChatRequests() - first; got != first {
		t.Fatalf("--cache off made %d requests, want %d", got, first)
	}
	if !slices.Equal(decisions(out1), decisions(out3)) {
		t.Fatal("uncached rerun changed decisions (the fake server is deterministic)")
	}
}

// TestAPIKeyNeverWritten: credentials reach the server but no file of the
// run directories (journal.db, both parquet files — decoded, since their
// pages are compressed — manifest.json), the cache, stdout or stderr, in any
// form: the API key, "Bearer <key>", the base URL's password, "user:pass" and
// its Basic form. The server echoes the Authorization header into answers
// (kept with --transcripts), into error bodies (the error columns) and into
// a fatal 401 (stderr).
func TestAPIKeyNeverWritten(t *testing.T) {
	const key, user, pass = "sk-medteam-test-9f3c1a7e55d2", "proxyuser", "pw-medteam-4b8e21"
	secrets := []string{key, "Bearer " + key, pass, user + ":" + pass, base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))}
	keyed := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, APIKey: key, FaultSeed: 4, ChatFaultsOnly: true})
	open := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, FaultSeed: 4, ChatFaultsOnly: true})
	for _, s := range []*llmtest.Server{keyed, open} {
		s.FailFractionMix(0.2, llmtest.Echo(), llmtest.Echo(), llmtest.EchoError(http.StatusInternalServerError), llmtest.EchoError(http.StatusBadRequest))
	}
	withCreds := func(base string) string { return strings.Replace(base, "http://", "http://"+user+":"+pass+"@", 1) }
	tmp := t.TempDir()
	cachePath := filepath.Join(tmp, "cache", "responses.db")
	var logs bytes.Buffer
	runs := []struct {
		name     string
		srv      *llmtest.Server
		base     string
		env      string   // OPENAI_API_KEY
		extra    []string // flags
		fatal    bool
		wantAuth string // prefix of the Authorization header the server saw
	}{
		{"key from the environment", keyed, keyed.BaseURL(), key, nil, false, "Bearer "},
		{"key flag, password in the base URL", keyed, withCreds(keyed.BaseURL()), "", []string{"--api-key", key}, false, "Bearer "},
		{"password in the base URL: Basic auth", open, withCreds(open.BaseURL()), "", nil, false, "Basic "},
		{"wrong key", keyed, keyed.BaseURL(), key + "-wrong", nil, true, "Bearer "},
		{"401 echoing Basic auth", open, withCreds(open.BaseURL()), "", nil, true, "Basic "},
	}
	for i, r := range runs {
		t.Setenv("OPENAI_API_KEY", r.env)
		if r.name == "401 echoing Basic auth" {
			r.srv.FailNext(1, llmtest.EchoError(http.StatusUnauthorized))
		}
		args := append([]string{"run", "--model", "openai/tiny", "--base-url", r.base, "--dataset", medqaSample,
			"--limit", "12", "--config", "full", "--transcripts", "--cache", "rw", "--cache-path", cachePath,
			"--max-attempts", "2", "--retry-base-delay", "1ms", "--seed", fmt.Sprint(i + 1),
			"--max-error-rate", "1", // echoed error bodies end units in errors: this test is about where secrets land
			"--out", filepath.Join(tmp, "runs"), "--run-name", fmt.Sprintf("run%d", i)}, r.extra...)
		code, so, se := runCLI(t, args...)
		logs.WriteString(so + se)
		if (code != 0) != r.fatal {
			t.Fatalf("%s: exit %d\n%s\n%s", r.name, code, so, se)
		}
		if got := r.srv.Last().Header.Get("Authorization"); !strings.HasPrefix(got, r.wantAuth) || len(got) < len(r.wantAuth)+8 {
			t.Fatalf("%s: the server saw Authorization %q; the test proves nothing", r.name, got)
		}
	}
	for _, s := range []*llmtest.Server{keyed, open} {
		by := s.InjectedBy()
		t.Logf("echoes served: %v", by)
		if by["echo"] == 0 || by["echo_500"] == 0 || by["echo_400"] == 0 {
			t.Fatalf("the server echoed too little to prove anything: %v", by)
		}
	}
	check := func(what string, b []byte) {
		for _, sec := range secrets {
			if bytes.Contains(b, []byte(sec)) {
				t.Errorf("%q appears in %s", sec, what)
			}
		}
	}
	check("stdout/stderr", logs.Bytes())
	files := map[string]bool{}
	err := filepath.Walk(tmp, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[filepath.Base(path)] = true
		check(path, b)
		switch filepath.Base(path) {
		case results.QuestionsFile:
			rows, err := results.ReadQuestions(path)
			if err != nil {
				return err
			}
			check(path+" (decoded)", []byte(fmt.Sprintf("%+v", rows)))
		case results.CallsFile:
			rows, err := results.ReadCalls(path)
			if err != nil {
				return err
			}
			var texts bytes.Buffer
			for _, r := range rows {
				fmt.Fprintf(&texts, "%s\n%s\n%s\n%s\n", r.Response, r.Error, r.Prompt, r.ParseNotes)
			}
			if !bytes.Contains(texts.Bytes(), []byte(llm.Redacted)) {
				t.Errorf("%s: no redacted echo among the responses and errors; the check proves nothing", path)
			}
			check(path+" (decoded)", texts.Bytes())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"journal.db", results.QuestionsFile, results.CallsFile, "manifest.json", "responses.db"} {
		if !files[want] {
			t.Errorf("no %s was checked (checked %v)", want, files)
		}
	}
}

// TestFatalErrorsStopRun: 401 and 404 end the run at once with one message.
func TestFatalErrorsStopRun(t *testing.T) {
	needMedQA(t)
	tests := []struct {
		name, model, want string
		opts              llmtest.ServerOptions
	}{
		{"401", "openai/tiny", "auth", llmtest.ServerOptions{Models: []string{"tiny"}, APIKey: "right"}},
		{"404", "openai/nope", "model_not_found", llmtest.ServerOptions{Models: []string{"tiny"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewOpenAIServer(t, tt.opts)
			t.Setenv("OPENAI_API_KEY", "wrong")
			out := t.TempDir()
			start := time.Now()
			code, so, se := runCLI(t, "run", "--model", tt.model, "--base-url", srv.BaseURL(), "--dataset", medqaTest,
				"--limit", "1000", "--config", "full", "--parallel", "8", "--cache", "off", "--out", out)
			took := time.Since(start)
			if code != exitError {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitError, so, se)
			}
			if took > 5*time.Second {
				t.Fatalf("took %s to stop", took)
			}
			if n := strings.Count(se, "medteam:"); n != 1 || !strings.Contains(se, tt.want) || !strings.Contains(se, srv.BaseURL()) {
				t.Fatalf("want one message naming %s and the endpoint, got %d:\n%s", tt.want, n, se)
			}
			if got := srv.ChatRequests(); got > 16 {
				t.Fatalf("%d requests reached the server before the run stopped", got)
			}
			if runs, _ := filepath.Glob(filepath.Join(out, "*")); len(runs) != 0 {
				t.Fatalf("an empty run directory was left: %v", runs)
			}
			// A directory that already holds the user's files is never removed.
			mine := filepath.Join(out, "mystudy")
			os.MkdirAll(mine, 0o755)
			os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("keep me"), 0o644)
			runCLI(t, "run", "--model", tt.model, "--base-url", srv.BaseURL(), "--limit", "2", "--cache", "off", "--out", out, "--run-name", "mystudy")
			if b, err := os.ReadFile(filepath.Join(mine, "notes.txt")); err != nil || string(b) != "keep me" {
				t.Fatalf("a fatal error removed the user's files: %v", err)
			}
			t.Logf("stopped after %d requests in %s: %s", srv.ChatRequests(), took.Round(time.Millisecond), strings.TrimSpace(se[strings.Index(se, "medteam:"):]))
		})
	}
}

// TestContextTooLong: a prompt longer than the model's context is a
// per-question error of its own class, counted in the summary — never
// silently truncated.
func TestContextTooLong(t *testing.T) {
	srv := llmtest.NewOllamaServer(t, llmtest.ServerOptions{Models: []string{"tiny:latest"}, ContextLength: 300})
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--model", "ollama/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
		"--limit", "5", "--config", "base", "--num-ctx", "300", "--cache", "off", "--out", out)
	// Every unit ended in a (non-retryable) error: the run finishes, writes
	// its rows, and exits exitUnitErrors saying so.
	if code != exitUnitErrors || !strings.Contains(se, "5 of 5 units ended in error (context_length 5)") || !strings.Contains(se, "will fail again until their cause is fixed") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if !strings.Contains(so, "errors in base: context_length 5") {
		t.Fatalf("summary does not count the context_length errors:\n%s", so)
	}
	qs, err := results.ReadQuestions(filepath.Join(runDir(t, out), results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.ErrorClass != "context_length" {
			t.Fatalf("row %s: class %q (%s)", q.QuestionID, q.ErrorClass, q.Error)
		}
	}
	body, err := srv.LastChat().JSON()
	if err != nil || body["truncate"] != false {
		t.Fatalf("requests must carry truncate:false (got %v, %v)", body["truncate"], err)
	}
}

func TestModelsCommand(t *testing.T) {
	oll := llmtest.NewOllamaServer(t, llmtest.ServerOptions{Models: []string{"tiny:latest", "other:7b"}})
	oai := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	tests := []struct {
		args []string
		code ExitCode
		want string
	}{
		{[]string{"--model", "ollama/", "--base-url", oll.BaseURL()}, 0, "serves 2 model(s)"},
		{[]string{"--model", "ollama/tiny", "--base-url", oll.BaseURL()}, 0, "serves tiny (digest "},
		{[]string{"--model", "ollama/missing", "--base-url", oll.BaseURL()}, exitError, `does not serve "missing"`},
		{[]string{"--model", "openai/", "--base-url", oai.BaseURL()}, 0, "tiny"},
		{[]string{"--model", "sim/"}, 0, "default"},
		{[]string{"--model", "acme/"}, exitUsage, "provider"},
	}
	for _, tt := range tests {
		code, so, se := runCLI(t, append([]string{"models"}, tt.args...)...)
		if code != tt.code || !strings.Contains(so+se, tt.want) {
			t.Errorf("models %v: exit %d, output %q; want exit %d and %q", tt.args, code, so+se, tt.code, tt.want)
		}
	}
}

// TestUsageMissing: answers without usage are recorded as such — null token
// columns in calls.parquet, calls_usage_missing in questions.parquet — and
// the summary counts them and says what the budget charged instead.
func TestUsageMissing(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, FaultSeed: 2})
	srv.FailFraction(0.3, llmtest.NoUsage())
	out := t.TempDir()
	code, so, se := runCLI(t, "run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
		"--limit", "6", "--config", "base", "--cache", "off", "--budget-tokens", "100000000", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	dir := runDir(t, out)
	qs, err := results.ReadQuestions(filepath.Join(dir, results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	calls, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
	if err != nil {
		t.Fatal(err)
	}
	var fromQuestions, nulls int
	for _, q := range qs {
		fromQuestions += int(q.CallsUsageMissing)
	}
	for _, c := range calls {
		p, q, ok := c.Tokens()
		switch {
		case !ok && c.Status == "ok":
			nulls++
		case ok && (p == 0 || q == 0):
			t.Errorf("call %s/%d: %d+%d tokens; a missing usage must be null, not 0", c.QuestionID, c.Seq, p, q)
		}
	}
	if injected := srv.InjectedBy()["no_usage"]; nulls != injected || fromQuestions != injected {
		t.Fatalf("server left usage out of %d answers; calls.parquet has %d null rows, questions.parquet counts %d", injected, nulls, fromQuestions)
	}
	want := fmt.Sprintf("usage not reported for %d call(s)", nulls)
	if !strings.Contains(so, want) || !strings.Contains(so, "include an estimate of") {
		t.Fatalf("the summary does not count the calls without usage (%q):\n%s", want, so)
	}
}

// TestMaxResponseBytes: the flag caps every response body; an answer past
// it fails its question with class oversize and is never cached.
func TestMaxResponseBytes(t *testing.T) {
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	cachePath := filepath.Join(t.TempDir(), "cache.db")
	run := func(extra ...string) (ExitCode, string, string) {
		return runCLI(t, append([]string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
			"--limit", "3", "--config", "base", "--cache", "rw", "--cache-path", cachePath, "--out", t.TempDir()}, extra...)...)
	}
	cached := func() int {
		db, err := sql.Open("sqlite", cachePath)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM responses").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Every answer of the fake server is a few hundred bytes: a 64-byte cap
	// makes each one oversize.
	code, so, se := run("--max-response-bytes", "64")
	if code != exitUnitErrors || !strings.Contains(se, "3 of 3 units ended in error (oversize 3)") {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	if !strings.Contains(so, "errors in base: oversize 3") {
		t.Fatalf("summary does not show the oversize errors:\n%s", so)
	}
	if n := cached(); n != 0 {
		t.Fatalf("%d oversize answers were cached", n)
	}
	if srv.ChatRequests() != 3 {
		t.Fatalf("%d requests for 3 questions: an oversize answer must not be retried", srv.ChatRequests())
	}
	if code, so, se := run(); code != 0 || cached() == 0 {
		t.Fatalf("default cap: exit %d, %d cached\n%s\n%s", code, cached(), so, se)
	}
	if code, _, se := run("--max-response-bytes", "0"); code != exitUsage || !strings.Contains(se, "--max-response-bytes") {
		t.Fatalf("--max-response-bytes 0: exit %d\n%s", code, se)
	}
}

// TestProbeRequestIsTold: TestFaultInjection tells the breaker's probe chats
// from call attempts by probePrompt in the body the server kept
// (KeepBodies); a probe must carry it, and a server without KeepBodies
// keeps no bodies.
func TestProbeRequestIsTold(t *testing.T) {
	for _, keep := range []bool{true, false} {
		srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, KeepBodies: keep})
		c, err := openai.New(openai.Config{BaseURL: srv.BaseURL()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chatProbe(c, "tiny", 0)(t.Context()); err != nil {
			t.Fatal(err)
		}
		served := srv.Served()
		if len(served) != 1 || !served[0].Chat || bytes.Contains(served[0].Body, []byte(probePrompt)) != keep || !keep && served[0].Body != nil {
			t.Errorf("KeepBodies %v: served %+v", keep, served)
		}
	}
}

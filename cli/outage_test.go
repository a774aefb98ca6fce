package cli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

// flakyEndpoint puts a switch in front of a fake server: while down, every
// connection is dropped without an answer (as a stopped server or a broken
// network looks to a client).
type flakyEndpoint struct {
	srv  *llmtest.Server
	down atomic.Bool
	http *httptest.Server
}

func newFlakyEndpoint(t *testing.T) *flakyEndpoint {
	f := &flakyEndpoint{srv: llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})}
	target, err := url.Parse(f.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	proxy := httputil.NewSingleHostReverseProxy(target)
	f.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.down.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(f.http.Close)
	return f
}

func (f *flakyEndpoint) baseURL() string { return f.http.URL + "/v1" }

// outageSeconds is the length of the mid-run outage (MEDTEAM_OUTAGE_SECONDS
// overrides it, e.g. 30 for the figure).
func outageSeconds() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("MEDTEAM_OUTAGE_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 3 * time.Second
}

// TestOutageMidRun (issue 9 item 1): the endpoint drops every connection for
// a while in the middle of a 200-question full run and then recovers; the
// run waits for it and completes with zero error rows and the same rows as
// an uninterrupted run. A permanent outage stops the run resumably (exit
// exitUnavailable) within the bound, without error rows; after recovery the
// same command completes it.
func TestOutageMidRun(t *testing.T) {
	t.Parallel()
	needMedQA(t)
	if testing.Short() {
		t.Skip("-short")
	}
	args := func(base, out string, extra ...string) []string {
		return append([]string{"run", "--model", "openai/tiny", "--base-url", base, "--dataset", medqaTest,
			"--limit", "200", "--config", "full", "--agents", "3", "--cache", "off", "--parallel", "8",
			"--max-attempts", "2", "--retry-base-delay", "20ms", "--outage-probe", "200ms", "--out", out, "--run-name", "r"}, extra...)
	}
	ref := newFlakyEndpoint(t)
	refOut := t.TempDir()
	if code, so, se := runCLI(t, args(ref.baseURL(), refOut)...); code != 0 {
		t.Fatalf("reference run: exit %d\n%s\n%s", code, so, se)
	}
	wantQ, wantC := finalRows(t, filepath.Join(refOut, "r"))

	t.Run("recovers", func(t *testing.T) {
		ep := newFlakyEndpoint(t)
		outage := outageSeconds()
		go func() {
			for ep.srv.ChatRequests() < 1200 {
				time.Sleep(time.Millisecond)
			}
			ep.down.Store(true)
			time.Sleep(outage)
			ep.down.Store(false)
		}()
		out := t.TempDir()
		start := time.Now()
		code, so, se := runCLI(t, args(ep.baseURL(), out)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, so, se)
		}
		t.Logf("run with a %s outage took %s", outage, time.Since(start).Round(time.Millisecond))
		gotQ, gotC := finalRows(t, filepath.Join(out, "r"))
		errs := 0
		for _, q := range gotQ {
			if q.Error != "" {
				errs++
			}
		}
		if errs != 0 {
			t.Fatalf("%d error rows after an outage the run waited out", errs)
		}
		if !reflect.DeepEqual(gotQ, wantQ) || !reflect.DeepEqual(gotC, wantC) {
			t.Fatal("rows differ from the uninterrupted run")
		}
	})

	t.Run("permanent then resumed", func(t *testing.T) {
		ep := newFlakyEndpoint(t)
		go func() {
			for ep.srv.ChatRequests() < 600 {
				time.Sleep(time.Millisecond)
			}
			ep.down.Store(true)
		}()
		out := t.TempDir()
		start := time.Now()
		code, so, se := runCLI(t, args(ep.baseURL(), out, "--max-outage", "2s")...)
		took := time.Since(start)
		if code != exitUnavailable {
			t.Fatalf("permanent outage: exit %d, want %d\n%s\n%s", code, exitUnavailable, so, se)
		}
		if took > time.Minute {
			t.Errorf("permanent outage: exit after %s; the bound is 2s of outage", took)
		}
		qs, err := results.ReadQuestions(filepath.Join(out, "r", results.QuestionsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			if q.Error != "" {
				t.Fatalf("the outage left an error row: %s %s", q.QuestionID, q.Error)
			}
		}
		t.Logf("stopped after %s with %d of 200 questions done", took.Round(time.Millisecond), len(qs))
		ep.down.Store(false)
		if code, so, se := runCLI(t, args(ep.baseURL(), out)...); code != 0 {
			t.Fatalf("resume after recovery: exit %d\n%s\n%s", code, so, se)
		}
		gotQ, gotC := finalRows(t, filepath.Join(out, "r"))
		if !reflect.DeepEqual(gotQ, wantQ) || !reflect.DeepEqual(gotC, wantC) {
			t.Fatal("resumed rows differ from the uninterrupted run")
		}
	})
}

// finalRows reads a run's rows with how they were obtained zeroed (timing,
// attempts, cached, tries) and only the calls of each unit's final try.
func finalRows(t *testing.T, dir string) ([]results.QuestionRow, []results.CallRow) {
	t.Helper()
	qs, cs := normalised(t, dir)
	last := map[string]int32{}
	for i := range qs {
		last[qs[i].Arm+"|"+qs[i].QuestionID] = qs[i].Tries - 1
		qs[i].Tries = 0
	}
	var final []results.CallRow
	for _, c := range cs {
		if c.UnitTry == last[c.Arm+"|"+c.QuestionID] {
			c.UnitTry = 0
			final = append(final, c)
		}
	}
	return qs, final
}

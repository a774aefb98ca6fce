package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
)

// TestBatchKilledWhileCreating (issue 28 item 1): a --batch run is killed
// (SIGKILL) after the provider created a batch but before the run heard
// so — a proxy holds the reply to POST /v1/batches. The rerun finds the
// batch by the tag the run journaled with its uploaded file, and adopts
// it: the provider runs each distinct request once over both processes
// (before the fix the rerun submitted the batch's lines again and the
// provider ran, and billed, them twice).
func TestBatchKilledWhileCreating(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}})
	target, _ := url.Parse(srv.BaseURL())
	target.Path = ""
	var hold atomic.Bool
	held := make(chan struct{}, 16)
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/batches") {
			rec := httptest.NewRecorder()
			rp.ServeHTTP(rec, r) // the provider creates the batch…
			held <- struct{}{}
			<-r.Context().Done() // …and the reply never comes back
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	base := proxy.URL + strings.TrimSuffix(strings.TrimPrefix(srv.BaseURL(), "http://"+target.Host), "/")
	args := []string{"run", "--model", "openai/tiny", "--limit", "6", "--config", "base,full",
		"--cache", "off", "--run-name", "r"}
	syncOut, out := t.TempDir(), t.TempDir()
	if code, so, se := runCLI(t, append(args, "--base-url", srv.BaseURL(), "--out", syncOut, "--parallel", "1")...); code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, so, se)
	}
	requests := srv.ChatRequests()
	batchArgs := append(args, "--out", out, "--batch", "--batch-poll", "1ms", "--base-url", base)
	hold.Store(true)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBatchChild$")
	cmd.Env = append(os.Environ(), childArgs+"="+strings.Join(batchArgs, "\x1f"))
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child created no batch in 90 s:\n%s", childErr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	hold.Store(false)
	// issue 28 item 12: 'batches list' shows the batch the journal lacks
	if code, so, se := runCLI(t, "batches", "list", filepath.Join(out, "r")); code != 0 || !strings.Contains(so, "not journaled") || !strings.Contains(so, "1 more of this run") {
		t.Errorf("batches list after the kill: exit %d, the unjournaled batch not shown\n%s\n%s", code, so, se)
	}
	before := srv.BatchStats()
	code, so, se := runCLI(t, batchArgs...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, so, se)
	}
	after := srv.BatchStats()
	t.Logf("killed with %d batches created; rerun: %s; %d lines run for %d distinct requests",
		before.BatchesCreated, lastLine(se, "batch mode:"), after.LinesRun, requests)
	if before.BatchesCreated != 1 || !strings.Contains(se, "1 adopted") {
		t.Errorf("batches created when killed: %d, want 1, adopted by the rerun\n%s", before.BatchesCreated, se)
	}
	if int64(after.LinesRun) != requests {
		t.Errorf("%d lines run over both processes for %d distinct requests: a line was sent twice", after.LinesRun, requests)
	}
	if want, got := untimedRows(t, syncOut), untimedRows(t, out); !reflect.DeepEqual(want, got) {
		t.Errorf("rows after the kill and the adoption differ from the synchronous rows")
	}
}

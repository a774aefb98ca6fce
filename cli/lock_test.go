package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/results"
)

// TestConcurrentProcessesOneRunDirectory (issue 9 item 2): two and ten
// processes started together with the same command on one run directory:
// one does the work, the others exit with exitBusy naming the holder; the
// endpoint sees each request once and the parquet files are complete.
func TestConcurrentProcessesOneRunDirectory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	bin := buildBinary(t)
	srv := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"tiny"}, Respond: func(c llmtest.Call) string {
		time.Sleep(15 * time.Millisecond) // long enough for every process to start while the first works
		return llmtest.DefaultRespond(c)
	}})
	args := func(out string) []string {
		return []string{"run", "--model", "openai/tiny", "--base-url", srv.BaseURL(), "--dataset", medqaSample,
			"--limit", "20", "--config", "base", "--agents", "3", "--parallel", "4", "--cache", "off", "--out", out, "--run-name", "shared"}
	}
	ref := t.TempDir()
	if out, err := exec.Command(bin, args(ref)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	once := srv.ChatRequests()

	for _, n := range []int{2, 10} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			out := t.TempDir()
			before := srv.ChatRequests()
			codes := make([]int, n)
			stderr := make([]bytes.Buffer, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					cmd := exec.Command(bin, args(out)...)
					cmd.Stderr = &stderr[i]
					err := cmd.Run()
					var exit *exec.ExitError
					switch {
					case err == nil:
					case errors.As(err, &exit):
						codes[i] = exit.ExitCode()
					default:
						t.Errorf("process %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			ok, busy := 0, 0
			for i, c := range codes {
				switch ExitCode(c) {
				case exitOK:
					ok++
				case exitBusy:
					busy++
					if msg := stderr[i].String(); !strings.Contains(msg, "is in use by process") || !strings.Contains(msg, "rerun the same command") {
						t.Errorf("process %d: busy message does not name the holder and what to do:\n%s", i, msg)
					}
				default:
					t.Errorf("process %d exited %d:\n%s", i, c, stderr[i].String())
				}
			}
			if ok == 0 || busy == 0 {
				t.Errorf("%d processes: %d finished, %d refused as busy; want one to work while the others are refused", n, ok, busy)
			}
			if got := srv.ChatRequests() - before; got != once {
				t.Errorf("%d processes sent %d requests; one run sends %d", n, got, once)
			}
			qs, err := results.ReadQuestions(filepath.Join(out, "shared", results.QuestionsFile))
			if err != nil || len(qs) != 20 {
				t.Fatalf("questions.parquet: %d rows (%v), want 20", len(qs), err)
			}
			cs, err := results.ReadCalls(filepath.Join(out, "shared", results.CallsFile))
			if err != nil || int64(len(cs)) != once {
				t.Fatalf("calls.parquet: %d rows (%v), want %d", len(cs), err, once)
			}
			left, _ := filepath.Glob(filepath.Join(out, "shared", "*.tmp"))
			if len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/results"
)

// textSink is a Sink that takes transcripts as each call ends (as the
// journal does), keeping them by id, and records each unit's call rows.
type textSink struct {
	mu    sync.Mutex
	texts map[int64][2]string
	calls []results.CallRow
	next  int64
}

func (s *textSink) Transcript(prompt, response string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	s.texts[s.next] = [2]string{prompt, response}
	return s.next, nil
}

func (s *textSink) Put(_ string, _ int64, _ results.QuestionRow, calls []results.CallRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, calls...)
	return nil
}

// busiestArm is the shipped preset that makes the most calls for 3 agents.
func busiestArm(t *testing.T) Arm {
	t.Helper()
	var best Arm
	most := 0
	for _, p := range protocols.All() {
		for _, preset := range p.Presets {
			a, err := protocols.All().Parse(preset, protocol.Settings{Turns: 2, Agents: 3, Discussion: "round_robin", Structured: true, AgentTemp: 0.7, LeaderTemp: 0.5})
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := a.Calls(3); n > most {
				best, most = Arm{Label: preset, Protocol: a}, n
			}
		}
	}
	return best
}

// longPlan is a --transcripts run of arm over two questions whose stems are
// about size bytes each.
func longPlan(t *testing.T, arm Arm, size int) Plan {
	p := stubPlan(t, []Arm{arm}, 2)
	qs := p.Sets[0].Questions
	for i := range qs {
		q := qs[i]
		q.Stem = strings.Repeat(fmt.Sprintf("item %d is long. ", i), size/16)
		qs[i] = q
	}
	p.Transcripts, p.Parallel = true, 1
	return p
}

// TestTranscriptsStreamedLeaveTheUnit (issue 28 item 10): with a sink that
// takes transcripts, the call rows a unit hands the sink carry no texts —
// only the ids under which each call's texts went to the sink as it ended —
// so a unit's retained transcript bytes do not grow with its items; the
// texts stored are those the in-memory run keeps inline, call for call.
func TestTranscriptsStreamedLeaveTheUnit(t *testing.T) {
	arm := busiestArm(t)
	p := longPlan(t, arm, 64<<10)
	inline, err := Run(context.Background(), p, nil) // no transcript sink: texts inline
	if err != nil {
		t.Fatal(err)
	}
	sink := &textSink{texts: map[int64][2]string{}}
	p = longPlan(t, arm, 64<<10)
	if _, err := Execute(context.Background(), p, Options{Sink: sink}); err != nil {
		t.Fatal(err)
	}
	if len(sink.calls) != len(inline.Calls) || len(sink.calls) < 4 {
		t.Fatalf("%d streamed calls, %d inline", len(sink.calls), len(inline.Calls))
	}
	retained, stored := 0, 0
	byCall := map[string]results.CallRow{}
	for _, c := range inline.Calls {
		byCall[fmt.Sprint(c.QuestionID, c.UnitTry, c.Seq)] = c
	}
	for _, c := range sink.calls {
		retained += len(c.Prompt) + len(c.Response)
		if c.Transcript == 0 {
			t.Fatalf("%s seq %d has no transcript id", c.QuestionID, c.Seq)
		}
		text := sink.texts[c.Transcript]
		stored += len(text[0]) + len(text[1])
		want := byCall[fmt.Sprint(c.QuestionID, c.UnitTry, c.Seq)]
		if text[0] != want.Prompt || text[1] != want.Response {
			t.Errorf("%s seq %d: stored texts differ from the inline run's", c.QuestionID, c.Seq)
		}
	}
	t.Logf("%s: %d calls; %d transcript bytes streamed to the sink, %d retained in the units' call rows", arm.Label, len(sink.calls), stored, retained)
	if retained != 0 || stored < 2*64<<10 {
		t.Fatalf("call rows retain %d transcript bytes (want 0); %d stored", retained, stored)
	}
}

// hideTexts hides the journal's Transcript method: the run keeps texts in
// its call rows until each unit ends, as before streaming.
type hideTexts struct{ j *journal.Journal }

func (h hideTexts) Put(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error {
	return h.j.Put(key, ord, q, calls)
}

// peakHeap runs fn while sampling the heap, and returns its peak. The
// collector runs at 10% growth meanwhile, so the heap tracks what is live
// rather than the garbage of the default 100%.
func peakHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// TestTranscriptsPeakHeap (issue 28 item 10) reports the peak heap of a
// --transcripts run of two ~1 MiB items into a journal, with the texts kept
// in the call rows until each unit ends (before) and streamed to the journal
// as each call ends (now), and checks streaming holds less.
func TestTranscriptsPeakHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two 1 MiB items")
	}
	arm := busiestArm(t)
	// run measures a run into a fresh journal, and returns the peak and the
	// run directory (exported after both runs: the rows of the first must
	// not be live while the second is measured).
	run := func(stream bool) (uint64, string) {
		dir := t.TempDir()
		j, err := journal.Open(dir, "h", []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		var sink Sink = hideTexts{j}
		if stream {
			sink = j
		}
		p := longPlan(t, arm, 1<<20)
		peak := peakHeap(func() {
			if _, err := Execute(context.Background(), p, Options{Sink: sink}); err != nil {
				t.Fatal(err)
			}
		})
		return peak, dir
	}
	calls := func(dir string) []results.CallRow {
		j, err := journal.OpenExisting(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if _, _, err := j.Export(dir); err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadCalls(filepath.Join(dir, results.CallsFile))
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].LatencyMS = 0 // wall time: differs run to run
		}
		return rows
	}
	before, heldDir := run(false)
	after, streamedDir := run(true)
	held, streamed := calls(heldDir), calls(streamedDir)
	t.Logf("%s, two ~1 MiB items, %d calls: peak heap %.1f MiB with texts held per unit, %.1f MiB streamed", arm.Label, len(held), float64(before)/(1<<20), float64(after)/(1<<20))
	if !reflect.DeepEqual(held, streamed) || len(held) == 0 || held[0].Prompt == "" {
		t.Fatalf("calls.parquet rows differ between held (%d) and streamed (%d) transcripts", len(held), len(streamed))
	}
	if after >= before {
		t.Fatalf("streamed peak %d bytes, not below held %d", after, before)
	}
}

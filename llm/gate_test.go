package llm_test

import (
	"context"
	"errors"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// gateLog is an AttemptGate that admits the first admit attempts and logs
// what it is told.
type gateLog struct {
	admit    int
	asked    int
	observed []llm.ErrorClass // "" for an answered attempt
}

var errRefused = &llm.Error{Class: llm.ClassServer, Unsent: true, Err: errors.New("breaker open")}

func (g *gateLog) Admit(context.Context) error {
	g.asked++
	if g.asked > g.admit {
		return errRefused
	}
	return nil
}

func (g *gateLog) Observe(err error) {
	c := llm.ErrorClass("")
	if err != nil {
		c = llm.ClassOf(err)
	}
	g.observed = append(g.observed, c)
}

// TestGatedRetry (issue 35 item 2): the gate hears every attempt as it
// ends, not the call's end; a refusal ends the call at once, unsent and
// not retried (no loop on refusals); an empty socket admits everything.
func TestGatedRetry(t *testing.T) {
	tests := []struct {
		name         string
		admit, fails int
		wantObserved []llm.ErrorClass
		wantCalls    int64
		wantErr      error
		wantAttempts int
	}{
		{"every attempt observed", 9, 2, []llm.ErrorClass{llm.ClassServer, llm.ClassServer, ""}, 3, nil, 3},
		{"refused after two", 2, -1, []llm.ErrorClass{llm.ClassServer, llm.ClassServer}, 2, errRefused, 2},
		{"refused at once", 0, -1, nil, 0, errRefused, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &sleeps{}
			f := &failing{n: int64(tt.fails), err: classErr(llm.ClassServer)}
			g := &gateLog{admit: tt.admit}
			sock := &llm.GateSocket{}
			unplug := sock.Plug(g)
			resp, err := llm.NewGatedRetry(f, fastPolicy(s), nil, sock).Chat(context.Background(), llm.Request{Model: "m"})
			unplug()
			if !errors.Is(err, tt.wantErr) || tt.wantErr == nil && err != nil {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if f.calls.Load() != tt.wantCalls || resp.Attempts != tt.wantAttempts {
				t.Errorf("%d requests sent, %d attempts reported; want %d, %d", f.calls.Load(), resp.Attempts, tt.wantCalls, tt.wantAttempts)
			}
			if len(g.observed) != len(tt.wantObserved) {
				t.Fatalf("observed %v, want %v", g.observed, tt.wantObserved)
			}
			for i := range g.observed {
				if g.observed[i] != tt.wantObserved[i] {
					t.Fatalf("observed %v, want %v", g.observed, tt.wantObserved)
				}
			}
			if n := len(s.get()); err != nil && n > tt.wantAttempts {
				t.Errorf("%d backoff sleeps for %d attempts: a refusal was retried", n, tt.wantAttempts)
			}
			// Unplugged, the socket admits every attempt and tells no one.
			g2 := &failing{n: 0}
			if _, err := llm.NewGatedRetry(g2, fastPolicy(s), nil, sock).Chat(context.Background(), llm.Request{Model: "m"}); err != nil || len(g.observed) != len(tt.wantObserved) {
				t.Errorf("unplugged socket: err %v, observed %v", err, g.observed)
			}
		})
	}
}

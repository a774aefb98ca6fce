// Package runner executes a plan — questions × arms × repeats on one model —
// with bounded concurrency, and turns each protocol outcome into result rows.
// It is the only place besides the report that sees the gold answer.
package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/teamwork"
)

// Protocol is what the runner needs of a decision protocol.
type Protocol interface {
	Run(ctx context.Context, client llm.Client, item datasets.Item) (*teamwork.Outcome, error)
}

// Arm is one configuration of the plan.
type Arm struct {
	Label  string
	Config teamwork.Config
}

// Plan is what to run.
type Plan struct {
	RunID       string
	Dataset     string
	Questions   []datasets.Question
	Arms        []Arm
	Model       string // full name, e.g. "sim/default" or "ollama/llama3.1:8b"
	ModelName   string // name sent to the backend (without the provider)
	Repeats     int
	Seed        int64
	Parallel    int  // questions in flight
	Transcripts bool // keep prompt and response texts in calls.parquet
}

// Progress receives one call per finished question (from any goroutine).
type Progress func(done, total int, row *results.QuestionRow)

// Result holds the rows in deterministic order: arm, repeat, question.
type Result struct {
	Questions []results.QuestionRow
	Calls     []results.CallRow
}

// FatalError stops a run: the backend will refuse every request (bad key,
// unknown model), so failing each question separately would only hide it.
type FatalError struct{ Err error }

func (e *FatalError) Error() string {
	return fmt.Sprintf("run stopped: %v (every request would fail the same way; check the model name, endpoint and credentials)", e.Err)
}
func (e *FatalError) Unwrap() error { return e.Err }

// Run executes the plan against client. Question-level failures become rows
// with their error; a fatal backend error ends the run with a *FatalError.
func Run(ctx context.Context, p Plan, client llm.Client, progress Progress) (*Result, error) {
	if p.Repeats < 1 {
		p.Repeats = 1
	}
	if p.Parallel < 1 {
		p.Parallel = 1
	}
	nq := len(p.Questions)
	total := len(p.Arms) * p.Repeats * nq
	qrows := make([]results.QuestionRow, total)
	crows := make([][]results.CallRow, total)
	var done atomic.Int64

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.Parallel)
	for ai, arm := range p.Arms {
		for rep := range p.Repeats {
			for qi := range p.Questions {
				idx := (ai*p.Repeats+rep)*nq + qi
				if gctx.Err() != nil {
					break
				}
				g.Go(func() error {
					q := p.Questions[qi]
					team := &teamwork.Team{Config: arm.Config, Model: p.ModelName, Arm: arm.Label, RunSeed: p.Seed, Repeat: rep}
					qr, cr, err := runOne(gctx, p, arm, rep, q, team, client)
					if llm.ClassOf(err).Fatal() {
						return &FatalError{Err: err}
					}
					qrows[idx], crows[idx] = qr, cr
					n := done.Add(1)
					if progress != nil {
						progress(int(n), total, &qrows[idx])
					}
					return nil
				})
			}
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Questions: qrows}
	for _, c := range crows {
		res.Calls = append(res.Calls, c...)
	}
	return res, nil
}

// runOne deliberates on one question and builds its rows.
func runOne(ctx context.Context, p Plan, arm Arm, rep int, q datasets.Question, proto Protocol, client llm.Client) (results.QuestionRow, []results.CallRow, error) {
	meter := llm.NewMeter(client, p.Transcripts)
	start := time.Now()
	out, err := proto.Run(ctx, meter, q.Item())
	wall := time.Since(start)
	calls := meter.Calls()
	row := QuestionRow(p, arm, rep, q, out, err)
	row.WallMS = float64(wall.Microseconds()) / 1000
	var notes []teamwork.ParseNote
	if out != nil {
		notes = out.Parses
	}
	crs := CallRows(p, arm, rep, q.ID, calls, notes)
	var t llm.Totals
	for _, c := range calls {
		t.Add(c)
	}
	row.Calls = int32(t.Calls)
	row.Attempts = int32(t.Attempts)
	row.CachedCalls = int32(t.CachedCalls)
	row.PromptTokens = int64(t.Usage.PromptTokens)
	row.CompletionTokens = int64(t.Usage.CompletionTokens)
	row.CallLatencyMS = float64(t.Latency.Microseconds()) / 1000
	return row, crs, err
}

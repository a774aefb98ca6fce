package batchmode

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
)

// Memory is a batch.Provider that answers every line at once, when it is
// submitted, with Client: a dry run's provider (and a test's).
type Memory struct {
	Client llm.Client

	mu      sync.Mutex
	batches map[string]*memBatch
	order   []string
}

type memBatch struct {
	st  batch.Status
	res map[string]batch.Result
}

var _ batch.Provider = (*Memory)(nil)

// Submit answers the lines and keeps them as a completed batch.
func (m *Memory) Submit(ctx context.Context, lines []batch.Line) (batch.Ref, error) {
	return m.SubmitTagged(ctx, lines, "", nil)
}

var _ batch.Tagger = (*Memory)(nil)

// SubmitTagged implements batch.Tagger: Submit, with tag in the batch's
// metadata; uploaded is told the input file's id first.
func (m *Memory) SubmitTagged(ctx context.Context, lines []batch.Line, tag string, uploaded func(string) error) (batch.Ref, error) {
	m.mu.Lock()
	fileID := fmt.Sprintf("file_batch_mem%d", len(m.order)+1)
	m.mu.Unlock()
	if uploaded != nil {
		if err := uploaded(fileID); err != nil {
			return batch.Ref{InputFileID: fileID}, err
		}
	}
	b := &memBatch{res: make(map[string]batch.Result, len(lines))}
	if tag != "" {
		b.st.Metadata = map[string]string{batch.MetaTag: tag}
	}
	for _, l := range lines {
		resp, err := m.Client.Chat(ctx, l.Request)
		resp.Attempts, resp.Latency = 1, 0
		b.res[l.CustomID] = batch.Result{CustomID: l.CustomID, Response: resp, Err: err}
		if err != nil {
			b.st.Counts.Failed++
		} else {
			b.st.Counts.Completed++
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.batches == nil {
		m.batches = map[string]*memBatch{}
	}
	b.st.ID = fmt.Sprintf("batch_mem%d", len(m.order)+1)
	b.st.InputFileID = "file_" + b.st.ID
	b.st.State, b.st.Counts.Total, b.st.CreatedAt = batch.Completed, len(lines), time.Now()
	m.batches[b.st.ID] = b
	m.order = append(m.order, b.st.ID)
	return batch.Ref{ID: b.st.ID, InputFileID: b.st.InputFileID, Count: len(lines)}, nil
}

func (m *Memory) get(id string) (*memBatch, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b := m.batches[id]; b != nil {
		return b, nil
	}
	return nil, &llm.Error{Class: llm.ClassNotFound, Err: fmt.Errorf("no batch %s", id)}
}

// Status reports a batch (always completed).
func (m *Memory) Status(_ context.Context, id string) (batch.Status, error) {
	b, err := m.get(id)
	if err != nil {
		return batch.Status{}, err
	}
	return b.st, nil
}

// Results returns a batch's answers.
func (m *Memory) Results(_ context.Context, st batch.Status) (map[string]batch.Result, error) {
	b, err := m.get(st.ID)
	if err != nil {
		return nil, err
	}
	return b.res, nil
}

// Cancel reports the batch: it has ended already.
func (m *Memory) Cancel(ctx context.Context, id string) (batch.Status, error) {
	return m.Status(ctx, id)
}

// List reports the batches, newest first.
func (m *Memory) List(_ context.Context) ([]batch.Status, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []batch.Status
	for _, id := range slices.Backward(m.order) {
		out = append(out, m.batches[id].st)
	}
	return out, nil
}

// Stubs answers each call with the dry-run stub of its arm's protocol
// (long answers for a language model, short ones for the simulator).
func Stubs(arms []runner.Arm, long bool) llm.Client {
	byArm := map[string]llm.Client{}
	for _, a := range arms {
		byArm[a.Label] = a.Protocol.Protocol().Stub(long)
	}
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return byArm[req.Meta.Arm].Chat(ctx, req)
	})
}

// DryRun runs p in lockstep against answer (Stubs) through an in-memory
// batch provider and reports the stages and batches a batch-mode run of p
// would make: the distinct requests of each stage and the batches they are
// cut into. Nothing leaves the process and no row is kept.
func DryRun(ctx context.Context, p runner.Plan, answer llm.Client) (Stats, error) {
	col, err := New(ctx, Config{Provider: &Memory{Client: answer}})
	if err != nil {
		return Stats{}, err
	}
	defer col.Close()
	p.Models = slices.Clone(p.Models)
	for i := range p.Models {
		p.Models[i].Client, p.Models[i].Spare, p.Models[i].Probe = col, nil, nil
	}
	p.Lockstep, p.Transcripts, p.Unhashed = col, false, true
	sink := &moreSink{arms: map[string]protocol.Arm{}}
	for _, a := range p.Arms {
		sink.arms[a.Label] = a.Protocol
	}
	_, err = runner.Execute(ctx, p, runner.Options{Sink: sink})
	st := col.Stats()
	st.MaxMoreStages = sink.max
	return st, err
}

// moreSink keeps, over the units, the most calls a unit's accounting
// formula allows beyond those the stubs' answers made (a leader's
// tie-break): each may take a stage of its own.
type moreSink struct {
	mu   sync.Mutex
	arms map[string]protocol.Arm
	max  int
}

func (s *moreSink) Put(_ string, _ int64, r results.QuestionRow, _ []results.CallRow) error {
	arm := s.arms[r.Arm]
	if arm == nil {
		return nil
	}
	calls, extra := arm.Calls(int(r.NAgents))
	s.mu.Lock()
	s.max = max(s.max, calls+extra-int(r.Calls))
	s.mu.Unlock()
	return nil
}

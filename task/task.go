// Package task is the contract between the runner and the tasks whose
// outcomes it scores, beside the protocol contract (package protocol) and in
// the manner of database/sql/driver: it imports almost nothing (the item,
// the protocol's outcome, the row, the model contract), and a task is one
// documented value, as an x/tools analysis.Analyzer is.
//
// A task is Inspect's Task = dataset + solver + scorer: a kind of item (the
// datasets load it), decided on by any protocol (the solver), and scored
// here against its gold answer. The runner finds a question's task by its
// kind (qa.Question.Kind: "" is multiple choice), gives each row every
// task's Blank, then the task's Score and, when the plan asks for model
// grading, its Judge. The runner knows no task; a protocol never sees the
// gold answer.
//
// # Adding a task
//
//  1. Write a package under tasks/ holding one *task.Task: the item Kind it
//     scores, its Name and Doc, the question-row Columns it fills and the
//     report Metrics they feed, Score (a pure function of the question,
//     the outcome and the row), Blank when a column's not-applicable
//     value is not its zero value, and, when Judge calls the model, Sim:
//     how the simulated backend answers those calls (the simulator's core
//     knows no task; tasks/triage/sim.go).
//  2. Add the value to tasks.All.
//
// Nothing else changes: not the runner, not the plan, not a protocol
// (tasktest.YesNo is added this way in runner's TestAddingATask). Items of
// a new kind also need a loader (package datasets) to appear in a run.
//
// # Adding a protocol
//
// See package protocol: one *protocol.Protocol value, added to protocols.All.
package task

import (
	"context"
	"fmt"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// Task is one kind of item and how a decision on it is scored.
type Task struct {
	// Name names the task in messages and docs ("multiple-choice").
	Name string
	// Kind is the item kind the task scores (qa.Question.Kind).
	Kind string
	// Doc says what the task's items are and how they are scored.
	Doc string
	// Columns are the question-row columns (their parquet names) Score and
	// Judge fill; every other column is the runner's.
	Columns []string
	// Metrics are the report metrics computed from those columns (the
	// names of docs/metrics.md and of a thresholds file).
	Metrics []string
	// Blank, when set, gives the task's columns their value on a row it
	// does not score (e.g. -1 for a rank); the runner applies every task's
	// Blank to every row before Score.
	Blank func(r *results.QuestionRow)
	// Score fills the task's columns of the row of question q from the
	// protocol's outcome; out is nil when the question failed (the row
	// keeps what the truth alone gives).
	Score func(r *results.QuestionRow, q qa.Question, out *protocol.Outcome)
	// Judge, when set, grades with the model what Score cannot (one extra
	// call after the protocol decided; the run's --diagnosis-judge). asked
	// is false when it made no call; its note goes with the call's row. An
	// error fails the question like any model call's.
	Judge func(ctx context.Context, c llm.Client, u protocol.Unit, q qa.Question, r *results.QuestionRow) (note protocol.ParseNote, asked bool, err error)
	// Sim, when Judge calls the model, is how the simulated backend answers
	// those calls (their kinds), as Protocol.Sim is a protocol's: the
	// simulator's core knows no task.
	Sim *sim.Behaviour
}

// Sim lists the registry's simulated behaviours (Task.Sim), for sim.New
// beside the protocols' (protocols.NewSim).
func (reg Registry) Sim() []sim.Behaviour {
	var out []sim.Behaviour
	for _, t := range reg {
		if t.Sim != nil {
			out = append(out, *t.Sim)
		}
	}
	return out
}

// Registry is the tasks a run may score, one per item kind.
type Registry []*Task

// For is the task of item kind kind.
func (reg Registry) For(kind string) (*Task, bool) {
	for _, t := range reg {
		if t.Kind == kind {
			return t, true
		}
	}
	return nil, false
}

// Lookup is the task of question q's kind, or an error naming the question,
// its kind and the tasks there are.
func (reg Registry) Lookup(set string, q qa.Question) (*Task, error) {
	if t, ok := reg.For(q.Kind); ok {
		return t, nil
	}
	known := make([]string, len(reg))
	for i, t := range reg {
		known[i] = fmt.Sprintf("%s (kind %q)", t.Name, t.Kind)
	}
	if len(known) == 0 {
		known = []string{"none: the plan has no task registry (set runner.Plan.Tasks to tasks.All())"}
	}
	return nil, fmt.Errorf("question %s of %s is an item of kind %q, which no task scores (tasks: %s); add its task to tasks.All",
		q.ID, set, q.Kind, strings.Join(known, ", "))
}

// Score blanks r's columns of every task, then scores it with the task of
// q's kind; ok is false when there is none.
func (reg Registry) Score(r *results.QuestionRow, q qa.Question, out *protocol.Outcome) (ok bool) {
	for _, t := range reg {
		if t.Blank != nil {
			t.Blank(r)
		}
	}
	t, ok := reg.For(q.Kind)
	if ok {
		t.Score(r, q, out)
	}
	return ok
}

// Check reports a registry that cannot work: a task without a name, a kind
// two tasks claim, or a task without Score.
func (reg Registry) Check() error {
	seen := map[string]string{}
	for i, t := range reg {
		switch {
		case t == nil || t.Name == "":
			return fmt.Errorf("task %d of the registry has no name", i)
		case t.Score == nil:
			return fmt.Errorf("task %s has no Score", t.Name)
		case seen[t.Kind] != "":
			return fmt.Errorf("tasks %s and %s both score item kind %q: keep one", seen[t.Kind], t.Name, t.Kind)
		}
		seen[t.Kind] = t.Name
	}
	return nil
}

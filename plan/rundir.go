package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/rundir"
	"github.com/medteam-bench/medteam/runner"
)

// Recorded reads the spec of an existing run directory (for a resume).
func Recorded(dir string) (Spec, error) {
	if _, err := os.Stat(filepath.Join(dir, journal.FileName)); err != nil {
		return Spec{}, Inputf("--resume %s: no %s there (%v)", dir, journal.FileName, err)
	}
	j, err := journal.OpenExisting(dir)
	if err != nil {
		return Spec{}, err
	}
	defer j.Close()
	body, _, err := j.PlanBody()
	if err != nil {
		return Spec{}, err
	}
	var doc Doc
	if err := json.Unmarshal(body, &doc); err != nil {
		return Spec{}, fmt.Errorf("--resume %s: the recorded plan does not decode: %w", dir, err)
	}
	return doc.Spec, nil
}

// Run is an open run directory: held exclusively, its journal open, and the
// units an earlier invocation finished.
type Run struct {
	Dir     string
	ID      string // the directory's name: the run id in every row
	Journal *journal.Journal
	// Done holds the keys of the units not to run again.
	Done map[string]bool
	// Retrying is the number of committed units that end in a retryable
	// error and run again.
	Retrying int
	created  bool // this invocation made the directory
	closed   bool
	lock     *rundir.Lock
}

// Created reports whether this invocation made the directory.
func (r *Run) Created() bool { return r.created }

// Open takes the run directory dir for the resolved plan r: it locks it
// (a *rundir.BusyError when another process holds it), opens or creates its
// journal (an *InputError when the directory holds another plan) and reads
// which units are done. retry, when non-nil, says which error classes run
// again. argv (already scrubbed of secrets) is recorded with the lock.
func Open(dir string, r *Resolved, argv []string, retry func(class string) bool) (*Run, error) {
	_, statErr := os.Stat(dir)
	run := &Run{Dir: dir, ID: filepath.Base(dir), created: os.IsNotExist(statErr)}
	var err error
	if run.lock, err = rundir.Acquire(dir, argv); err != nil {
		return nil, err
	}
	run.Journal, err = journal.Open(dir, r.Hash, r.Doc)
	var mismatch *journal.PlanMismatchError
	if errors.As(err, &mismatch) {
		err = &InputError{err}
	}
	if err != nil {
		run.lock.Release()
		return nil, err
	}
	if err := run.Journal.PutItems(runner.ItemRows(r.Sets)); err != nil {
		run.Close()
		return nil, err
	}
	if run.Done, err = run.Journal.Done(retry); err != nil {
		run.Close()
		return nil, err
	}
	if all, err := run.Journal.Totals(); err == nil && int(all.Units) > len(run.Done) {
		run.Retrying = int(all.Units) - len(run.Done)
	}
	return run, nil
}

// Close closes the journal and releases the lock (once).
func (r *Run) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Journal.Close()
	r.lock.Release()
}

// Discard removes what this invocation created when it did nothing in the
// directory (journal files and lock only; never anything else), and closes
// the run. A directory that existed before is only closed.
func (r *Run) Discard() {
	if r.closed {
		return
	}
	r.closed = true
	r.Journal.Close()
	if r.created {
		for _, f := range []string{journal.FileName, journal.FileName + "-wal", journal.FileName + "-shm", rundir.LockFile} {
			os.Remove(filepath.Join(r.Dir, f))
		}
		os.Remove(r.Dir) // fails, harmlessly, unless empty
	}
	r.lock.Release()
}

// Export writes the parquet files from the journal and returns the question
// rows and the number of call rows.
func (r *Run) Export() ([]results.QuestionRow, int, error) {
	_, calls, err := r.Journal.Export(r.Dir)
	if err != nil {
		return nil, 0, err
	}
	rows, err := results.ReadQuestions(filepath.Join(r.Dir, results.QuestionsFile))
	return rows, int(calls), err
}

// EachDone calls fn with the question row of every committed unit not to
// run again (Done), in plan order: what a resumed run's progress counts
// from before it.
func (r *Run) EachDone(fn func(*results.QuestionRow)) error {
	if len(r.Done) == 0 {
		return nil
	}
	return r.Journal.EachUnit(func(key string, _ int64, q results.QuestionRow, _ []results.CallRow) error {
		if r.Done[key] {
			fn(&q)
		}
		return nil
	})
}

package slurm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RecordFile is the record of a Slurm run in its run directory.
const RecordFile = "slurm.json"

// Record is what 'medteam slurm submit' planned and submitted: the shard
// count and each shard's planned units come from here (never from the
// environment of a task), and every submission is appended.
type Record struct {
	Plan     string          `json:"plan"`          // hash of the unsharded plan document (plan.Unshard), as the shards' journals give it
	Document json.RawMessage `json:"plan_document"` // that document: datasets, arms, models, settings
	Shards   int             `json:"shards"`        // S
	Units    []int           `json:"units"`         // planned units of shard i+1
	Throttle int             `json:"throttle,omitempty"`
	HTML     bool            `json:"html,omitempty"`   // the merge also writes report.html
	Prices   string          `json:"prices,omitempty"` // price table for the merged report
	Jobs     []Submission    `json:"jobs"`
}

// Submission is one sbatch of the array (some of its tasks) and its merge job.
type Submission struct {
	Array string    `json:"array"` // array job id
	Tasks []int     `json:"tasks"` // task ids (0-based shard index)
	Merge string    `json:"merge"` // merge job id
	At    time.Time `json:"at"`
}

// Total is the planned units of the whole plan.
func (r Record) Total() int {
	n := 0
	for _, u := range r.Units {
		n += u
	}
	return n
}

// Last returns, per task id, the array job id it was last submitted in.
func (r Record) Last() map[int]string {
	last := map[int]string{}
	for _, s := range r.Jobs {
		for _, t := range s.Tasks {
			last[t] = s.Array
		}
	}
	return last
}

// Save writes r into dir atomically.
func (r Record) Save(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, RecordFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the Slurm record: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, RecordFile))
}

// Load reads the record of the Slurm run in dir.
func Load(dir string) (Record, error) {
	var r Record
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return r, fmt.Errorf("%s is not a Slurm run directory (no %s; submit with 'medteam slurm submit'): %w", dir, RecordFile, err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	if r.Shards < 1 || len(r.Units) != r.Shards {
		return r, fmt.Errorf("%s: %d shards with %d unit counts: the record is damaged", filepath.Join(dir, RecordFile), r.Shards, len(r.Units))
	}
	return r, nil
}

package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/medteam-bench/medteam/results"
)

// Manifest is what a run directory's manifest is built from.
type Manifest struct {
	Argv  []string // the command line, scrubbed of secrets
	Start time.Time
	// Doc gives the settings, models, arms and prompt-set hash.
	Doc Doc
	// Datasets replaces Doc.Datasets when set: the references with their
	// paths and per-file hashes, which the plan document leaves out.
	Datasets []results.DatasetRef
	Parallel int
	Batch    bool // the calls went through the provider's batch API (run --batch)
	// Planned is the number of units the plan has; 0 takes PlannedUnits(Doc).
	Planned int
	// Failed marks a run ended by an error a rerun does not cure by itself.
	Failed bool
	// Incomplete marks a run as incomplete whatever its row count says
	// (a merge of shards one of which is incomplete).
	Incomplete bool
	// Probes and ProbeTokens are the breaker probes of the run so far (of
	// every invocation) and their tokens (results.Counts).
	Probes      int
	ProbeTokens int64
	// AbandonedAttempts and AbandonedTokens are the requests (and their
	// tokens) of units that were not committed, over every invocation
	// (results.Counts).
	AbandonedAttempts int
	AbandonedTokens   int64
}

// AsFailed is m marking the run failed.
func (m Manifest) AsFailed() Manifest {
	m.Failed = true
	return m
}

// PlannedUnits is the number of units doc plans: its questions × models ×
// arms × repeats.
func PlannedUnits(doc Doc) int {
	n := 0
	for _, d := range doc.Datasets {
		n += d.Questions
	}
	return n * len(doc.Models) * len(doc.Arms) * max(1, doc.Spec.Repeats)
}

// Write writes dir's manifest.json for the run whose question rows (as
// exported) are rows and whose calls.parquet holds calls rows. It is the one
// manifest builder: of a run and of a merge alike.
func (m Manifest) Write(dir string, rows []results.QuestionRow, calls int) error {
	version, rev, gover := results.ToolInfo()
	s := m.Doc.Spec
	out := results.Manifest{
		SchemaVersion: results.SchemaVersion, RunID: filepath.Base(dir), Command: m.Argv,
		StartedAt: m.Start, FinishedAt: time.Now().UTC(),
		Seed: s.Seed, SampleSeed: s.SampleSeed, Limit: s.Limit, Parallel: m.Parallel,
		Datasets: m.Doc.Datasets, Models: m.Doc.Models, Arms: m.Doc.Arms, Repeats: s.Repeats,
		PromptSetHash: m.Doc.PromptSetHash, Batch: m.Batch,
	}
	if m.Datasets != nil {
		out.Datasets = m.Datasets
	}
	for _, mr := range out.Models {
		out.Simulated = out.Simulated || mr.Provider == "sim"
	}
	out.Tool.Name, out.Tool.Version, out.Tool.GitRevision, out.Tool.GoVersion = "medteam", version, rev, gover
	out.Counts.Questions, out.Counts.Calls = len(rows), calls
	out.Counts.Probes, out.Counts.ProbeTokens = m.Probes, m.ProbeTokens
	out.Counts.AbandonedAttempts, out.Counts.AbandonedTokens = m.AbandonedAttempts, m.AbandonedTokens
	planned := m.Planned
	if planned == 0 {
		d := m.Doc
		d.Datasets = out.Datasets
		planned = PlannedUnits(d)
	}
	out.Status = results.NewStatus(len(rows), planned, m.Failed)
	if m.Incomplete && out.Status.Complete() {
		out.Status.State = results.StateIncomplete
	}
	for _, q := range rows {
		if q.Error != "" {
			out.Counts.Errors++
		}
	}
	var err error
	files := []string{results.QuestionsFile, results.CallsFile}
	if _, err := os.Stat(filepath.Join(dir, results.ItemsFile)); err == nil {
		files = append(files, results.ItemsFile)
	}
	if out.Files, err = results.FileHashes(dir, files...); err != nil {
		return err
	}
	return results.WriteManifest(filepath.Join(dir, results.ManifestFile), out)
}

// RewriteManifest writes dir's manifest after its parquet files were
// exported from its journal, whose plan document is body: what an earlier
// manifest of dir recorded (command, start, dataset references, parallelism,
// batch mode, a failure) is kept, and the status is recomputed from rows.
func RewriteManifest(dir string, body []byte, rows []results.QuestionRow, calls int) error {
	var doc Doc
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("manifest of %s: the recorded plan does not decode: %w", dir, err)
	}
	m := Manifest{Doc: doc}
	if old, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile)); err == nil {
		m.Argv, m.Start, m.Datasets, m.Parallel, m.Batch = old.Command, old.StartedAt, old.Datasets, old.Parallel, old.Batch
		m.Failed = old.Status.State == results.StateFailed
		m.Planned = old.Status.Planned
		m.Probes, m.ProbeTokens = old.Counts.Probes, old.Counts.ProbeTokens
		m.AbandonedAttempts, m.AbandonedTokens = old.Counts.AbandonedAttempts, old.Counts.AbandonedTokens
	}
	return m.Write(dir, rows, calls)
}

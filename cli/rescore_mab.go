package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/rescore"
	"github.com/medteam-bench/medteam/results"
)

// isMedAgentsBench reports whether the files are MedAgentsBench outputs
// (judged by the first file's first record); a mix is refused later.
func isMedAgentsBench(files []string) bool {
	return len(files) > 0 && rescore.LooksMedAgentsBench(files[0])
}

// runRescoreMAB rescores MedAgentsBench output files: one arm per method,
// the model from each file name, the publishers' accuracy and dedup.
func runRescoreMAB(f *Factory, o *RescoreOptions) error {
	files, err := readMABFiles(o)
	if err != nil {
		return err
	}
	start := time.Now().UTC()
	run := rescore.Run{Split: o.Split, RunID: results.NewRunID(start, 0)}
	var rows []results.QuestionRow
	var sums []rescore.MABSummary
	for _, mf := range files {
		rows = append(rows, run.MABRows(mf)...)
		sums = append(sums, rescore.SummarizeMAB(mf))
	}
	rescore.SortMAB(sums)
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := results.WriteQuestions(filepath.Join(o.Out, results.QuestionsFile), rows); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := results.WriteCalls(filepath.Join(o.Out, results.CallsFile), nil); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := results.WriteItems(filepath.Join(o.Out, results.ItemsFile), run.MABItems(files)); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# Rescore of %d MedAgentsBench output files\n\n", len(files))
	writeMABText(&md, sums, escape.Markdown)
	if err := os.WriteFile(filepath.Join(o.Out, "rescore.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := writeMABManifest(o, run, files, rows, start); err != nil {
		return err
	}
	writeMABText(f.Out, sums, escape.Terminal)
	return nil
}

// writeMABText writes the per-file table, the Table 1 matrices and what
// the deduplication dropped.
func writeMABText(w interface{ Write([]byte) (int, error) }, sums []rescore.MABSummary, cell rescore.Cell) {
	rescore.WriteMABTable(w, sums, cell)
	rescore.WriteMABMatrix(w, sums, cell)
	dropped := 0
	for _, s := range sums {
		dropped += s.Dropped
	}
	fmt.Fprintf(w, "\nThe publishers' scorer keeps the first record of each realidx (deduplicate_data): %d repeated records dropped over %d files. "+
		"A null, NaN, empty or missing predicted_answer, or one that is no option letter, is scored wrong (abstained, with its reason, in questions.parquet).\n", dropped, len(sums))
}

// readMABFiles reads every file as a MedAgentsBench output (a file of
// another layout is an error naming it), of the --model models, and
// refuses two files of one task × model × method.
func readMABFiles(o *RescoreOptions) ([]rescore.MABFile, error) {
	var files []rescore.MABFile
	seen := map[string]string{}
	for _, path := range o.Files {
		if !rescore.LooksMedAgentsBench(path) {
			return nil, usagef("rescore: %s is not a MedAgentsBench output (records with realidx, answer_idx, predicted_answer) like %s: rescore the layouts in separate runs", path, o.Files[0])
		}
		mf, err := rescore.ReadMABFile(path)
		if err != nil {
			return nil, usagef("rescore: %v", err)
		}
		if len(o.Models) > 0 && !containsString(o.Models, mf.Model) {
			continue
		}
		key := mf.Task + " " + mf.Model + " " + mf.Method
		if prev, dup := seen[key]; dup {
			return nil, usagef("rescore: %s and %s are both %s %s %s: give one file per task, model and method", prev, path, mf.Model, mf.Task, mf.Method)
		}
		seen[key] = path
		files = append(files, mf)
	}
	if len(files) == 0 {
		return nil, usagef("rescore: no file of --model %s in %s", strings.Join(o.Models, ","), strings.Join(o.Files, ", "))
	}
	return files, nil
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// writeMABManifest writes the manifest: every file with its hash, the
// models and the arms (the methods).
func writeMABManifest(o *RescoreOptions, run rescore.Run, files []rescore.MABFile, rows []results.QuestionRow, start time.Time) error {
	m := rescoreManifest(o, run, rows, start)
	models, arms := map[string]bool{}, map[string]bool{}
	for _, mf := range files {
		sum, err := results.FileSHA256(mf.Path)
		if err != nil {
			return fmt.Errorf("rescore: %w", err)
		}
		note := fmt.Sprintf("MedAgentsBench output: model %s, method %s (arm), %d questions, %d repeated realidx dropped", mf.Model, mf.Method, len(mf.Records), mf.Dropped)
		m.Datasets = append(m.Datasets, results.DatasetRef{Name: mf.Task, Path: mf.Path, SHA256: sum, Format: "medagentsbench outputs", Notes: []string{note}})
		if !models[mf.Model] {
			models[mf.Model] = true
			m.Models = append(m.Models, results.ModelRef{Name: mf.Model, Provider: "published"})
		}
		if !arms[mf.Method] {
			arms[mf.Method] = true
			m.Arms = append(m.Arms, results.ArmRef{Label: mf.Method, Protocol: rescore.Protocol, AgentPolicy: "published"})
		}
	}
	hashed, err := results.FileHashes(o.Out, results.QuestionsFile, results.CallsFile, results.ItemsFile, "rescore.md")
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	m.Files = hashed
	if err := results.WriteManifest(filepath.Join(o.Out, results.ManifestFile), m); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	return nil
}

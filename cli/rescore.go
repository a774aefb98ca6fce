package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/rescore"
	"github.com/medteam-bench/medteam/results"
)

// RescoreOptions are the settings of 'medteam rescore'.
type RescoreOptions struct {
	Files     []string
	Out       string   // run directory to write
	Models    []string // keep only these models ("" = all)
	ModelName string   // the model of records that name none
	Dataset   string   // dataset name of the rows ("" = mmlu-pro for MMLU-Pro layouts, else "published")
	Split     string
}

// NewCmdRescore builds 'medteam rescore'; runF as for NewCmdRun.
func NewCmdRescore(f *Factory, runF func(context.Context, *RescoreOptions) error) *cobra.Command {
	opts := &RescoreOptions{}
	cmd := &cobra.Command{
		Use:   "rescore FILE... --out DIR",
		Short: "Score published per-question outputs with medteam's reading beside the published extraction; writes a run directory",
		Long: `Reads per-question outputs published by others (a run made outside medteam) and writes a run
directory (questions.parquet, an empty calls.parquet, manifest.json, rescore.md) so that
'medteam report' and 'medteam check' work on it like on any run.

Each reply is read twice, as two arms of protocol "rescore": arm "published" scores the letter the
publishers' own extraction took (the file's pred / mmlupro_pred), with MMLU-Pro's random fill where
it took none (random.seed(12345); randint over the options: the same option every time); arm
"medteam" scores medteam's reading of the reply (package answer), an abstention counting as wrong.
The table printed (and rescore.md) shows both per model, medteam's with its Wilson 95% interval,
and lists every reply where the two readings differ.

Layouts read (JSON Lines or a JSON array, optionally .gz): MMLU-Pro's result files
(question_id, question, options, answer / answer_index, pred, response or model_outputs,
category), the corpus of ../shared/realoutputs (model, question_id, options, gold,
mmlupro_pred, response), and a generic JSONL (id, options, gold, response). Padding options
("N/A") at the end of the list are dropped. A record's question id in the rows is the content id
medteam's loader gives the question when the record keeps its stem (so the rows pair with a
medteam run on the dataset), else "<dataset>:<published id>". A question published twice under two
question_ids with the same stem and options (MMLU-Pro health: 95 in the gpt-4o file) is kept twice,
as the published count keeps it and as medteam's loader does: the copy of the smallest question_id
has the content id, every other "<content id>~<question_id>"; rescore.md lists them and report.md
notes them. A record with withheld: true (its reply kept apart, response null) is an abstention of
arm medteam with reason "withheld"; arm published still scores its extraction.

'medteam report' on the run directory has a section "Published replies rescored": per model the
published extraction with its fill as k/n (pp.pp%), medteam's reading with its interval, the
abstentions (of them withheld), and every reply the two read differently.`,
		Example: `  medteam rescore ../shared/realoutputs/mmlupro_health.jsonl.gz --model gpt-4o-2024-05-13 --out runs/rescore-gpt4o
  medteam rescore health_result.json --model-name gpt-4o --out runs/rescore-gpt4o
  medteam report runs/rescore-gpt4o`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRescore(f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Out, "out", "", "run directory to write (required; must not hold a run)")
	fl.StringSliceVar(&opts.Models, "model", nil, "keep only the records of these models (the records' model field)")
	fl.StringVar(&opts.ModelName, "model-name", "", "the model of records that name none")
	fl.StringVar(&opts.Dataset, "dataset", "", `dataset name of the rows (default "mmlu-pro" when the records carry MMLU-Pro's extraction, else "published")`)
	fl.StringVar(&opts.Split, "split", "test", "split name of the rows")
	return cmd
}

func runRescore(f *Factory, o *RescoreOptions) error {
	if o.Out == "" {
		return usagef("rescore: --out DIR is required (the run directory to write)")
	}
	if _, err := os.Stat(filepath.Join(o.Out, results.QuestionsFile)); err == nil {
		return usagef("rescore: %s already holds a run; give a new --out directory", o.Out)
	}
	if isMedAgentsBench(o.Files) {
		return runRescoreMAB(f, o)
	}
	recs, err := readRescoreRecords(o)
	if err != nil {
		return err
	}
	run := rescore.Run{Dataset: o.Dataset, Split: o.Split, Model: o.ModelName}
	if run.Dataset == "" {
		run.Dataset = "published"
		if slices.ContainsFunc(recs, func(r rescore.Record) bool { return r.HasPred }) {
			run.Dataset = "mmlu-pro"
		}
	}
	start := time.Now().UTC()
	run.RunID = results.NewRunID(start, 0)
	scored := rescore.Score(recs)
	rows, err := run.Rows(scored)
	if err != nil {
		return usagef("rescore: %v", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := results.WriteQuestions(filepath.Join(o.Out, results.QuestionsFile), rows); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if err := results.WriteCalls(filepath.Join(o.Out, results.CallsFile), nil); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if items := run.Items(scored); len(items) > 0 {
		if err := results.WriteItems(filepath.Join(o.Out, results.ItemsFile), items); err != nil {
			return fmt.Errorf("rescore: %w", err)
		}
	}
	sums := run.Summaries(scored)
	n, err := writeRescoreMD(o, run, sums, scored)
	if err != nil {
		return err
	}
	if err := writeRescoreManifest(o, run, rows, run.Duplicates(scored), start); err != nil {
		return err
	}
	rescore.WriteTable(f.Out, sums, escape.Terminal)
	writeDuplicateLine(f.Out, run.Duplicates(scored))
	fmt.Fprintf(f.Out, "\n%d replies read differently from the published extraction: listed in %s\n", n, filepath.Join(o.Out, "rescore.md"))
	return nil
}

// readRescoreRecords reads the files' records, of the --model models.
func readRescoreRecords(o *RescoreOptions) ([]rescore.Record, error) {
	var recs []rescore.Record
	for _, path := range o.Files {
		got, err := rescore.ReadFile(path)
		if err != nil {
			return nil, usagef("rescore: %v", err)
		}
		recs = append(recs, got...)
	}
	if len(o.Models) > 0 {
		recs = slices.DeleteFunc(recs, func(r rescore.Record) bool {
			m := r.Model
			if m == "" {
				m = o.ModelName
			}
			return !slices.Contains(o.Models, m)
		})
		if len(recs) == 0 {
			return nil, usagef("rescore: no record of --model %s in %s", strings.Join(o.Models, ","), strings.Join(o.Files, ", "))
		}
	}
	if len(recs) == 0 {
		return nil, usagef("rescore: no records in %s", strings.Join(o.Files, ", "))
	}
	return recs, nil
}

// writeRescoreMD writes rescore.md: the table and the replies read
// differently (their number is returned).
func writeRescoreMD(o *RescoreOptions, run rescore.Run, sums []rescore.ModelSummary, scored []rescore.Scored) (int, error) {
	var md strings.Builder
	fmt.Fprintf(&md, "# Rescore of %s\n\n", strings.Join(o.Files, ", "))
	rescore.WriteTable(&md, sums, escape.Markdown)
	writeDuplicateNote(&md, run.Duplicates(scored))
	md.WriteString("\n## Replies read differently\n\n")
	n := run.WriteDisagreements(&md, scored)
	if err := os.WriteFile(filepath.Join(o.Out, "rescore.md"), []byte(md.String()), 0o644); err != nil {
		return 0, fmt.Errorf("rescore: %w", err)
	}
	return n, nil
}

// rescoreManifest is the part of a rescore run's manifest that every
// published layout shares: the tool, the command, the times, the count of
// rows and a complete status (every published record read is a row).
func rescoreManifest(o *RescoreOptions, run rescore.Run, rows []results.QuestionRow, start time.Time) results.Manifest {
	version, revision, goVersion := results.ToolInfo()
	return results.Manifest{
		SchemaVersion: results.SchemaVersion, RunID: run.RunID,
		Tool:      results.Tool{Name: "medteam", Version: version, GitRevision: revision, GoVersion: goVersion},
		Command:   append([]string{"medteam", "rescore"}, o.Files...),
		StartedAt: start, FinishedAt: time.Now().UTC(), Repeats: 1,
		Counts: results.Counts{Questions: len(rows)},
		Status: results.NewStatus(len(rows), len(rows), false),
	}
}

// writeRescoreManifest writes the run's manifest: the files read with
// their hashes, the models, the two arms, the counts.
func writeRescoreManifest(o *RescoreOptions, run rescore.Run, rows []results.QuestionRow, dups []rescore.Duplicate, start time.Time) error {
	m := rescoreManifest(o, run, rows, start)
	for _, path := range o.Files {
		sum, err := results.FileSHA256(path)
		if err != nil {
			return fmt.Errorf("rescore: %w", err)
		}
		ref := results.DatasetRef{Name: run.Dataset, Path: path, SHA256: sum, Format: rescoreFormat,
			Notes: []string{"replies rescored: arm published = the file's extraction with MMLU-Pro's random fill, arm medteam = medteam's reading"}}
		ref.DuplicatesKept, ref.Notes = duplicatesOf(path, dups, ref.Notes)
		m.Datasets = append(m.Datasets, ref)
	}
	seen := map[string]bool{}
	arms := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Model] {
			seen[r.Model] = true
			m.Models = append(m.Models, results.ModelRef{Name: r.Model, Provider: "published"})
		}
		arms[r.Arm] = true
	}
	for _, a := range []string{rescore.ArmPublished, rescore.ArmMedteam} {
		if arms[a] {
			m.Arms = append(m.Arms, results.ArmRef{Label: a, Protocol: rescore.Protocol, AgentPolicy: "fixed:1"})
		}
	}
	names := []string{results.QuestionsFile, results.CallsFile, "rescore.md"}
	if _, err := os.Stat(filepath.Join(o.Out, results.ItemsFile)); err == nil {
		names = append(names, results.ItemsFile)
	}
	files, err := results.FileHashes(o.Out, names...)
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	m.Files = files
	if err := results.WriteManifest(filepath.Join(o.Out, results.ManifestFile), m); err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	return nil
}

package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/results"
)

// unshardedPlan returns a shard's plan document with everything that
// differs between shards of one plan removed, and its hash.
func unshardedPlan(body []byte) ([]byte, string, planDoc, error) {
	var doc planDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, "", doc, err
	}
	doc.Flags.Shard = ""
	for i := range doc.Datasets {
		doc.Datasets[i].Shard, doc.Datasets[i].Questions = "", 0
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, "", doc, err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), doc, nil
}

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR...",
		Short: "Join the run directories of the shards of one plan (--shard i/n) into one run directory",
		Long: `Joins the journals of shard runs into one run directory and writes its parquet files
and manifest, in the order of the whole plan. Directories of different plans are refused.

Sharding a plan over machines, e.g. a Kubernetes Indexed Job with 8 completions: each pod runs
  medteam run <plan flags> --shard $((JOB_COMPLETION_INDEX+1))/8 --out /results
and writes its own run directory; then one step runs
  medteam merge --out /results/merged /results/run-*`,
		Example: "  medteam merge --out results/merged results/run-aaa results/run-bbb",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var body []byte
			var hash string
			var doc planDoc
			for i, dir := range args {
				j, err := journal.OpenExisting(dir)
				if err != nil {
					return usagef("merge: %s: %v", dir, err)
				}
				b, _, err := j.PlanBody()
				j.Close()
				if err != nil {
					return fmt.Errorf("merge: %s: %w", dir, err)
				}
				ub, h, d, err := unshardedPlan(b)
				if err != nil {
					return fmt.Errorf("merge: %s: the recorded plan does not decode: %w", dir, err)
				}
				if i == 0 {
					body, hash, doc = ub, h, d
				} else if h != hash {
					return usagef("merge: %s belongs to a different plan than %s (plan %.12s vs %.12s); only shards of one plan can be merged", dir, args[0], h, hash)
				}
			}
			if out == "" {
				out = filepath.Join(filepath.Dir(args[0]), "run-"+hash[:12])
			}
			runID := filepath.Base(out)
			dst, err := journal.Open(out, hash, body)
			if err != nil {
				return err
			}
			defer dst.Close()
			units, dups := 0, 0
			questions := map[string]map[string]bool{} // dataset → question ids
			have, err := dst.Done(nil)
			if err != nil {
				return err
			}
			for _, dir := range args {
				j, err := journal.OpenExisting(dir)
				if err != nil {
					return err
				}
				err = j.EachUnit(func(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error {
					if have[key] {
						dups++
						return nil
					}
					have[key] = true
					if questions[q.Dataset] == nil {
						questions[q.Dataset] = map[string]bool{}
					}
					questions[q.Dataset][q.QuestionID] = true
					q.RunID = runID
					for i := range calls {
						calls[i].RunID = runID
					}
					units++
					return dst.Put(key, ord, q, calls)
				})
				j.Close()
				if err != nil {
					return fmt.Errorf("merge: %s: %w", dir, err)
				}
			}
			nq, nc, err := dst.Export(out)
			if err != nil {
				return err
			}
			version, rev, gover := results.ToolInfo()
			m := results.Manifest{SchemaVersion: results.SchemaVersion, RunID: runID, Command: scrubArgs(append([]string{"medteam", "merge"}, args...)),
				StartedAt: time.Now().UTC(), FinishedAt: time.Now().UTC(), Seed: doc.Flags.Seed, SampleSeed: doc.Flags.SampleSeed,
				Limit: doc.Flags.Limit, Datasets: doc.Datasets, Models: doc.Models, Arms: doc.Arms, Repeats: doc.Flags.Repeats,
				PromptSetHash: doc.PromptSetHash}
			m.Tool.Name, m.Tool.Version, m.Tool.GitRevision, m.Tool.GoVersion = "medteam", version, rev, gover
			for i := range m.Datasets {
				m.Datasets[i].Questions = len(questions[m.Datasets[i].Name])
			}
			for _, mr := range doc.Models {
				m.Simulated = m.Simulated || mr.Provider == "sim"
			}
			m.Counts.Questions, m.Counts.Calls = int(nq), int(nc)
			if m.Files, err = results.FileHashes(out, results.QuestionsFile, results.CallsFile); err != nil {
				return err
			}
			if err := results.WriteManifest(filepath.Join(out, results.ManifestFile), m); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %d shard(s) into %s: %d units (%d duplicates skipped), %d question rows, %d call rows\n", len(args), out, units, dups, nq, nc)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged run directory (default: run-<plan hash> beside the first shard)")
	return cmd
}

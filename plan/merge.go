package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/results"
)

// Merged says what a merge did.
type Merged struct {
	Dir                    string
	Shards, Units, Dups    int
	QuestionRows, CallRows int64
	// Planned is the whole plan's units; Missing the shards ("i/n") not
	// given, which leave the merge incomplete.
	Planned int
	Missing []string
}

// Merge joins the run directories of the shards of one plan into the run
// directory out ("" = run-<plan hash> beside the first shard), in the order
// of the whole plan, and writes its parquet files and manifest. Directories
// of different plans are refused with an *InputError; a unit present in
// several shards is taken once, but shards of different splits (--shard
// i/n with different n), a shard given twice and a directory without a
// journal are refused. Shards not given make the merge incomplete (Missing),
// planned at the whole plan's units. argv is the scrubbed command line.
func Merge(out string, dirs []string, argv []string) (Merged, error) {
	body, hash, doc, shards, err := commonPlan(dirs)
	if err != nil {
		return Merged{}, err
	}
	missing, err := checkShards(shards)
	if err != nil {
		return Merged{}, err
	}
	if out == "" {
		out = filepath.Join(filepath.Dir(dirs[0]), "run-"+hash[:12])
	}
	dst, err := journal.Open(out, hash, body)
	if err != nil {
		return Merged{}, err
	}
	defer dst.Close()
	res := Merged{Dir: out, Shards: len(dirs), Missing: missing, Planned: mergedPlanned(doc, shards, len(missing))}
	questions, err := copyUnits(dst, dirs, filepath.Base(out), &res)
	if err != nil {
		return res, err
	}
	if res.QuestionRows, res.CallRows, err = dst.Export(out); err != nil {
		return res, err
	}
	for i := range doc.Datasets {
		doc.Datasets[i].Questions = len(questions[doc.Datasets[i].Name])
	}
	rows, err := results.ReadQuestions(filepath.Join(out, results.QuestionsFile))
	if err != nil {
		return res, err
	}
	m := Manifest{Argv: argv, Start: time.Now().UTC(), Doc: doc, Planned: res.Planned, Incomplete: len(missing) > 0 || !shardsComplete(dirs)}
	m.Probes, m.ProbeTokens, m.AbandonedAttempts, m.AbandonedTokens = shardCounts(dirs)
	return res, m.Write(out, rows, int(res.CallRows))
}

// shardCounts adds up the requests no row holds that the shards' manifests
// record — the circuit breaker's probes and the attempts of abandoned units,
// with their tokens: they reached the endpoint too, so the merged run
// accounts for them (issue 35 item 8).
func shardCounts(dirs []string) (probes int, probeTokens int64, abandoned int, abandonedTokens int64) {
	for _, dir := range dirs {
		if m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile)); err == nil {
			probes += m.Counts.Probes
			probeTokens += m.Counts.ProbeTokens
			abandoned += m.Counts.AbandonedAttempts
			abandonedTokens += m.Counts.AbandonedTokens
		}
	}
	return probes, probeTokens, abandoned, abandonedTokens
}

// shardsComplete reports whether every shard's manifest says it is
// complete (a shard without one, or killed, makes the merge incomplete).
func shardsComplete(dirs []string) bool {
	for _, dir := range dirs {
		m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
		if err != nil || !m.Status.Complete() {
			return false
		}
	}
	return true
}

// commonPlan reads the plan of every shard and checks they are one plan; it
// returns the unsharded document, its hash, its decoded form and the
// shard each directory holds.
func commonPlan(dirs []string) ([]byte, string, Doc, []shardOf, error) {
	var body []byte
	var hash, first string
	var doc Doc
	var shards []shardOf
	empty, emptyErr := "", error(nil)
	for _, dir := range dirs {
		j, err := journal.OpenExisting(dir)
		if err != nil {
			if empty == "" {
				empty, emptyErr = dir, err
			}
			continue
		}
		b, _, err := j.PlanBody()
		j.Close()
		if err != nil {
			return nil, "", doc, nil, fmt.Errorf("merge: %s: %w", dir, err)
		}
		ub, h, d, err := Unshard(b)
		var sd Doc
		if err == nil {
			err = json.Unmarshal(b, &sd)
		}
		if err != nil {
			return nil, "", doc, nil, fmt.Errorf("merge: %s: the recorded plan does not decode: %w", dir, err)
		}
		if first == "" {
			body, hash, doc, first = ub, h, d, dir
		} else if h != hash {
			return nil, "", doc, nil, Inputf("merge: %s belongs to a different plan than %s (plan %.12s vs %.12s); only shards of one plan can be merged", dir, first, h, hash)
		}
		s, err := readShard(dir, sd)
		if err != nil {
			return nil, "", doc, nil, err
		}
		shards = append(shards, s)
	}
	if empty != "" {
		return nil, "", doc, nil, noJournal(empty, emptyErr, shards)
	}
	return body, hash, doc, shards, nil
}

// copyUnits copies every unit of the shards not yet in dst into it, under
// run id runID, counting them in res; it returns the question ids seen per
// dataset.
func copyUnits(dst *journal.Journal, dirs []string, runID string, res *Merged) (map[string]map[string]bool, error) {
	questions := map[string]map[string]bool{}
	have, err := dst.Done(nil)
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		j, err := journal.OpenExisting(dir)
		if err != nil {
			return nil, err
		}
		items, err := j.Items()
		if err == nil && len(items) > 0 {
			err = dst.PutItems(slices.Collect(maps.Values(items)))
		}
		if err != nil {
			j.Close()
			return nil, fmt.Errorf("merge: %s: %w", dir, err)
		}
		err = j.EachUnit(func(key string, ord int64, q results.QuestionRow, calls []results.CallRow) error {
			if have[key] {
				res.Dups++
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
			res.Units++
			return dst.Put(key, ord, q, calls)
		})
		j.Close()
		if err != nil {
			return nil, fmt.Errorf("merge: %s: %w", dir, err)
		}
	}
	return questions, nil
}

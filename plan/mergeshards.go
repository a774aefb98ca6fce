package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/journal"
)

// shardOf is one merged directory's place in its plan: shard I of N (1/1
// for an unsharded run) and the units its own plan has.
type shardOf struct {
	Dir     string
	I, N    int
	Planned int
}

// readShard is the shard of the plan document doc recorded in dir.
func readShard(dir string, doc Doc) (shardOf, error) {
	i, n, err := datasets.ParseShard(doc.Spec.Shard)
	if err != nil {
		return shardOf{}, Inputf("merge: %s: the recorded shard %q: %v", dir, doc.Spec.Shard, err)
	}
	return shardOf{Dir: dir, I: i, N: n, Planned: PlannedUnits(doc)}, nil
}

// checkShards refuses shards of different shard counts and a shard given
// twice; it returns the shards ("i/n") none of the directories holds.
func checkShards(shards []shardOf) ([]string, error) {
	seen := map[int]string{}
	for _, s := range shards {
		if f := shards[0]; s.N != f.N {
			return nil, Inputf("merge: %s is shard %d/%d but %s is shard %d/%d: shards of different splits (%d and %d shards) do not make one run; merge the shards of one --shard i/N split",
				s.Dir, s.I, s.N, f.Dir, f.I, f.N, f.N, s.N)
		}
		if d, ok := seen[s.I]; ok {
			return nil, Inputf("merge: shard %d/%d is given twice (%s and %s); give each shard's directory once", s.I, s.N, d, s.Dir)
		}
		seen[s.I] = s.Dir
	}
	var missing []string
	for i := 1; i <= shards[0].N; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, shards[0].N))
		}
	}
	return missing, nil
}

// mergedPlanned is the number of units of the whole plan doc (unsharded)
// whose shards present are given: their sum when none is missing, else the
// plan's questions (--limit of the dataset's valid records) × models × arms
// × repeats, and never fewer than the shards present plan.
func mergedPlanned(doc Doc, shards []shardOf, missing int) int {
	sum := 0
	for _, s := range shards {
		sum += s.Planned
	}
	if missing == 0 {
		return sum
	}
	d := doc
	d.Datasets = append(d.Datasets[:0:0], doc.Datasets...)
	for i, ds := range d.Datasets {
		q := ds.Records
		if doc.Spec.Limit > 0 && doc.Spec.Limit < q {
			q = doc.Spec.Limit
		}
		d.Datasets[i].Questions = q
	}
	return max(sum, PlannedUnits(d))
}

// noJournal is the error for a merged directory without a journal: a
// shard whose run wrote nothing.
func noJournal(dir string, err error, shards []shardOf) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return Inputf("merge: %s: %v", dir, err)
	}
	msg := fmt.Sprintf("merge: %s holds no run (no %s): its shard wrote nothing", dir, journal.FileName)
	if len(shards) > 0 {
		if missing, cerr := checkShards(shards); cerr == nil && len(missing) > 0 {
			msg += fmt.Sprintf("; missing from the other directories: shard %s", strings.Join(missing, ", "))
		}
	}
	return Inputf("%s; rerun that shard (medteam run ... --shard i/n) into it, or leave the directory out to write an incomplete merge", msg)
}

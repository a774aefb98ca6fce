package plan

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// TestCheckShards: the missing shards are named; different splits and a
// shard given twice are refused, naming them.
func TestCheckShards(t *testing.T) {
	sh := func(i, n int) shardOf {
		return shardOf{Dir: "d" + string(rune('0'+i)) + string(rune('0'+n)), I: i, N: n}
	}
	cases := []struct {
		name    string
		shards  []shardOf
		missing []string
		err     string
	}{
		{"all", []shardOf{sh(2, 3), sh(1, 3), sh(3, 3)}, nil, ""},
		{"unsharded", []shardOf{sh(1, 1)}, nil, ""},
		{"one of two", []shardOf{sh(1, 2)}, []string{"2/2"}, ""},
		{"two of four", []shardOf{sh(4, 4), sh(2, 4)}, []string{"1/4", "3/4"}, ""},
		{"splits", []shardOf{sh(1, 2), sh(2, 3)}, nil, "(2 and 3 shards)"},
		{"twice", []shardOf{sh(1, 2), sh(1, 2)}, nil, "shard 1/2 is given twice"},
	}
	for _, c := range cases {
		missing, err := checkShards(c.shards)
		if c.err != "" {
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want an input error with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(missing, c.missing) {
			t.Errorf("%s: %v %v, want %v", c.name, missing, err, c.missing)
		}
	}
}

// TestMergedPlanned: the shards' sum when all are there, else the whole
// plan's units from --limit or the dataset's records.
func TestMergedPlanned(t *testing.T) {
	doc := func(limit, records int) Doc {
		d := Doc{Datasets: []results.DatasetRef{{Name: "a", Records: records}}, Models: make([]results.ModelRef, 1), Arms: make([]results.ArmRef, 2)}
		d.Spec.Limit = limit
		return d
	}
	cases := []struct {
		name          string
		doc           Doc
		planned       []int
		missing, want int
	}{
		{"all shards", doc(30, 50), []int{40, 20}, 0, 60},
		{"one missing, limit", doc(30, 50), []int{40}, 1, 60},
		{"one missing, no limit", doc(0, 50), []int{40}, 1, 100},
		{"limit beyond records", doc(80, 50), []int{40}, 1, 100},
		{"never below the shards given", doc(10, 50), []int{40}, 1, 40},
	}
	for _, c := range cases {
		var shards []shardOf
		for _, p := range c.planned {
			shards = append(shards, shardOf{Planned: p})
		}
		if got := mergedPlanned(c.doc, shards, c.missing); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestShardProbesAddUp: the merged manifest accounts for every shard's probe
// requests and abandoned attempts (they reached the endpoint); a shard without
// a manifest adds none.
func TestShardProbesAddUp(t *testing.T) {
	var dirs []string
	for _, c := range []results.Counts{{Probes: 3, ProbeTokens: 9}, {AbandonedAttempts: 4, AbandonedTokens: 100}, {Probes: 2, ProbeTokens: 7, AbandonedAttempts: 1, AbandonedTokens: 20}} {
		dir := t.TempDir()
		if err := results.WriteManifest(filepath.Join(dir, results.ManifestFile), results.Manifest{Counts: c}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	dirs = append(dirs, t.TempDir()) // no manifest
	if p, tok, a, atok := shardCounts(dirs); p != 5 || tok != 16 || a != 5 || atok != 120 {
		t.Fatalf("shardCounts = %d probes, %d tokens, %d abandoned attempts, %d tokens; want 5, 16, 5, 120", p, tok, a, atok)
	}
}

package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/datasets"
)

// noQuestions explains why a dataset that loaded gave no question to run.
func noQuestions(spec string, res datasets.LoadResult) error {
	where := strings.Join(res.Files, ", ")
	if where == "" {
		where = spec
	}
	switch {
	case res.Skipped > 0:
		var reasons []string
		for _, code := range slices.Sorted(maps.Keys(res.Reasons)) {
			reasons = append(reasons, fmt.Sprintf("%s %d", code, res.Reasons[code]))
		}
		first := ""
		if len(res.Problems) > 0 {
			first = "; the first: " + res.Problems[0].Error()
		}
		return Inputf("no valid record was found in %s: %d records read, %d invalid (%s)%s\nnothing to run: fix the file ('medteam datasets validate %s' lists every problem)",
			where, res.Records, res.Skipped, strings.Join(reasons, ", "), first, spec)
	case res.Filtered > 0:
		return Inputf("no question of %s is in the selected split or filter (%d records outside it); nothing to run", where, res.Filtered)
	}
	return Inputf("no record was found in %s; nothing to run", where)
}

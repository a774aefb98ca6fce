package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// finishCounts are one arm's calls the backend did not let finish: cut off
// at their token limit (finish reason length), withheld by its content
// filter (content_filter), refused by the model (a refusal message).
type finishCounts struct{ calls, truncated, filtered, refused int }

// noteFinish warns, per dataset × model × arm in order, when any of its
// calls was cut off, filtered or refused (questions.parquet calls_truncated,
// calls_filtered, calls_refused): a filtered or refused reply is an
// abstention, a cut-off one is read only from an explicit answer
// statement, so the arm's accuracy is not the model's unhindered.
func (r *Report) noteFinish(rows []results.QuestionRow) {
	by := map[routeKey]*finishCounts{}
	for i := range rows {
		q := &rows[i]
		if q.CallsTruncated+q.CallsFiltered+q.CallsRefused == 0 {
			continue
		}
		k := routeKey{q.Dataset, q.Model, q.Arm}
		if by[k] == nil {
			by[k] = &finishCounts{}
		}
		by[k].truncated += int(q.CallsTruncated)
		by[k].filtered += int(q.CallsFiltered)
		by[k].refused += int(q.CallsRefused)
	}
	if len(by) == 0 {
		return
	}
	for i := range rows {
		q := &rows[i]
		if c := by[routeKey{q.Dataset, q.Model, q.Arm}]; c != nil {
			c.calls += int(q.Calls)
		}
	}
	keys := make([]routeKey, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	rank := r.armRank()
	slices.SortFunc(keys, func(a, b routeKey) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.m, b.m), cmp.Compare(rank(a.a), rank(b.a)), cmp.Compare(a.a, b.a))
	})
	for _, k := range keys {
		c := by[k]
		where := ""
		if r.multi() {
			where = fmt.Sprintf(" (%s, %s)", k.d, k.m)
		}
		var parts []string
		for _, p := range []struct {
			n    int
			what string
		}{{c.truncated, "cut off at the token limit (finish reason length)"}, {c.filtered, "withheld by the content filter (content_filter)"}, {c.refused, "refused by the model"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Arm %s%s: of its %d calls, %s. A filtered or refused reply is an abstention (reasons content_filter, refusal); "+
			"a cut-off reply is read only from an explicit answer statement, else it abstains (reason truncated): --max-tokens may be too low for this arm (see --retry-truncated; calls.parquet finish_reason, refusal).",
			k.a, where, c.calls, strings.Join(parts, ", ")))
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/medteam-bench/medteam/results"
)

// writeRun writes rows as dir/questions.parquet and reads them back, as
// the report command does.
func writeRun(t *testing.T, dir string, rows []results.QuestionRow) []results.QuestionRow {
	t.Helper()
	path := filepath.Join(dir, results.QuestionsFile)
	if err := results.WriteQuestions(path, rows); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// counts is the headline's numerators and denominators recomputed from
// rows with the SQL's definitions, independently of package stats.
type counts struct{ n, correct, answered, calls, tokens int64 }

func recount(rows []results.QuestionRow) map[string]*counts {
	out := map[string]*counts{}
	for _, q := range rows {
		k := q.Dataset + "|" + q.Model + "|" + q.Arm
		c := out[k]
		if c == nil {
			c = &counts{}
			out[k] = c
		}
		ans := !q.Abstained && q.Error == "" && q.ErrorClass == ""
		c.n++
		if ans {
			c.answered++
		}
		if ans && q.Correct {
			c.correct++
		}
		c.calls += int64(q.Calls)
		c.tokens += q.PromptTokens + q.CompletionTokens
	}
	return out
}

// The headline's numbers are the SQL's definitions applied to the parquet
// file: failed rows whose correct column is true, and abstentions, are not
// correct.
func TestHeadlineMatchesParquet(t *testing.T) {
	dir := t.TempDir()
	rows := writeRun(t, dir, synthRows(presetArms(), 137, 2, 5, "sim/default"))
	r, err := Build(rows, Options{Seed: 1, Reps: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := recount(rows)
	failedButMarked := 0
	for _, q := range rows {
		if q.Error != "" && q.Correct {
			failedButMarked++
		}
	}
	if failedButMarked == 0 {
		t.Fatal("the fixture needs failed rows marked correct")
	}
	for _, g := range r.Groups {
		c := want[g.Key.Dataset+"|"+g.Key.Model+"|"+g.Key.Arm]
		if int64(g.Rows) != c.n || int64(g.Correct) != c.correct || int64(g.Answered) != c.answered ||
			g.Calls.Mean != float64(c.calls)/float64(c.n) || math.Abs(g.Tokens.Mean-float64(c.tokens)/float64(c.n)) > 1e-9 {
			t.Errorf("%s: group %+v, recount %+v", g.Key.Arm, g, c)
		}
	}
}

// duckDB runs query in dir with DuckDB — the duckdb command when it is on
// PATH, else Node with the @duckdb/node-api package installed under
// $MEDTEAM_DUCKDB_NODE (scripts/duckdb-check.sh sets it up) — and returns
// the rows as JSON objects; it skips the test when neither is there.
func duckDB(t *testing.T, dir, query string) []map[string]any {
	t.Helper()
	var cmd *exec.Cmd
	if bin, err := exec.LookPath("duckdb"); err == nil {
		cmd = exec.Command(bin, "-json", "-c", query)
	} else if mod := os.Getenv("MEDTEAM_DUCKDB_NODE"); mod != "" {
		script := `const {createRequire} = require('module');
const duck = createRequire(process.env.MEDTEAM_DUCKDB_NODE + '/')('@duckdb/node-api');
(async () => {
  const db = await duck.DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(require('fs').readFileSync(0, 'utf8'));
  console.log(JSON.stringify(r.getRowObjectsJson()));
})().catch(e => { console.error(e.message); process.exit(1); });`
		cmd = exec.Command("node", "-e", script)
		cmd.Stdin = strings.NewReader(query)
	} else {
		t.Skip("DuckDB not available: put duckdb on PATH or run scripts/duckdb-check.sh")
	}
	cmd.Dir = dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var rows []map[string]any
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out.String())
	}
	return rows
}

// cellNumber reads the number at the start of a table cell ("56.2%
// [51.8, 60.5]", "$0.0012").
func cellNumber(s string) float64 {
	s = strings.TrimPrefix(s, "$")
	if i := strings.IndexAny(s, "% "); i >= 0 {
		s = s[:i]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// The DuckDB query under the headline table reproduces every number of
// the table, for one run and for two pooled runs (relabelled arms).
func TestHeadlineSQLWithDuckDB(t *testing.T) {
	dir := t.TempDir()
	prices := Prices{"sim/default": {Prompt: 0.15, Completion: 0.6}}
	one := writeRun(t, dir, synthRows(presetArms(), 137, 2, 5, "sim/default"))
	r, err := Build(one, Options{Reps: 50, Prices: prices, Runs: []RunInfo{{Name: "run-synth", Parquet: results.QuestionsFile}}})
	if err != nil {
		t.Fatal(err)
	}
	checkSQL(t, dir, r)

	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	two := synthRows(presetArms()[:4], 137, 2, 6, "sim/default")
	for i := range two {
		two[i].RunID = "run-two"
	}
	two = writeRun(t, other, two)
	pooled, infos, _, err := Pool([]RunRows{{Info: RunInfo{Name: "run-synth", Parquet: results.QuestionsFile}, Rows: one},
		{Info: RunInfo{Name: "run-two", Parquet: "other/" + results.QuestionsFile}, Rows: two}})
	if err != nil {
		t.Fatal(err)
	}
	r, err = Build(pooled, Options{Reps: 50, Runs: infos})
	if err != nil {
		t.Fatal(err)
	}
	checkSQL(t, dir, r)
}

// checkSQL runs r.SQL in dir and compares each result row with the
// headline table's row of the same arm.
func checkSQL(t *testing.T, dir string, r *Report) {
	t.Helper()
	got := duckDB(t, dir, r.SQL)
	head := Sections(r)[1].Tables[0]
	col := map[string]int{}
	for i, h := range head.Header {
		col[h] = i
	}
	if len(got) != len(head.Rows) {
		t.Fatalf("DuckDB gave %d rows, the headline has %d", len(got), len(head.Rows))
	}
	byArm := map[string][]string{}
	for _, row := range head.Rows {
		byArm[row[col["arm"]]] = row
	}
	pairs := [][2]string{{"n", "n"}, {"accuracy_pct", "accuracy [95% CI]"}, {"coverage_pct", "coverage"},
		{"selective_pct", "selective acc."}, {"calls_per_q", "calls/q"}, {"tokens_per_q", "tokens/q"}, {"cost_per_q", "cost/q"}}
	for _, g := range got {
		arm := fmt.Sprint(g["arm"])
		row, ok := byArm[arm]
		if !ok {
			t.Errorf("DuckDB arm %s is not in the headline", arm)
			continue
		}
		for _, p := range pairs {
			v, present := g[p[0]]
			if !present {
				continue
			}
			sqlV, _ := strconv.ParseFloat(fmt.Sprint(v), 64)
			if cell := row[col[p[1]]]; cellNumber(cell) != sqlV {
				t.Errorf("%s %s: headline %q, DuckDB %v", arm, p[0], cell, v)
			}
		}
	}
}

// summary.parquet has a row per group, subject, comparison, component and
// factorial term; undefined statistics are null, not NaN.
func TestSummaryParquet(t *testing.T) {
	dir := t.TempDir()
	rows := synthRows(factorialArms(), 60, 1, 9, "sim/default")
	rows = append(rows, synthRows(presetArms()[:2], 60, 1, 9, "sim/weak")...)
	r, err := Build(rows, Options{Reps: 50, Prices: Prices{"sim/default": {Prompt: 1, Completion: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	md, path, err := WriteFiles(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(md); err != nil {
		t.Fatal(err)
	}
	got, err := parquet.ReadFile[SummaryRow](path)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, s := range got {
		kinds[s.Kind]++
	}
	want := map[string]int{KindGroup: 26, KindSubject: 52, KindComparison: 23 + 1 + 1, KindComponent: len(r.Components), KindFactorial: len(r.Factorial[0].Fit.Coefs)}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("%d %s rows, want %d (all: %v)", kinds[k], k, v, kinds)
		}
	}
	for _, s := range got {
		switch {
		case s.Kind == KindGroup && s.Model == "sim/weak" && (s.CostTotal != nil || s.Accuracy == nil):
			t.Errorf("unpriced group: cost %v accuracy %v", s.CostTotal, s.Accuracy)
		case s.Kind == KindGroup && s.AccuracySE != nil:
			t.Errorf("no repeats, yet a clustered SE %v", *s.AccuracySE)
		case s.Kind == KindComparison && s.Scope == "model" && (s.Reference != "sim/default" || s.Candidate != "sim/weak" || s.Delta == nil):
			t.Errorf("model comparison %+v", s)
		case s.SchemaVersion != SummarySchemaVersion:
			t.Errorf("schema version %d", s.SchemaVersion)
		}
	}
}

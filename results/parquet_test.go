package results

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// fullQuestion returns a QuestionRow with every field set to a non-zero value
// that depends on i, with multi-element lists and non-ASCII text.
func fullQuestion(i int) QuestionRow {
	n := int32(i)
	return QuestionRow{
		SchemaVersion: SchemaVersion,
		RunID:         "20261122T014700Z-a3f09c",
		Dataset:       "medqa-ü",
		Split:         "test",
		QuestionID:    fmt.Sprintf("q-%05d", i),
		SourceID:      fmt.Sprintf("src-%d", i),
		Arm:           "smm+l+to",
		Protocol:      "teamwork",
		SMM:           true,
		Leadership:    true,
		Orientation:   true,
		Trust:         true,
		Monitoring:    true,
		Turns:         3,
		Discussion:    "round_robin",
		AgentPolicy:   "fixed:3",
		StructuredOut: true,
		Model:         "sim/skilled",
		Repeat:        n%3 + 1,
		Seed:          -int64(i) - 1<<40,

		Gold:        "C",
		NOptions:    5,
		Subject:     "step1 — Kardiologie",
		OptionOrder: "CADB",
		MetaJSON:    `{"step":"1","note":"naïve 医生 🩺"}`,

		NAgents: 3,
		Roles:   []string{"Cardiologist", "Médecin généraliste", "内科医"},
		Weights: []float64{0.5, 0.3, 0.2},

		Predicted:     "B",
		Correct:       true,
		Abstained:     true,
		AbstainReason: "unparseable",
		DecisionRule:  "trust_weighted_borda",
		Tie:           true,
		Tied:          []string{"B", "C"},
		TieBrokenBy:   "leader",
		Scores:        []float64{1.5, 7.25, 7.25, 0, -0.5},

		Rounds:              []string{"B,C,", "B,B,C", "B,B,B"},
		AgreementInitial:    1.0 / 3,
		AgreementFinal:      1,
		Unanimous:           true,
		OpinionChanges:      n + 2,
		ChangesRightToWrong: 1,
		ChangesWrongToRight: 2,
		InitialMajority:     "B",
		ConfidenceMean:      0.8125,
		Confidences:         []float64{0.9, -1, 0.725},

		TrustFinal:    []float64{0.8, 0.94, 0.4},
		LeaderQuality: []float64{0.9, -1, 0.3},
		TrustSpread:   0.2283,

		HeuristicAgree:     []float64{1, 0.5, 0},
		HeuristicComplete:  []float64{1, 1, 0.25},
		HeuristicAlignment: []float64{0.9, 0.6, 0.3},
		HeuristicQuality:   []float64{0.975, 0.65, 0.1375},

		QuestionAnalysis:    "A 45-year-old 👩‍⚕️ presents with…",
		AnalysisNamesOption: "C",
		Facts:               []string{"fact α", "fact β", ""},
		FactsMethod:         "leader",
		DebatedPoints:       []string{"point ℵ", "point ∑"},

		FactsStated:   ptr(int32(7)),
		FactsVerified: ptr(int32(0)),

		MonitoringRounds:    2,
		MonitoringTargets:   []int32{-1, 2, 0},
		MonitoringAccepted:  []bool{true, false, true},
		MonitoringChanged:   []bool{false, true, false},
		MonitoringQuality:   []float64{-1, 0.5, 1},
		LeaderInterventions: 4,

		Calls:                  21,
		Attempts:               23,
		CachedCalls:            5,
		PromptTokens:           1 << 33,
		CompletionTokens:       123456789012,
		PaidPromptTokens:       987654321,
		PaidCompletionTokens:   12345678,
		CachedPromptTokens:     1 << 32,
		PaidCachedPromptTokens: 98765432,
		CallsCachedUnreported:  4,
		CallsUsageMissing:      2,
		CallsTruncated:         3,
		CallsFiltered:          1,
		CallsRefused:           4,
		CallLatencyMS:          1234.5,
		WallMS:                 987.25,
		Tries:                  2,
		ParseFailures:          1,

		Error:        "timeout: 上游",
		ErrorClass:   "timeout",
		ProtocolJSON: `{"rule":"strong_majority","agreement_pct":66.7,"votes":{"A":2,"B":1},"note":"ü"}`,

		ItemKind:         "triage",
		Urgency:          "em",
		UrgencyRank:      2,
		PredictedUrgency: "ne",
		PredictedRank:    1,
		UrgencyLevels:    3,
		UnderTriage:      true,
		OverTriage:       true, // not a consistent row: every column set
		Safe:             true,
		Diagnosis:        "acute asthma — Ärztin",
		GoldDiagnosis:    "Asthma (or acute asthma, status asthmaticus)",
		DiagnosisMatch:   ptr(true),
		DiagnosisMethod:  "normalized",
		Specialty:        "Pulmonology",
		GoldSpecialty:    "Emergency Medicine",
		SpecialtyMatch:   ptr(true),
		RedFlag:          "chest_pain_cardiac",
		FirstPrompt:      "0123456789abcdef",
		Route:            "intermediate",
		RevisionRounds:   2,
	}
}

// usageMissing is r as recorded when the API reported no usage.
func usageMissing(r CallRow) CallRow {
	r.PromptTokens, r.CompletionTokens, r.CachedPromptTokens = nil, nil, nil
	return r
}

// fullCall returns a CallRow with every field set to a non-zero value.
func fullCall(i int) CallRow {
	return CallRow{
		SchemaVersion:      SchemaVersion,
		RunID:              "20261122T014700Z-a3f09c",
		QuestionID:         fmt.Sprintf("q-%05d", i/7),
		Arm:                "full",
		Repeat:             2,
		Seq:                int32(i % 7),
		UnitTry:            1,
		Phase:              "discussion",
		Kind:               "rank",
		Turn:               2,
		Agent:              -1,
		Role:               "Leader — Chef",
		Model:              "openai/gpt-4o-mini",
		PromptTokens:       ptr[int64](4096),
		CompletionTokens:   ptr[int64](1 << 35),
		CachedPromptTokens: ptr[int64](3968),
		LatencyMS:          12.75,
		Attempts:           3,
		AttemptErrors:      []string{"rate_limited", "server"},
		Cached:             true,
		FinishReason:       "length",
		ServedModel:        "gpt-4o-mini-2024-07-18",
		Refusal:            "I can’t help with that.",
		Status:             "error",
		ErrorClass:         "rate_limit",
		Error:              "429 Too Many Requests ⏳",
		ParseMethod:        "json",
		ParseError:         "unexpected token ‘}’",
		ParseReason:        "ambiguous",
		ParseNotes:         []string{`letter "E" is not an option (options A–D); ignored`, ""},
		RequestHash:        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Seed:               int64(i) + 1,
		Prompt:             "System: you are a 心臓専門医.\nUser: …",
		Response:           `{"ranking":["B","A"],"confidence":0.7}`,
	}
}

// assertAllSet fails if any field of v (recursively through structs) holds a
// zero value, or any slice or map is empty, so the round-trip fixtures keep
// covering every column as the schema grows.
func assertAllSet(t *testing.T, v any) {
	t.Helper()
	var walk func(path string, rv reflect.Value)
	walk = func(path string, rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Struct:
			if rv.Type().PkgPath() == "time" {
				if rv.IsZero() {
					t.Errorf("fixture leaves %s zero", path)
				}
				return
			}
			for i := range rv.NumField() {
				if rv.Type().Field(i).Tag.Get("parquet") == "-" { // not a column (CallRow.Transcript)
					continue
				}
				walk(path+"."+rv.Type().Field(i).Name, rv.Field(i))
			}
		case reflect.Slice, reflect.Map:
			if rv.Len() == 0 {
				t.Errorf("fixture leaves %s empty", path)
			}
		default:
			if rv.IsZero() {
				t.Errorf("fixture leaves %s zero", path)
			}
		}
	}
	rv := reflect.ValueOf(v)
	walk(rv.Type().Name(), rv)
}

// nilListsToEmpty replaces nil slices in a struct with empty ones: parquet
// cannot tell a nil list from an empty one and reads both back as empty.
func nilListsToEmpty[T any](row T) T {
	rv := reflect.ValueOf(&row).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.Kind() == reflect.Slice && f.IsNil() {
			f.Set(reflect.MakeSlice(f.Type(), 0, 0))
		}
	}
	return row
}

// diffRows reports the first difference between want and got, field by field.
func diffRows[T any](t *testing.T, want, got []T) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		w, g := reflect.ValueOf(want[i]), reflect.ValueOf(got[i])
		for j := range w.NumField() {
			if !reflect.DeepEqual(w.Field(j).Interface(), g.Field(j).Interface()) {
				t.Fatalf("row %d field %s: got %#v, want %#v", i, w.Type().Field(j).Name,
					g.Field(j).Interface(), w.Field(j).Interface())
			}
		}
	}
}

func TestFixturesSetEveryField(t *testing.T) {
	assertAllSet(t, fullQuestion(1))
	assertAllSet(t, fullCall(1))
}

func TestRoundTripQuestions(t *testing.T) {
	nilLists := fullQuestion(2)
	nilLists.Roles, nilLists.Weights, nilLists.Tied, nilLists.Scores = nil, nil, nil, nil
	nilLists.Rounds, nilLists.Confidences, nilLists.TrustFinal, nilLists.LeaderQuality = nil, nil, nil, nil
	nilLists.Facts, nilLists.DebatedPoints = nil, nil
	nilLists.MonitoringTargets, nilLists.MonitoringAccepted = nil, nil
	nilLists.MonitoringChanged, nilLists.MonitoringQuality = nil, nil
	nilLists.HeuristicAgree, nilLists.HeuristicComplete, nilLists.HeuristicAlignment, nilLists.HeuristicQuality = nil, nil, nil, nil
	nilLists.FactsStated, nilLists.FactsVerified = nil, nil

	emptyLists := fullQuestion(3)
	emptyLists.Roles, emptyLists.Weights, emptyLists.Tied = []string{}, []float64{}, []string{}
	emptyLists.MonitoringTargets, emptyLists.MonitoringAccepted = []int32{}, []bool{}
	emptyLists.MonitoringChanged, emptyLists.MonitoringQuality = []bool{}, []float64{}
	emptyLists.LeaderQuality = []float64{}
	emptyLists.HeuristicQuality = []float64{}

	oneElement := fullQuestion(4)
	oneElement.Roles, oneElement.MonitoringAccepted, oneElement.MonitoringTargets = []string{""}, []bool{false}, []int32{0}

	tests := []struct {
		name string
		rows []QuestionRow
	}{
		{"none", nil},
		{"full", []QuestionRow{fullQuestion(1)}},
		{"zero", []QuestionRow{{}}},
		{"nil lists", []QuestionRow{nilLists}},
		{"empty lists", []QuestionRow{emptyLists}},
		{"single empty elements", []QuestionRow{oneElement}},
		{"mixed", []QuestionRow{fullQuestion(5), nilLists, {}, emptyLists, oneElement, fullQuestion(6)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), QuestionsFile)
			if err := WriteQuestions(path, tt.rows); err != nil {
				t.Fatal(err)
			}
			got, err := ReadQuestions(path)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("ReadQuestions returned nil slice")
			}
			want := make([]QuestionRow, len(tt.rows))
			for i, r := range tt.rows {
				want[i] = nilListsToEmpty(r)
			}
			diffRows(t, want, got)
			if _, err := os.Stat(tmpPath(path)); !os.IsNotExist(err) {
				t.Errorf("temporary file left behind: %v", err)
			}
		})
	}
}

// TestTokenColumnsNullable: calls.parquet's token columns are optional and
// hold null — not 0 — for a call whose usage (or cached count) was not
// reported; 0 stays 0.
func TestTokenColumnsNullable(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	if err := WriteCalls(path, []CallRow{fullCall(1), usageMissing(fullCall(2)), {PromptTokens: ptr[int64](0), CompletionTokens: ptr[int64](0), CachedPromptTokens: ptr[int64](0)}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"prompt_tokens", "completion_tokens", "cached_prompt_tokens"} {
		leaf, ok := pf.Schema().Lookup(col)
		if !ok || !leaf.Node.Optional() {
			t.Fatalf("column %s is not optional", col)
		}
		var nulls int64
		for _, rg := range pf.RowGroups() {
			pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
			for {
				p, err := pages.ReadPage()
				if err != nil {
					break
				}
				nulls += p.NumNulls()
				parquet.Release(p)
			}
			pages.Close()
		}
		if nulls != 1 {
			t.Errorf("column %s: %d nulls, want 1", col, nulls)
		}
	}
	got, err := ReadCalls(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := got[1].Tokens(); ok {
		t.Errorf("a call without usage reads back with counts %v %v", *got[1].PromptTokens, *got[1].CompletionTokens)
	}
	if p, q, ok := got[2].Tokens(); !ok || p != 0 || q != 0 {
		t.Errorf("reported zeros read back as %d %d %v", p, q, ok)
	}
	if got[1].CachedPromptTokens != nil || got[2].CachedPromptTokens == nil || *got[2].CachedPromptTokens != 0 {
		t.Errorf("cached_prompt_tokens read back as %v (unreported) and %v (reported 0)", got[1].CachedPromptTokens, got[2].CachedPromptTokens)
	}
}

func TestRoundTripCalls(t *testing.T) {
	tests := []struct {
		name string
		rows []CallRow
	}{
		{"none", []CallRow{}},
		{"full", []CallRow{fullCall(1)}},
		{"zero", []CallRow{{}}},
		{"several", []CallRow{fullCall(1), {}, fullCall(2), {Prompt: strings.Repeat("长", 100000)}}},
		{"usage missing", []CallRow{fullCall(1), usageMissing(fullCall(2)), {PromptTokens: ptr[int64](0), CompletionTokens: ptr[int64](0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), CallsFile)
			if err := WriteCalls(path, tt.rows); err != nil {
				t.Fatal(err)
			}
			got, err := ReadCalls(path)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]CallRow, len(tt.rows))
			for i, r := range tt.rows {
				want[i] = nilListsToEmpty(r)
			}
			diffRows(t, want, got)
		})
	}
}

func TestStreamingManyRows(t *testing.T) {
	batches := []int{1, 7, 64, 65, 500, 1000, 3}
	tests := []struct {
		name    string
		total   int
		rgBytes int64 // 0 keeps the default
	}{
		{"one row group", 10000, 0},
		{"many row groups", 3000, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), QuestionsFile)
			w, err := Create[QuestionRow](path)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if tt.rgBytes > 0 {
				w.rgBytes = tt.rgBytes
			}
			total := tt.total
			want := make([]QuestionRow, total)
			for i := range want {
				want[i] = fullQuestion(i)
				if i%10 == 0 {
					want[i].Roles = []string{} // some empty lists along the way
				}
			}
			next := 0
			for b := 0; next < total; b++ {
				n := min(batches[b%len(batches)], total-next)
				if err := w.Write(want[next : next+n]...); err != nil {
					t.Fatal(err)
				}
				next += n
			}
			if w.Rows() != int64(total) {
				t.Fatalf("Rows() = %d, want %d", w.Rows(), total)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("destination exists before Close: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := ReadQuestions(path)
			if err != nil {
				t.Fatal(err)
			}
			diffRows(t, want, got)

			groups := numRowGroups(t, path)
			if want := (total + rowGroupMaxRows - 1) / rowGroupMaxRows; tt.rgBytes == 0 && groups != want {
				t.Errorf("got %d row groups, want %d (one per %d rows)", groups, want, rowGroupMaxRows)
			}
			if tt.rgBytes > 0 && groups < 2 {
				t.Errorf("got %d row groups, want several", groups)
			}
		})
	}
}

func TestConcurrentWrites(t *testing.T) {
	const workers, perWorker = 8, 150
	path := filepath.Join(t.TempDir(), CallsFile)
	w, err := Create[CallRow](path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range perWorker {
				row := fullCall(i)
				row.QuestionID = fmt.Sprintf("w%d-%d", g, i)
				if err := w.Write(row); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCalls(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]bool, len(got))
	for _, r := range got {
		seen[r.QuestionID] = true
	}
	if len(got) != workers*perWorker || len(seen) != workers*perWorker {
		t.Fatalf("got %d rows (%d distinct), want %d", len(got), len(seen), workers*perWorker)
	}
}

func TestDeterministicBytes(t *testing.T) {
	dir := t.TempDir()
	rows := make([]QuestionRow, 300)
	for i := range rows {
		rows[i] = fullQuestion(i)
	}
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	if err := WriteQuestions(a, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteQuestions(b, rows); err != nil {
		t.Fatal(err)
	}
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ba, bb) {
		t.Fatal("the same rows written twice gave different bytes")
	}
}

func TestAbort(t *testing.T) {
	tests := []struct {
		name     string
		existing bool // a previous file is at the destination
		write    bool
	}{
		{"fresh, no rows", false, false},
		{"fresh, rows", false, true},
		{"replacing, rows", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), QuestionsFile)
			old := []QuestionRow{fullQuestion(42)}
			if tt.existing {
				if err := WriteQuestions(path, old); err != nil {
					t.Fatal(err)
				}
			}
			w, err := Create[QuestionRow](path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.write {
				if err := w.Write(fullQuestion(1), fullQuestion(2)); err != nil {
					t.Fatal(err)
				}
			}
			w.Abort()
			w.Abort() // idempotent
			if _, err := os.Stat(tmpPath(path)); !os.IsNotExist(err) {
				t.Errorf("temporary file left after Abort: %v", err)
			}
			if err := w.Write(fullQuestion(3)); !errors.Is(err, ErrClosed) {
				t.Errorf("Write after Abort: got %v, want ErrClosed", err)
			}
			if err := w.Close(); err == nil {
				t.Error("Close after Abort succeeded")
			}
			if !tt.existing {
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("file at destination after Abort: %v", err)
				}
				return
			}
			got, err := ReadQuestions(path)
			if err != nil {
				t.Fatal(err)
			}
			diffRows(t, old, got)
		})
	}
}

func TestCloseThenAbortKeepsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	w, err := Create[CallRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(fullCall(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	w.Abort()
	if err := w.Write(fullCall(2)); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: got %v, want ErrClosed", err)
	}
	got, err := ReadCalls(path)
	if err != nil {
		t.Fatal(err)
	}
	diffRows(t, []CallRow{nilListsToEmpty(fullCall(1))}, got)
}

func TestCloseFailureLeavesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	w, err := Create[CallRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(fullCall(1)); err != nil {
		t.Fatal(err)
	}
	_ = w.f.Close() // the footer can no longer be written
	err = w.Close()
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Close: got %v, want an error naming %s", err, path)
	}
	for _, p := range []string{path, tmpPath(path)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed Close: %v", p, err)
		}
	}
}

func TestCreateErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", QuestionsFile)
	if _, err := Create[QuestionRow](path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Create in a missing directory: got %v, want an error naming the path", err)
	}
	if err := WriteQuestions(path, []QuestionRow{{}}); err == nil {
		t.Fatal("WriteQuestions in a missing directory succeeded")
	}
}

// crashDirEnv makes TestHelperCrash write a file and exit without Close.
const crashDirEnv = "MEDTEAM_RESULTS_CRASH_DIR"

func TestHelperCrash(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper for TestCrashBeforeClose")
	}
	w, err := Create[QuestionRow](filepath.Join(dir, QuestionsFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := range 2000 {
		if err := w.Write(fullQuestion(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(3) // crash: no Close, no Abort
}

func TestCrashBeforeClose(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a subprocess")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("helper: got %v, want exit status 3; output:\n%s", err, out)
	}
	path := filepath.Join(dir, QuestionsFile)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a crash before Close left a file at the destination: %v", err)
	}
	stale, _ := filepath.Glob(path + ".*" + tmpSuffix)
	if len(stale) != 1 || stale[0] != path+"."+strconv.Itoa(cmd.Process.Pid)+tmpSuffix {
		t.Fatalf("stale temporary files %v, want the crashed writer's (pid %d)", stale, cmd.Process.Pid)
	}
	if st, err := os.Stat(stale[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("temporary file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	if _, err := ReadQuestions(stale[0]); err == nil {
		t.Error("the crashed temporary file reads as a valid parquet file")
	}
	// A new writer replaces the stale temporary file.
	if err := WriteQuestions(path, []QuestionRow{fullQuestion(7)}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	diffRows(t, []QuestionRow{fullQuestion(7)}, got)
	if left, _ := filepath.Glob(path + ".*" + tmpSuffix); len(left) != 0 {
		t.Errorf("stale temporary files still present: %v", left)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("published file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

func openParquet(t *testing.T, path string) *parquet.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

func numRowGroups(t *testing.T, path string) int {
	t.Helper()
	return len(openParquet(t, path).RowGroups())
}

func TestFileMetadata(t *testing.T) {
	dir := t.TempDir()
	q, c := filepath.Join(dir, QuestionsFile), filepath.Join(dir, CallsFile)
	if err := WriteQuestions(q, []QuestionRow{fullQuestion(1)}); err != nil {
		t.Fatal(err)
	}
	if err := WriteCalls(c, []CallRow{fullCall(1)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		columns []string // a few expected leaf columns
	}{
		{q, []string{"schema_version", "question_id", "source_id", "roles", "monitoring_accepted", "error_class"}},
		{c, []string{"schema_version", "request_hash", "prompt", "response"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			pf := openParquet(t, tt.path)
			v, ok := pf.Lookup(SchemaVersionKey)
			if !ok || v != fmt.Sprint(SchemaVersion) {
				t.Errorf("metadata %s = %q (present %v), want %d", SchemaVersionKey, v, ok, SchemaVersion)
			}
			for _, rg := range pf.Metadata().RowGroups {
				for _, cc := range rg.Columns {
					if cc.MetaData.Codec != format.Zstd {
						t.Errorf("column %v compressed with %v, want ZSTD", cc.MetaData.PathInSchema, cc.MetaData.Codec)
					}
				}
			}
			for _, name := range tt.columns {
				if _, ok := pf.Schema().Lookup(name); !ok {
					if _, ok := pf.Schema().Lookup(name, "list", "element"); !ok {
						t.Errorf("column %q missing from schema:\n%s", name, pf.Schema())
					}
				}
			}
		})
	}
}

func TestReadOtherFiles(t *testing.T) {
	dir := t.TempDir()

	// A file written by another tool: a subset of the columns, no metadata.
	type subset struct {
		QuestionID string   `parquet:"question_id"`
		Correct    bool     `parquet:"correct"`
		Roles      []string `parquet:"roles,list"`
	}
	sub := filepath.Join(dir, "subset.parquet")
	writeRaw(t, sub, []subset{{"q1", true, []string{"a", "b"}}, {"q2", false, nil}})
	got, err := ReadQuestions(sub)
	if err != nil {
		t.Fatal(err)
	}
	want := []QuestionRow{
		nilListsToEmpty(QuestionRow{QuestionID: "q1", Correct: true, Roles: []string{"a", "b"}}),
		nilListsToEmpty(QuestionRow{QuestionID: "q2"}),
	}
	diffRows(t, want, got)

	// A file from another schema version is refused.
	other := filepath.Join(dir, "v99.parquet")
	writeRaw(t, other, []QuestionRow{fullQuestion(1)}, parquet.KeyValueMetadata(SchemaVersionKey, "99"))
	_, err = ReadQuestions(other)
	if err == nil || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("reading a version 99 file: got %v", err)
	}
}

func writeRaw[T any](t *testing.T, path string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	rows := make([]QuestionRow, 200)
	for i := range rows {
		rows[i] = fullQuestion(i)
	}
	if err := WriteQuestions(good, rows); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(data)
	for i := len(corrupt) / 4; i < len(corrupt)/2; i++ {
		corrupt[i] ^= 0x5a
	}
	tests := []struct {
		name    string
		content []byte // nil: no file
	}{
		{"missing", nil},
		{"empty", []byte{}},
		{"text", []byte("question_id,correct\nq1,true\n")},
		{"truncated", data[:len(data)/2]},
		{"magic only", []byte("PAR1PAR1")},
		{"corrupt pages", corrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".parquet")
			if tt.content != nil {
				if err := os.WriteFile(path, tt.content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadQuestions(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
		})
	}
}

// BenchmarkWriteQuestions measures streaming QuestionRow writes to disk,
// including the footer, fsync and rename.
func BenchmarkWriteQuestions(b *testing.B) {
	const rowsPerOp = 1000
	rows := make([]QuestionRow, rowsPerOp)
	for i := range rows {
		rows[i] = fullQuestion(i)
	}
	path := filepath.Join(b.TempDir(), QuestionsFile)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w, err := Create[QuestionRow](path)
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < rowsPerOp; j += 100 {
			if err := w.Write(rows[j : j+100]...); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*rowsPerOp)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadQuestions measures reading a questions.parquet file.
func BenchmarkReadQuestions(b *testing.B) {
	const rowsPerOp = 1000
	rows := make([]QuestionRow, rowsPerOp)
	for i := range rows {
		rows[i] = fullQuestion(i)
	}
	path := filepath.Join(b.TempDir(), QuestionsFile)
	if err := WriteQuestions(path, rows); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := ReadQuestions(path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*rowsPerOp)/b.Elapsed().Seconds(), "rows/s")
}

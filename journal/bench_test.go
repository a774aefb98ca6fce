package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/results"
)

// BenchmarkExport measures the final export of a run: 4,000 units (a
// 9-arm sweep of ~450 questions) of full-preset size — 17 calls each, with
// the list columns filled as a run fills them — from the journal to
// questions.parquet and calls.parquet. It reports units/s and ms per 1,000
// units.
func BenchmarkExport(b *testing.B) {
	const units = 4000
	dir := b.TempDir()
	j, err := Open(dir, "plan", []byte(`{}`))
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for i := range units {
		q := results.QuestionRow{RunID: "run", Dataset: "medqa", QuestionID: fmt.Sprintf("q%06d", i), Arm: "full", Protocol: "teamwork",
			Model: "openai/gpt-4o-mini", Gold: "C", NOptions: 5, NAgents: 3, Roles: []string{"Cardiologist", "Internist", "Pharmacologist"},
			Weights: []float64{1, 1, 1}, Predicted: "C", Correct: true, Scores: []float64{1, 2, 9, 0, 0},
			Rounds: []string{"C,C,B", "C,C,C", "C,C,C"}, Confidences: []float64{0.7, 0.8, 0.6}, TrustFinal: []float64{0.9, 0.8, 0.7},
			Facts: []string{strings.Repeat("a fact about the patient ", 4), strings.Repeat("another fact ", 5)}, Calls: 17, PromptTokens: 20000}
		calls := make([]results.CallRow, 17)
		for k := range calls {
			p, c := int64(1200), int64(150)
			calls[k] = results.CallRow{RunID: "run", QuestionID: q.QuestionID, Arm: "full", Seq: int32(k), Phase: "discussion", Kind: "discuss",
				Agent: int32(k % 3), Role: "Cardiologist", Model: q.Model, PromptTokens: &p, CompletionTokens: &c, LatencyMS: 812.5,
				Attempts: 1, Status: "ok", ParseMethod: "json", RequestHash: strings.Repeat("ab", 32), Seed: int64(k)}
		}
		if err := j.Put(keyOf(int64(i)), int64(i), q, calls); err != nil {
			b.Fatal(err)
		}
	}
	out := b.TempDir()
	for b.Loop() {
		if _, _, err := j.Export(out); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(units/per, "units/s")
	b.ReportMetric(1000*per*1000/units, "ms/1000units")
}

// TestFastDecodeMatchesEncodingJSON: the export decodes journal rows with
// goccy/go-json; it must read exactly what encoding/json wrote and would
// read (null token counts, empty and nil lists, unicode, large numbers).
func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	p := int64(1 << 40)
	q := results.QuestionRow{QuestionID: "q\u00e9\u2028\"x\"", Roles: []string{}, Weights: nil, Scores: []float64{0.1, 1e-300, -2},
		Rounds: []string{"", "A,,B"}, Confidences: []float64{-1}, Seed: -1 << 62, MonitoringTargets: []int32{0, 2},
		MonitoringAccepted: []bool{true, false}, Error: "line1\nline2\t<tag>&"}
	calls := []results.CallRow{{PromptTokens: &p, CompletionTokens: nil, AttemptErrors: []string{"rate_limited"}, ParseNotes: nil,
		LatencyMS: 12.345678901234567}, {}}
	dir := t.TempDir()
	j, err := Open(dir, "plan", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := j.Put("k", 0, q, calls); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = j.EachUnit(func(_ string, _ int64, gq results.QuestionRow, gc []results.CallRow) error {
		n++
		var wq results.QuestionRow
		var wc []results.CallRow
		qb, _ := json.Marshal(q)
		cb, _ := json.Marshal(calls)
		if err := json.Unmarshal(qb, &wq); err != nil {
			return err
		}
		if err := json.Unmarshal(cb, &wc); err != nil {
			return err
		}
		if !reflect.DeepEqual(gq, wq) || !reflect.DeepEqual(gc, wc) {
			t.Fatalf("decoded rows differ:\n%+v\n%+v\n%+v\n%+v", gq, wq, gc, wc)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("units %d, err %v", n, err)
	}
}

// TestEachUnitStopsEarly: fn's error ends the walk at once, and the
// decoding behind it stops (the race detector watches the rows).
func TestEachUnitStopsEarly(t *testing.T) {
	j, err := Open(t.TempDir(), "plan", []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range 500 {
		if err := j.Put(keyOf(int64(i)), int64(i), results.QuestionRow{Seed: int64(i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("stop")
	n := 0
	err = j.EachUnit(func(_ string, ord int64, q results.QuestionRow, _ []results.CallRow) error {
		if q.Seed != ord {
			t.Fatalf("unit %d has seed %d: out of order", ord, q.Seed)
		}
		if n++; n == 70 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 70 {
		t.Fatalf("err %v after %d units, want stop after 70", err, n)
	}
}

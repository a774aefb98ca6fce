package datasets

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

var update = flag.Bool("update", false, "regenerate "+SampleFile+" from the real MedQA test file")

// TestSampleFile checks that the embedded sample is exactly the selection rule
// of sample/README.md applied to the real test file: the source lines of
// Limit(test, 50, 0), byte for byte, in file order, each ending in "\n".
// Run with -update to regenerate the file.
func TestSampleFile(t *testing.T) {
	data := readReal(t)
	lines := nonBlankLines(data)
	qs, err := LoadMedQAFile(realMedQATest)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(qs) {
		t.Fatalf("%d non-blank lines but %d questions", len(lines), len(qs))
	}
	lineOf := make(map[string][]byte, len(qs))
	for i, q := range qs {
		lineOf[q.ID] = lines[i]
	}
	var want bytes.Buffer
	for _, q := range Limit(qs, 50, 0) {
		want.Write(lineOf[q.ID])
		want.WriteByte('\n')
	}
	if *update {
		if err := os.WriteFile(SampleFile, want.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes); rebuild to embed it", SampleFile, want.Len())
		return
	}
	if !bytes.Equal(sampleMedQA, want.Bytes()) {
		t.Fatalf("embedded %s differs from the selection rule; run go test ./datasets -run TestSampleFile -update", SampleFile)
	}
}

func TestSample(t *testing.T) {
	qs, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 50 {
		t.Fatalf("got %d questions, want 50", len(qs))
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if err := q.Validate(); err != nil {
			t.Errorf("%s: %v", q.ID, err)
		}
		if q.Dataset != "medqa" || q.Split != "test" || len(q.Options) != 4 {
			t.Errorf("%s: dataset %q split %q, %d options", q.ID, q.Dataset, q.Split, len(q.Options))
		}
		if seen[q.ID] {
			t.Errorf("duplicate id %s", q.ID)
		}
		seen[q.ID] = true
	}
	// Fresh slices: modifying one result does not affect the next.
	qs[0].Stem = "changed"
	again, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Stem == "changed" {
		t.Error("Sample shares storage between calls")
	}

	readReal(t)
	all, err := LoadMedQAFile(realMedQATest)
	if err != nil {
		t.Fatal(err)
	}
	real := map[string]qa.Question{}
	for _, q := range all {
		real[q.ID] = q
	}
	for _, q := range again {
		r, ok := real[q.ID]
		if !ok {
			t.Errorf("sample id %s not in the real test file", q.ID)
			continue
		}
		if r.Gold != q.Gold || r.Stem != q.Stem {
			t.Errorf("sample question %s differs from the real one", q.ID)
		}
	}
}

// synthetic returns n valid questions with distinct ids.
func synthetic(n int) []qa.Question {
	qs := make([]qa.Question, n)
	for i := range qs {
		opts := []qa.Option{{Letter: "A", Text: "x"}, {Letter: "B", Text: "y"}}
		stem := fmt.Sprintf("question %d", i)
		qs[i] = qa.Question{ID: MedQAID(stem, opts), Dataset: "medqa", Stem: stem, Options: opts, Gold: "A"}
	}
	return qs
}

func ids(qs []qa.Question) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.ID
	}
	return out
}

func TestLimit(t *testing.T) {
	qs := synthetic(200)
	pos := map[string]int{}
	for i, q := range qs {
		pos[q.ID] = i
	}

	for _, seed := range []int64{0, 1, -7, 1 << 40} {
		a, b := Limit(qs, 20, seed), Limit(qs, 20, seed)
		if len(a) != 20 || !slices.Equal(ids(a), ids(b)) {
			t.Errorf("seed %d: not deterministic (%d items)", seed, len(a))
		}
		for i := 1; i < len(a); i++ {
			if pos[a[i-1].ID] >= pos[a[i].ID] {
				t.Errorf("seed %d: result not in input order", seed)
			}
		}
		// Shuffling the input changes the order of the result, not its set.
		shuffled := slices.Clone(qs)
		rand.New(rand.NewPCG(uint64(seed), 42)).Shuffle(len(shuffled), func(i, j int) {
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		})
		c := Limit(shuffled, 20, seed)
		if got, want := slices.Sorted(slices.Values(ids(c))), slices.Sorted(slices.Values(ids(a))); !slices.Equal(got, want) {
			t.Errorf("seed %d: shuffled input chose a different set", seed)
		}
		spos := map[string]int{}
		for i, q := range shuffled {
			spos[q.ID] = i
		}
		for i := 1; i < len(c); i++ {
			if spos[c[i-1].ID] >= spos[c[i].ID] {
				t.Errorf("seed %d: result does not follow the shuffled input order", seed)
			}
		}
	}

	if slices.Equal(ids(Limit(qs, 20, 1)), ids(Limit(qs, 20, 2))) {
		t.Error("seeds 1 and 2 chose the same questions")
	}
	// Growing n only adds questions: the n smallest are a prefix of the ranking.
	small, large := Limit(qs, 10, 5), Limit(qs, 50, 5)
	inLarge := map[string]bool{}
	for _, q := range large {
		inLarge[q.ID] = true
	}
	for _, q := range small {
		if !inLarge[q.ID] {
			t.Errorf("Limit(10) chose %s but Limit(50) did not", q.ID)
		}
	}

	for _, n := range []int{0, -1, 200, 1000} {
		all := Limit(qs, n, 3)
		if !slices.Equal(ids(all), ids(qs)) {
			t.Errorf("n=%d: want all questions in input order", n)
		}
		all[0].ID = "changed"
		if qs[0].ID == "changed" {
			t.Fatalf("n=%d: result aliases the input", n)
		}
	}
	if got := Limit(nil, 5, 1); len(got) != 0 {
		t.Errorf("Limit(nil) = %v", got)
	}
}

// TestLimitKnown pins the ranking rule (computed independently) on the
// embedded sample, including a negative seed.
func TestLimitKnown(t *testing.T) {
	qs, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		seed int64
		want []string
	}{
		{0, []string{"medqa-b59672c507406807", "medqa-20d5450a79bcf56f", "medqa-426c114967f2ee30"}},
		{-3, []string{"medqa-b8e3339550bc236c", "medqa-1383b16c43603c26", "medqa-b6380f0071c5f1e7"}},
	} {
		if got := ids(Limit(qs, 3, tc.seed)); !slices.Equal(got, tc.want) {
			t.Errorf("seed %d: got %v, want %v", tc.seed, got, tc.want)
		}
	}
}

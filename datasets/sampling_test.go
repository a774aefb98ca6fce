package datasets

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

func loadRealMedQA(tb testing.TB) []qa.Question {
	tb.Helper()
	readReal(tb)
	return mustLoad(tb, Source{Path: realMedQATest}).Questions
}

func TestStratifiedLimit(t *testing.T) {
	qs := loadRealMedQA(t)
	// steps: step1 679, step2&3 593, stfep2&3 1 (a typo in the source).
	// n=100: floors 53, 46, 0 (99); remainders 431, 742, 100 (×1/1273):
	// the last question goes to step2&3.
	got := StratifiedLimit(qs, 100, 5, "step")
	if len(got) != 100 {
		t.Fatalf("got %d questions", len(got))
	}
	if by := countBy(got, func(q qa.Question) string { return q.Meta["step"] }); !maps.Equal(by, map[string]int{"step1": 53, "step2&3": 47}) {
		t.Errorf("strata %v", by)
	}
	pos := map[string]int{}
	for i, q := range qs {
		pos[q.ID] = i
	}
	for i := 1; i < len(got); i++ {
		if pos[got[i-1].ID] >= pos[got[i].ID] {
			t.Fatal("result not in input order")
		}
	}
	// Deterministic, order-independent, seed-dependent.
	if !slices.Equal(ids(got), ids(StratifiedLimit(qs, 100, 5, "step"))) {
		t.Error("not deterministic")
	}
	shuffled := slices.Clone(qs)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if a, b := slices.Sorted(slices.Values(ids(got))), slices.Sorted(slices.Values(ids(StratifiedLimit(shuffled, 100, 5, "step")))); !slices.Equal(a, b) {
		t.Error("input order changed the choice")
	}
	if slices.Equal(ids(got), ids(StratifiedLimit(qs, 100, 6, "step"))) {
		t.Error("seeds 5 and 6 chose the same questions")
	}
	// Within a stratum the choice is Limit's.
	var step1 []qa.Question
	for _, q := range qs {
		if q.Meta["step"] == "step1" {
			step1 = append(step1, q)
		}
	}
	var gotStep1 []qa.Question
	for _, q := range got {
		if q.Meta["step"] == "step1" {
			gotStep1 = append(gotStep1, q)
		}
	}
	if !slices.Equal(ids(gotStep1), ids(Limit(step1, 53, 5))) {
		t.Error("within a stratum the choice differs from Limit")
	}
	// Degenerate arguments fall back to Limit.
	for _, n := range []int{0, -1, 1273, 5000} {
		if !slices.Equal(ids(StratifiedLimit(qs, n, 1, "step")), ids(qs)) {
			t.Errorf("n=%d: want everything", n)
		}
	}
	if !slices.Equal(ids(StratifiedLimit(qs, 10, 1, "")), ids(Limit(qs, 10, 1))) {
		t.Error("empty field is not Limit")
	}
}

func TestStratifiedLimitProportions(t *testing.T) {
	// Synthetic strata of sizes 50, 30, 15, 5 (and 3 without the field).
	var qs []qa.Question
	for s, size := range map[string]int{"a": 50, "b": 30, "c": 15, "d": 5, "": 3} {
		for i := range size {
			q := synthetic(1)[0]
			q.ID = fmt.Sprintf("%s-%d", s, i)
			if s != "" {
				q.Meta = map[string]string{"subject": s}
			}
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, func(a, b qa.Question) int { return cmpString(a.ID, b.ID) })
	for _, tc := range []struct {
		n    int
		want map[string]int
	}{
		// N=103. n=10: floors 4,2,1,0,0 (7); remainders 88,94,47,50,30 → b, a, d.
		{10, map[string]int{"a": 5, "b": 3, "c": 1, "d": 1}},
		// n=51: floors 24,14,7,2,1 (48); remainders 78,88,44,49,50 → b, a, "".
		{51, map[string]int{"a": 25, "b": 15, "c": 7, "d": 2, "": 2}},
		// n=102: floors 49,29,14,4,2 (98); remainders 53,73,88,98,100 → "", d, c, b.
		{102, map[string]int{"a": 49, "b": 30, "c": 15, "d": 5, "": 3}},
	} {
		got := StratifiedLimit(qs, tc.n, 9, "subject")
		by := countBy(got, func(q qa.Question) string { return q.Meta["subject"] })
		if len(got) != tc.n || !maps.Equal(by, tc.want) {
			t.Errorf("n=%d: got %d questions, strata %v; want %v", tc.n, len(got), by, tc.want)
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestStratifiedLimitMMLUSubjects(t *testing.T) {
	needFile(t, realMMLUMedical)
	qs := mustLoad(t, Source{Path: realMMLUMedical, Split: "test"}).Questions
	got := StratifiedLimit(qs, 110, 0, "subject")
	by := countBy(got, func(q qa.Question) string { return q.Meta["subject"] })
	// 1099 questions, n=110: 13.5, 26.5, 14.4, 17.3, 10.0, 28.2 → floors 13,26,14,17,10,28 (108);
	// largest remainders: anatomy (.51), clinical_knowledge (.53).
	want := map[string]int{"anatomy": 14, "clinical_knowledge": 27, "college_biology": 14, "college_medicine": 17, "medical_genetics": 10, "professional_medicine": 28}
	if len(got) != 110 || !maps.Equal(by, want) {
		t.Errorf("got %d, strata %v; want %v", len(got), by, want)
	}
}

func TestShard(t *testing.T) {
	qs := loadRealMedQA(t)
	for n := 1; n <= 8; n++ {
		seen := map[string]int{}
		total := 0
		for i := 1; i <= n; i++ {
			part := Shard(qs, i, n)
			if !slices.Equal(ids(part), ids(Shard(qs, i, n))) {
				t.Fatalf("shard %d/%d not deterministic", i, n)
			}
			for _, q := range part {
				if prev, dup := seen[q.ID]; dup {
					t.Fatalf("%s in shards %d and %d of %d", q.ID, prev, i, n)
				}
				seen[q.ID] = i
				if !InShard(q.ID, i, n) {
					t.Fatalf("InShard disagrees for %s", q.ID)
				}
			}
			total += len(part)
			if n > 1 && (len(part) < len(qs)/n*7/10 || len(part) > len(qs)/n*13/10) {
				t.Errorf("shard %d/%d has %d questions; unbalanced", i, n, len(part))
			}
		}
		if total != len(qs) || len(seen) != len(qs) {
			t.Errorf("n=%d: shards hold %d questions, want %d", n, total, len(qs))
		}
	}
	// Shards keep the input order and do not depend on the rest of the dataset.
	part := Shard(qs[:100], 2, 3)
	full := map[string]bool{}
	for _, q := range Shard(qs, 2, 3) {
		full[q.ID] = true
	}
	for _, q := range part {
		if !full[q.ID] {
			t.Errorf("%s is in shard 2/3 of a subset but not of the whole", q.ID)
		}
	}
	// Known answers, computed independently from the documented rule.
	for id, want := range map[string]int{"medqa-a16a1788e57f3d91": 4, "pubmedqa-21645374": 2, "mmlu-pro-6322": 3, "x": 3} {
		for i := 1; i <= 4; i++ {
			if InShard(id, i, 4) != (i == want) {
				t.Errorf("InShard(%s, %d, 4) = %v; %s belongs to shard %d", id, i, !(i == want), id, want)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		ok   bool
	}{
		{"2/8", 2, 8, true}, {" 1 / 1 ", 1, 1, true}, {"8/8", 8, 8, true}, {"", 1, 1, true},
		{"0/8", 0, 0, false}, {"9/8", 0, 0, false}, {"1/0", 0, 0, false}, {"-1/4", 0, 0, false},
		{"2", 0, 0, false}, {"a/b", 0, 0, false}, {"1/2/3", 0, 0, false},
	} {
		i, n, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || i != tc.i || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, i, n, err)
		}
	}
}

func TestShuffleOptions(t *testing.T) {
	qs := loadRealMedQA(t)
	positions := make([]int, 4)
	moved := 0
	for _, q := range qs {
		orig := q
		origOpts := slices.Clone(q.Options)
		s, perm := ShuffleOptions(q, 11)
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		// perm is a permutation.
		if got := slices.Sorted(slices.Values(perm)); !slices.Equal(got, []int{0, 1, 2, 3}) {
			t.Fatalf("%s: %v is not a permutation", q.ID, perm)
		}
		// Options follow perm; the gold names the same text.
		for newPos, o := range perm {
			if s.Options[newPos].Text != origOpts[o].Text {
				t.Fatalf("%s: option %d is not original %d", q.ID, newPos, o)
			}
		}
		if s.Options[letterIndex(s.Options, s.Gold)].Text != q.Options[letterIndex(q.Options, q.Gold)].Text {
			t.Fatalf("%s: gold moved to another text", q.ID)
		}
		order := ""
		for _, o := range perm {
			order += string(rune('A' + o))
		}
		if s.Meta[MetaOptionOrder] != order || s.Meta["step"] != q.Meta["step"] || s.ID != q.ID || s.Stem != q.Stem {
			t.Fatalf("%s: meta %v, want order %s", q.ID, s.Meta, order)
		}
		// The input is untouched.
		if !slices.Equal(q.Options, origOpts) || q.Meta[MetaOptionOrder] != "" || diffQuestion(q, orig) != "" {
			t.Fatalf("%s: input modified", q.ID)
		}
		// Same seed, same permutation; another seed, usually another.
		again, perm2 := ShuffleOptions(q, 11)
		if !slices.Equal(perm, perm2) || diffQuestion(s, again) != "" {
			t.Fatalf("%s: not deterministic", q.ID)
		}
		if _, p3 := ShuffleOptions(q, 12); !slices.Equal(perm, p3) {
			moved++
		}
		positions[letterIndex(s.Options, s.Gold)]++
	}
	if moved < len(qs)*8/10 {
		t.Errorf("only %d of %d permutations changed with the seed", moved, len(qs))
	}
	// The gold position is spread evenly (the source's is not: A 353, D 265).
	for p, n := range positions {
		if n < 270 || n > 370 {
			t.Errorf("gold at position %c %d times of %d", 'A'+p, n, len(qs))
		}
	}
	// Known answers, computed independently from the documented rule.
	for _, tc := range []struct {
		id   string
		k    int
		seed int64
		want []int
	}{
		{"medqa-a16a1788e57f3d91", 4, 7, []int{1, 0, 2, 3}},
		{"mmlu-pro-6322", 10, -3, []int{8, 0, 6, 9, 1, 2, 3, 4, 5, 7}},
		{"x", 2, 0, []int{0, 1}},
	} {
		q := qa.Question{ID: tc.id, Stem: "S", Gold: "A"}
		for i := range tc.k {
			q.Options = append(q.Options, qa.Option{Letter: string(rune('A' + i)), Text: fmt.Sprint(i)})
		}
		s, perm := ShuffleOptions(q, tc.seed)
		if !slices.Equal(perm, tc.want) {
			t.Errorf("%s seed %d: perm %v, want %v", tc.id, tc.seed, perm, tc.want)
		}
		if want := string(rune('A' + slices.Index(tc.want, 0))); s.Gold != want {
			t.Errorf("%s: gold %s, want %s", tc.id, s.Gold, want)
		}
	}
	// Ten options (MMLU-Pro) and yes/no/maybe work alike.
	pro := mustLoad(t, Source{Path: "testdata/mmlu_pro_test.jsonl"}).Questions
	for _, q := range pro {
		s, perm := ShuffleOptions(q, 3)
		if len(perm) != len(q.Options) || s.Validate() != nil || s.Options[letterIndex(s.Options, s.Gold)].Text != q.Options[letterIndex(q.Options, q.Gold)].Text {
			t.Errorf("%s: bad shuffle", q.ID)
		}
	}
}

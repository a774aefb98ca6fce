package datasets

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/qa"
)

// The real files of ../shared/datasets (see its PROVENANCE.md).
const (
	sharedDir       = "../../shared/datasets"
	realMedMCQA     = sharedDir + "/medmcqa/test.jsonl"
	realPubMedQA    = sharedDir + "/pubmedqa/ori_pqal.json"
	realPubMedQAGT  = sharedDir + "/pubmedqa/test_ground_truth.json"
	realMMLUMedical = sharedDir + "/mmlu_medical"
)

// needFile skips the test when a real file is absent.
func needFile(tb testing.TB, path string) {
	tb.Helper()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		tb.Skipf("%s not present", path)
	}
}

// mustLoad loads a source, failing the test on any problem.
func mustLoad(tb testing.TB, src Source) LoadResult {
	tb.Helper()
	res, err := Load(src, LoadOptions{MaxProblems: 5})
	if err != nil {
		tb.Fatalf("Load(%s): %v", src, err)
	}
	if res.TotalProblems != 0 || res.Skipped != 0 {
		tb.Fatalf("Load(%s): %d problems, %d skipped", src, res.TotalProblems, res.Skipped)
	}
	return res
}

// checkQuestions asserts the invariants every loaded question set has.
func checkQuestions(tb testing.TB, qs []qa.Question) {
	tb.Helper()
	seen := map[string]bool{}
	for i, q := range qs {
		if err := q.Validate(); err != nil {
			tb.Errorf("question %d (%s): %v", i, q.ID, err)
		}
		if seen[q.ID] {
			tb.Errorf("question %d: duplicate id %s", i, q.ID)
		}
		seen[q.ID] = true
		if q.Context != nil && len(q.Context) == 0 || q.Meta != nil && len(q.Meta) == 0 {
			tb.Errorf("question %d: empty non-nil Context or Meta", i)
		}
	}
}

func countBy(qs []qa.Question, f func(qa.Question) string) map[string]int {
	m := map[string]int{}
	for _, q := range qs {
		m[f(q)]++
	}
	return m
}

type realCase struct {
	name     string
	src      Source
	format   Format
	n        int
	records  int // records read, including those filtered out
	firstID  string
	dataset  string
	splits   map[string]int
	nOptions int
	check    func(t *testing.T, qs []qa.Question)
	named    bool // also load with the format named, expecting the same questions
}

// TestRealFiles loads every real file with the exact counts and no problem.
func TestRealFiles(t *testing.T) {
	mmluSubjects := map[string]int{"anatomy": 135, "clinical_knowledge": 265, "college_biology": 144, "college_medicine": 173, "medical_genetics": 100, "professional_medicine": 282}
	tests := []realCase{
		{name: "medqa", src: Source{Path: realMedQATest}, format: FormatMedQA, n: 1273, records: 1273,
			firstID: "medqa-a7f49257f5ef7f64", dataset: "medqa", splits: map[string]int{"test": 1273}, nOptions: 4, named: true},
		// named a copy of MedMCQA (as the registry's medmcqa entry and --dataset-name do): MedMCQA's ids
		{name: "medmcqa standardised", src: Source{Path: realMedMCQA, Dataset: DatasetMedMCQA}, format: FormatStandard, n: 2816, records: 2816,
			firstID: "medmcqa-ba6739851cdd6ff5", dataset: "medmcqa", splits: map[string]int{"test": 2816}, nOptions: 4, named: true,
			check: func(t *testing.T, qs []qa.Question) {
				if q := qs[0]; q.Gold != "C" || !strings.HasPrefix(q.Options[2].Text, "Amniotic fluid samples") || q.SourceID != "b64a9cd7-d076-4c55-8be1-f9c44fece6cc" {
					t.Errorf("first question gold %s option C %q", q.Gold, q.Options[2].Text)
				}
			}},
		{name: "pubmedqa test split (ground truth found beside)", src: Source{Path: realPubMedQA}, format: FormatPubMedQA, n: 500, records: 1000,
			dataset: "pubmedqa", splits: map[string]int{"test": 500}, nOptions: 3, named: true,
			check: func(t *testing.T, qs []qa.Question) {
				gold := countBy(qs, func(q qa.Question) string { return q.Options[letterIndex(q.Options, q.Gold)].Text })
				if want := map[string]int{"yes": 276, "no": 169, "maybe": 55}; !maps.Equal(gold, want) {
					t.Errorf("test split answers %v, want %v", gold, want)
				}
				for _, q := range qs {
					if len(q.Context) == 0 || q.Meta["pmid"] == "" || q.SourceID != q.Meta["pmid"] || q.Meta["labels"] == "" {
						t.Fatalf("%s: context %d passages, meta %v", q.ID, len(q.Context), q.Meta)
					}
					if len(strings.Split(q.Meta["labels"], "|")) != len(q.Context) {
						t.Fatalf("%s: %d labels for %d passages", q.ID, len(strings.Split(q.Meta["labels"], "|")), len(q.Context))
					}
				}
			}},
		{name: "pubmedqa all 1000", src: Source{Path: realPubMedQA, Split: AllSplits}, format: FormatPubMedQA, n: 1000, records: 1000,
			firstID: "pubmedqa-3fc15d042bf4d42d", dataset: "pubmedqa", splits: map[string]int{"test": 500, "train": 500}, nOptions: 3,
			check: func(t *testing.T, qs []qa.Question) {
				q := qs[0]
				if q.Gold != "A" || len(q.Context) != 2 || q.Meta["year"] != "2011" || q.Meta["labels"] != "BACKGROUND|RESULTS" ||
					!strings.HasPrefix(q.Meta["meshes"], "Alismataceae|Apoptosis") || q.Stem != "Do mitochondria play a role in remodelling lace plant leaves during programmed cell death?" {
					t.Errorf("first question %+v", q)
				}
				if got := fmt.Sprint(q.Options); got != "[{A yes} {B no} {C maybe}]" {
					t.Errorf("options %s", got)
				}
			}},
		{name: "pubmedqa without ground truth", src: Source{Path: realPubMedQA, GroundTruth: NoGroundTruth}, format: FormatPubMedQA, n: 1000, records: 1000,
			firstID: "pubmedqa-3fc15d042bf4d42d", dataset: "pubmedqa", splits: map[string]int{"": 1000}, nOptions: 3},
		{name: "pubmedqa directory, explicit ground truth", src: Source{Path: sharedDir + "/pubmedqa", GroundTruth: realPubMedQAGT}, format: FormatPubMedQA, n: 500, records: 1000,
			dataset: "pubmedqa", splits: map[string]int{"test": 500}, nOptions: 3},
		{name: "mmlu folder, test split", src: Source{Path: realMMLUMedical, Split: "test"}, format: FormatMMLU, n: 1099, records: 1099,
			dataset: "mmlu", splits: map[string]int{"test": 1099}, nOptions: 4, named: true,
			check: func(t *testing.T, qs []qa.Question) {
				if got := countBy(qs, func(q qa.Question) string { return q.Meta["subject"] }); !maps.Equal(got, mmluSubjects) {
					t.Errorf("subjects %v", got)
				}
				// The same question text appears in several subjects; the
				// subject is part of the content id, so ids stay unique.
				stems := countBy(qs, func(q qa.Question) string { return q.Stem + "\x00" + fmt.Sprint(q.Options) })
				dup := 0
				for _, n := range stems {
					dup += n - 1
				}
				if dup == 0 {
					t.Error("expected questions shared between clinical_knowledge and college_medicine")
				}
			}},
		{name: "mmlu folder, all splits", src: Source{Path: realMMLUMedical, Split: AllSplits}, format: FormatMMLU, n: 1129, records: 1129,
			dataset: "mmlu", splits: map[string]int{"test": 1099, "dev": 30}, nOptions: 4},
	}
	for _, subject := range slices.Sorted(maps.Keys(mmluSubjects)) {
		tests = append(tests,
			realCase{name: "mmlu " + subject + "_dev", src: Source{Path: realMMLUMedical + "/" + subject + "_dev.csv"}, format: FormatMMLU, n: 5, records: 5,
				dataset: "mmlu", splits: map[string]int{"dev": 5}, nOptions: 4},
			realCase{name: "mmlu " + subject + "_test", src: Source{Path: realMMLUMedical + "/" + subject + "_test.csv"}, format: FormatMMLU,
				n: mmluSubjects[subject], records: mmluSubjects[subject], dataset: "mmlu", splits: map[string]int{"test": mmluSubjects[subject]}, nOptions: 4})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			needFile(t, tc.src.Path)
			res := mustLoad(t, tc.src)
			qs := res.Questions
			if len(qs) != tc.n || res.Records != tc.records || res.Filtered != tc.records-tc.n {
				t.Fatalf("got %d questions of %d records (%d filtered), want %d of %d", len(qs), res.Records, res.Filtered, tc.n, tc.records)
			}
			if res.Format != tc.format {
				t.Errorf("format %s, want %s", res.Format, tc.format)
			}
			if tc.firstID != "" && qs[0].ID != tc.firstID {
				t.Errorf("first id %s, want %s", qs[0].ID, tc.firstID)
			}
			checkQuestions(t, qs)
			if got := countBy(qs, func(q qa.Question) string { return q.Split }); !maps.Equal(got, tc.splits) {
				t.Errorf("splits %v, want %v", got, tc.splits)
			}
			for _, q := range qs {
				if q.Dataset != tc.dataset || len(q.Options) != tc.nOptions {
					t.Fatalf("%s: dataset %q, %d options", q.ID, q.Dataset, len(q.Options))
				}
			}
			if tc.check != nil {
				tc.check(t, qs)
			}
			// Detection agrees, and naming the format gives the same result.
			if f, err := Detect(tc.src.Path); err != nil || f != tc.format {
				t.Errorf("Detect = %s, %v; want %s", f, err, tc.format)
			}
			if !tc.named {
				return
			}
			named := tc.src
			named.Format = tc.format
			again := mustLoad(t, named)
			if d := diffQuestions(qs, again.Questions); d != "" {
				t.Errorf("with --format %s: %s", tc.format, d)
			}
		})
	}
}

// diffQuestions describes the first difference between two question lists.
func diffQuestions(a, b []qa.Question) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d questions vs %d", len(a), len(b))
	}
	for i := range a {
		if d := diffQuestion(a[i], b[i]); d != "" {
			return fmt.Sprintf("question %d (%s): %s", i, a[i].ID, d)
		}
	}
	return ""
}

func diffQuestion(a, b qa.Question) string {
	switch {
	case a.ID != b.ID:
		return fmt.Sprintf("id %q vs %q", a.ID, b.ID)
	case a.SourceID != b.SourceID:
		return fmt.Sprintf("source id %q vs %q", a.SourceID, b.SourceID)
	case a.Dataset != b.Dataset:
		return fmt.Sprintf("dataset %q vs %q", a.Dataset, b.Dataset)
	case a.Split != b.Split:
		return fmt.Sprintf("split %q vs %q", a.Split, b.Split)
	case a.Stem != b.Stem:
		return fmt.Sprintf("stem %.40q vs %.40q", a.Stem, b.Stem)
	case !slices.Equal(a.Context, b.Context):
		return fmt.Sprintf("context %d vs %d passages", len(a.Context), len(b.Context))
	case !slices.Equal(a.Options, b.Options):
		return fmt.Sprintf("options %v vs %v", a.Options, b.Options)
	case a.Gold != b.Gold:
		return fmt.Sprintf("gold %q vs %q", a.Gold, b.Gold)
	case !maps.Equal(a.Meta, b.Meta):
		return fmt.Sprintf("meta %v vs %v", a.Meta, b.Meta)
	}
	return ""
}

// TestFixtures loads the hand-written files of testdata/ (formats without a
// real file in ../shared/datasets).
func TestFixtures(t *testing.T) {
	tests := []struct {
		name   string
		src    Source
		format Format
		want   []qa.Question // checked in full where given
		n      int
		check  func(t *testing.T, qs []qa.Question)
	}{
		{name: "medqa 5 options", src: Source{Path: "testdata/medqa_5opt_test.jsonl"}, format: FormatMedQA, n: 4,
			check: func(t *testing.T, qs []qa.Question) {
				golds := ""
				for _, q := range qs {
					golds += q.Gold
					if len(q.Options) != 5 || q.Split != "test" || q.ID != MedQAID(q.Stem, q.Options) {
						t.Errorf("%s: %d options, split %q", q.ID, len(q.Options), q.Split)
					}
				}
				if golds != "BEBC" || qs[1].Options[4].Text != "Intravenous alteplase" || qs[1].Meta["step"] != "step2&3" {
					t.Errorf("golds %s, question 2 %+v", golds, qs[1])
				}
			}},
		{name: "mmlu-pro", src: Source{Path: "testdata/mmlu_pro_test.jsonl"}, format: FormatMMLUPro, n: 6,
			check: func(t *testing.T, qs []qa.Question) {
				if got := countBy(qs, func(q qa.Question) string { return fmt.Sprint(len(q.Options)) }); !maps.Equal(got, map[string]int{"10": 4, "9": 1, "4": 1}) {
					t.Errorf("option counts %v", got)
				}
				q := qs[1]
				if q.SourceID != "6322" || q.ID != ContentID("mmlu-pro", q.Stem, nil, q.Options) || q.Gold != "G" || q.Options[9].Letter != "J" || q.Options[6].Text != "Vitamin K" ||
					q.Meta["category"] != "health" || q.Meta["src"] != "ori_mmlu-nutrition" || q.Split != "test" {
					t.Errorf("question 2 %+v", q)
				}
			}},
		{name: "mmlu-pro health only", src: Source{Path: "testdata/mmlu_pro_test.jsonl", Filter: map[string]string{"category": "Health"}}, format: FormatMMLUPro, n: 5},
		{name: "medbullets 4 options", src: Source{Path: "testdata/medbullets_op4.csv"}, format: FormatMedBullets, n: 4,
			check: func(t *testing.T, qs []qa.Question) {
				q := qs[1]
				if len(q.Options) != 4 || q.Gold != "B" || q.Meta["link"] != "https://example.org/mb/q/1002" ||
					!strings.Contains(q.Stem, `"the worst cough of my life"`) || q.ID != ContentID("medbullets", q.Stem, nil, q.Options) {
					t.Errorf("question 2 %+v", q)
				}
			}},
		{name: "medbullets 5 options", src: Source{Path: "testdata/medbullets_op5.csv"}, format: FormatMedBullets, n: 3,
			check: func(t *testing.T, qs []qa.Question) {
				if qs[0].Gold != "E" || qs[2].Gold != "B" || len(qs[2].Options) != 5 || qs[2].Options[4].Text != "Propranolol" {
					t.Errorf("golds %s %s, question 3 %+v", qs[0].Gold, qs[2].Gold, qs[2])
				}
			}},
		{name: "medmcqa original, 1-based cop", src: Source{Path: "testdata/medmcqa_dev.json"}, format: FormatMedMCQA, n: 5,
			check: func(t *testing.T, qs []qa.Question) {
				q := qs[0]
				if q.SourceID != "0f4b9a2e-6a39-4c1e-9d1e-3b8f6f0c2a11" || q.ID != ContentID("medmcqa", q.Stem, nil, q.Options) || q.Gold != "D" || q.Options[3].Text != "Ophthalmic artery" ||
					q.Meta["subject"] != "Anatomy" || q.Meta["topic"] != "Head and neck" || q.Split != "dev" {
					t.Errorf("question 1 %+v", q)
				}
				if qs[2].Gold != "A" || qs[2].Meta["topic"] != "" {
					t.Errorf("question 3 %+v", qs[2])
				}
			}},
		{name: "medmcqa original, 0-based cop", src: Source{Path: "testdata/medmcqa_zero_based.json"}, format: FormatMedMCQA, n: 3,
			check: func(t *testing.T, qs []qa.Question) {
				if g := qs[0].Gold + qs[1].Gold + qs[2].Gold; g != "ABC" {
					t.Errorf("golds %s, want ABC (cop 0,1,2 counted from 0)", g)
				}
			}},
		{name: "mapped csv", src: Source{Path: "testdata/mapped_quiz.csv", Format: FormatMapped, Dataset: "quiz",
			Map: FieldMap{"id": "qid", "question": "stem", "options": "choice_a|choice_b|choice_c|choice_d", "answer": "label", "meta.topic": "topic"}},
			format: FormatMapped, n: 3,
			want: []qa.Question{
				{SourceID: "q-001", Dataset: "quiz", Stem: "Which electrolyte abnormality causes peaked T waves on ECG?",
					Options: []qa.Option{{Letter: "A", Text: "Hypokalemia"}, {Letter: "B", Text: "Hyperkalemia"}, {Letter: "C", Text: "Hypocalcemia"}, {Letter: "D", Text: "Hypernatremia"}}, Gold: "B", Meta: map[string]string{"topic": "cardiology"}},
				{SourceID: "q-002", Dataset: "quiz", Stem: `Which organism causes "walking pneumonia"?`,
					Options: []qa.Option{{Letter: "A", Text: "Streptococcus pneumoniae"}, {Letter: "B", Text: "Mycoplasma pneumoniae"}, {Letter: "C", Text: "Klebsiella pneumoniae"}}, Gold: "B", Meta: map[string]string{"topic": "infectious disease"}},
				{SourceID: "q-003", Dataset: "quiz", Stem: "First-line treatment of uncomplicated hypertension in a 50-year-old without comorbidities:",
					Options: []qa.Option{{Letter: "A", Text: "Thiazide diuretic"}, {Letter: "B", Text: "Loop diuretic"}, {Letter: "C", Text: "Alpha blocker"}, {Letter: "D", Text: "Minoxidil"}}, Gold: "A", Meta: map[string]string{"topic": "cardiology"}},
			}},
		{name: "mapped jsonl, 0-based labels, context and split", src: Source{Path: "testdata/mapped_items.jsonl", Format: FormatMapped, Split: AllSplits,
			Map: mustFieldMap(t, "id=uid,question=prompt,options=choices,answer=label,context=passage,split=fold")},
			format: FormatMapped, n: 3,
			want: []qa.Question{
				{SourceID: "17", Dataset: "custom", Split: "test", Stem: "Which nerve is damaged in wrist drop?", Context: []string{"Wrist drop follows injury in the spiral groove."},
					Options: []qa.Option{{Letter: "A", Text: "Median"}, {Letter: "B", Text: "Ulnar"}, {Letter: "C", Text: "Radial"}, {Letter: "D", Text: "Axillary"}}, Gold: "C"},
				{SourceID: "18", Dataset: "custom", Split: "test", Stem: "Deficiency of which vitamin causes scurvy?",
					Options: []qa.Option{{Letter: "A", Text: "Vitamin A"}, {Letter: "B", Text: "Vitamin C"}, {Letter: "C", Text: "Vitamin D"}}, Gold: "B"},
				{SourceID: "19", Dataset: "custom", Split: "dev", Stem: "Is aspirin an antiplatelet drug?", Context: []string{"Aspirin irreversibly inhibits COX-1.", "It reduces thromboxane A2."},
					Options: []qa.Option{{Letter: "A", Text: "yes"}, {Letter: "B", Text: "no"}}, Gold: "A"},
			}},
		{name: "mapped jsonl, test split only", src: Source{Path: "testdata/mapped_items.jsonl", Format: FormatMapped, Split: "test",
			Map: mustFieldMap(t, "id=uid,question=prompt,options=choices,answer=label,split=fold")}, format: FormatMapped, n: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustLoad(t, tc.src)
			qs := res.Questions
			if len(qs) != tc.n {
				t.Fatalf("got %d questions, want %d", len(qs), tc.n)
			}
			if res.Format != tc.format {
				t.Errorf("format %s, want %s", res.Format, tc.format)
			}
			checkQuestions(t, qs)
			if tc.want != nil {
				for i, w := range tc.want {
					tc.want[i].ID = ContentID(w.Dataset, w.Stem, w.Context, w.Options) // every id is the content hash
				}
				if d := diffQuestions(qs, tc.want); d != "" {
					t.Error(d)
				}
			}
			if tc.check != nil {
				tc.check(t, qs)
			}
			if tc.src.Format == FormatAuto {
				if f, err := Detect(tc.src.Path); err != nil || f != tc.format {
					t.Errorf("Detect = %s, %v; want %s", f, err, tc.format)
				}
			}
		})
	}
}

func mustFieldMap(tb testing.TB, s string) FieldMap {
	tb.Helper()
	m, err := ParseFieldMap(s)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func TestMedMCQAMultiAnswer(t *testing.T) {
	src := Source{Path: "testdata/medmcqa_multi.json"}
	_, err := Load(src, LoadOptions{})
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Total != 1 || inv.Problems[0].Code != CodeMulti || inv.Problems[0].Line != 2 || inv.Problems[0].Field != "choice_type" {
		t.Fatalf("got %v, want one multi-answer problem at line 2", err)
	}
	res, err := Load(src, LoadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Questions) != 2 || res.Skipped != 1 || res.Reasons[CodeMulti] != 1 || res.Records != 3 {
		t.Errorf("got %d questions, %d skipped, reasons %v", len(res.Questions), res.Skipped, res.Reasons)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "cop counted from 1") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestMedMCQAIndexBase(t *testing.T) {
	dir := t.TempDir()
	line := func(cop int) string {
		return fmt.Sprintf(`{"id": "x%d", "question": "Q%d?", "opa": "a", "opb": "b", "opc": "c", "opd": "d", "cop": %d, "choice_type": "single"}`, cop, cop, cop)
	}
	write := func(name string, cops ...int) string {
		var b strings.Builder
		for _, c := range cops {
			b.WriteString(line(c) + "\n")
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name  string
		cops  []int
		base  IndexBase
		golds string
		err   string
	}{
		{"a 4 means 1-based", []int{2, 4, 1}, IndexAuto, "BDA", ""},
		{"a 0 means 0-based", []int{2, 0, 1}, IndexAuto, "CAB", ""},
		{"ambiguous defaults to 1-based", []int{2, 3, 1}, IndexAuto, "BCA", ""},
		{"explicit 0", []int{2, 3, 1}, IndexZero, "CDB", ""},
		{"both 0 and 4", []int{0, 4}, IndexAuto, "", "both 0 and the number of options"},
		{"explicit 1 with a 0", []int{0, 2}, IndexOne, "", "0 is not an option index; this file counts options from 1 (1–4)"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(fmt.Sprintf("m%d.json", i), tc.cops...)
			res, err := Load(Source{Path: p, Format: FormatMedMCQA, IndexBase: tc.base}, LoadOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			golds := ""
			for _, q := range res.Questions {
				golds += q.Gold
			}
			if golds != tc.golds {
				t.Errorf("golds %s, want %s", golds, tc.golds)
			}
		})
	}
}

func TestDetectMultilineFirstRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "virology_test.csv")
	content := "\xEF\xBB\xBF\"Which virus:\nline two, with a comma?\",HIV,HBV,HCV,HPV,D\r\nSecond?,a,b,c,d,A\r\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(p); err != nil || f != FormatMMLU {
		t.Fatalf("Detect = %s, %v", f, err)
	}
	res := mustLoad(t, Source{Path: p})
	if len(res.Questions) != 2 || res.Questions[0].Stem != "Which virus:\nline two, with a comma?" || res.Questions[0].Meta["subject"] != "virology" || res.Questions[0].Gold != "D" {
		t.Errorf("got %+v", res.Questions)
	}
}

// TestMedBulletsDuplicates loads the MedBullets fixtures, which (like the
// published files: 4 such rows in op4, 10 in op5) repeat some questions
// under a second link: the exact copies are collapsed, the first kept, and
// counted.
func TestMedBulletsDuplicates(t *testing.T) {
	tests := []struct {
		path             string
		records, n, dups int
		pairs            []string // in the note
	}{
		{"testdata/medbullets_op4.csv", 6, 4, 2, []string{"line 15 = line 2", "line 29 = line 24"}},
		{"testdata/medbullets_op5.csv", 6, 3, 3, []string{"line 3 = line 2", "line 6 = line 5", "line 7 = line 4"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			res := mustLoad(t, Source{Path: tc.path})
			if len(res.Questions) != tc.n || res.Valid != tc.n || res.Records != tc.records || res.DuplicatesCollapsed != tc.dups {
				t.Fatalf("got %d questions (valid %d) of %d records, %d collapsed; want %d of %d, %d collapsed",
					len(res.Questions), res.Valid, res.Records, res.DuplicatesCollapsed, tc.n, tc.records, tc.dups)
			}
			checkQuestions(t, res.Questions)
			for _, q := range res.Questions {
				if !strings.HasPrefix(q.Meta["link"], "https://example.org/mb/q/") {
					t.Errorf("%s: kept the copy with link %q, want the first one", q.ID, q.Meta["link"])
				}
			}
			notes := strings.Join(res.Notes, "\n")
			want := fmt.Sprintf("%d exact duplicate record(s) collapsed, the first copy kept (%s)", tc.dups, strings.Join(tc.pairs, ", "))
			if !strings.Contains(notes, want) {
				t.Errorf("notes %q lack %q", notes, want)
			}
			if s := res.Summary(); !strings.Contains(s, fmt.Sprintf("exact duplicates collapsed %d", tc.dups)) {
				t.Errorf("summary %q", s)
			}
			// Without the duplicate check the copies are delivered as read.
			all := mustLoad(t, Source{Path: tc.path, SkipDuplicateCheck: true})
			if len(all.Questions) != tc.records || all.DuplicatesCollapsed != 0 {
				t.Errorf("SkipDuplicateCheck: %d questions, %d collapsed", len(all.Questions), all.DuplicatesCollapsed)
			}
		})
	}
}

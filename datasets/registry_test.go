package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRegistryEntries(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Registry() {
		if seen[e.Name] {
			t.Errorf("duplicate name %s", e.Name)
		}
		seen[e.Name] = true
		if e.Description == "" || e.License == "" || e.Expected <= 0 || (!e.Embedded && len(e.Layouts) == 0) {
			t.Errorf("%s: incomplete entry %+v", e.Name, e)
		}
		for _, l := range e.Layouts {
			for _, f := range l.Files {
				if filepath.IsAbs(f) || strings.Contains(f, "..") || strings.Contains(f, "\\") {
					t.Errorf("%s: layout path %q must be relative and slash-separated", e.Name, f)
				}
			}
		}
	}
	for _, name := range []string{SampleName, "medqa", "medmcqa", "pubmedqa", "mmlu-medical", "mmlu-pro-health", "medbullets"} {
		if !seen[name] {
			t.Errorf("registry lacks %s", name)
		}
		if e, ok := LookupEntry(strings.ToUpper(name)); !ok || e.Name != name {
			t.Errorf("LookupEntry(%s) failed", name)
		}
	}
	if Registry()[0].Name != SampleName {
		t.Error("the embedded sample is not listed first")
	}
}

// TestResolveShared resolves the registry against ../shared/datasets: every
// entry whose files are there loads with its expected count and no problem.
func TestResolveShared(t *testing.T) {
	needFile(t, sharedDir)
	found := 0
	for _, e := range Registry() {
		t.Run(e.Name, func(t *testing.T) {
			src, err := Resolve(e.Name, sharedDir)
			if err != nil {
				if e.Name == "medqa-5" || e.Name == "mmlu-pro-health" || e.Name == "headqa" || strings.HasPrefix(e.Name, "medbullets") {
					// Not in ../shared/datasets: the error lists what is expected.
					if !strings.Contains(err.Error(), "files not found under") || !strings.Contains(err.Error(), e.Layouts[0].Files[0]) {
						t.Errorf("error %q does not list the expected files", err)
					}
					return
				}
				t.Fatal(err)
			}
			found++
			res := mustLoad(t, src)
			if len(res.Questions) != e.Expected || res.Source != e.Name {
				t.Errorf("%s: %d questions (source %q), want %d", e.Name, len(res.Questions), res.Source, e.Expected)
			}
			checkQuestions(t, res.Questions)
		})
	}
}

// TestResolveFixtures builds a data directory holding the datasets that
// ../shared/datasets lacks (from the fixtures) and resolves them.
func TestResolveFixtures(t *testing.T) {
	dir := t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to = filepath.Join(dir, filepath.FromSlash(to))
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile("testdata/medbullets_op4.csv", "medbullets/medbullets_op4.csv")
	copyFile("testdata/medbullets_op5.csv", "medbullets/medbullets_op5.csv")
	copyFile("testdata/medqa_5opt_test.jsonl", "medqa/test.jsonl")
	os.MkdirAll(filepath.Join(dir, "mmlu_pro"), 0o755)
	hfMMLUPro(t, filepath.Join(dir, "mmlu_pro"))
	copyFile(headqaTest, "headqa/HEAD_EN/test_HEAD_EN.json")
	copyFile("testdata/headqa/HEAD_EN/dev_HEAD_EN.json", "headqa/HEAD_EN/dev_HEAD_EN.json")
	for name, want := range map[string]int{"medbullets": 4, "medbullets-op5": 3, "medqa-5": 4, "mmlu-pro-health": 5, "headqa": 5} {
		src, err := Resolve(name, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res := mustLoad(t, src)
		if len(res.Questions) != want {
			t.Errorf("%s: %d questions, want %d", name, len(res.Questions), want)
		}
		for _, q := range res.Questions {
			if name == "mmlu-pro-health" && q.Meta["category"] != "health" {
				t.Errorf("%s: category %q", q.ID, q.Meta["category"])
			}
		}
	}
	// The second layout of an entry is accepted too: MedBullets as pandas JSON.
	os.RemoveAll(filepath.Join(dir, "medbullets"))
	copyFile("testdata/medbullets_op4.json", "medbullets/medbullets_op4.json")
	if src, err := Resolve("medbullets", dir); err != nil {
		t.Error(err)
	} else if res := mustLoad(t, src); len(res.Questions) != 4 || res.DuplicatesCollapsed != 2 {
		t.Errorf("medbullets_op4.json: %d questions, %d collapsed", len(res.Questions), res.DuplicatesCollapsed)
	}

	copyFile("testdata/medmcqa_dev.json", "medmcqa/dev.json")
	src, err := Resolve("medmcqa", dir)
	if err != nil {
		t.Fatal(err)
	}
	if res := mustLoad(t, src); len(res.Questions) != 5 || res.Format != FormatMedMCQA || res.Questions[0].Dataset != "medmcqa" {
		t.Errorf("medmcqa dev.json: %d questions, format %s", len(res.Questions), res.Format)
	}
	// A PubMedQA data file without its split file is an error.
	copyFile("testdata/pubmedqa/ori_pqal.json", "pubmedqa/ori_pqal.json")
	if _, err := Resolve("pubmedqa", dir); err == nil || !strings.Contains(err.Error(), "test_ground_truth.json is missing") {
		t.Errorf("pubmedqa without ground truth: %v", err)
	}
}

func TestResolveSampleAndPaths(t *testing.T) {
	want, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", SampleName} {
		src, err := Resolve(name, "")
		if err != nil {
			t.Fatal(err)
		}
		if !src.Embedded() || src.String() != SampleName {
			t.Errorf("%q: not the embedded sample: %+v", name, src)
		}
		res := mustLoad(t, src)
		if d := diffQuestions(res.Questions, want); d != "" {
			t.Errorf("%q: %s", name, d)
		}
	}
	// A path is passed through.
	src, err := Resolve("testdata/mmlu_pro_test.jsonl", "")
	if err != nil || src.Path != "testdata/mmlu_pro_test.jsonl" {
		t.Errorf("path: %+v, %v", src, err)
	}
	if _, err := Resolve("no-such-dataset", ""); err == nil || !strings.Contains(err.Error(), "neither a registry name") || !strings.Contains(err.Error(), "mmlu-medical") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Resolve("medqa", ""); !errors.Is(err, ErrNoDataDir) || !strings.Contains(err.Error(), "medqa/phrases_no_exclude_test.jsonl") {
		t.Errorf("no data dir: %v", err)
	}
	t.Setenv(DataDirEnv, "/from/env")
	if DataDir("") != "/from/env" || DataDir("/flag") != "/flag" {
		t.Errorf("DataDir: %q %q", DataDir(""), DataDir("/flag"))
	}
}

package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/medteam-bench/medteam/datasets"
)

// sharedDatasets is ../shared/datasets (the real dataset files); the test
// skips naming it when absent.
func sharedDatasets(t *testing.T) string {
	t.Helper()
	return sharedDir(t, "datasets", "SHA256SUMS")
}

// fixtureEntry is a registry entry named "tiny" whose one pinned file is the
// committed 50-question MedQA sample, served at url.
func fixtureEntry(t *testing.T, url string) (datasets.Entry, []byte) {
	t.Helper()
	body, err := os.ReadFile(medqaSample)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	e, _ := datasets.LookupEntry("medqa")
	e.Name, e.Expected = "tiny", 50
	e.Downloads = []datasets.Download{{Path: e.Layouts[0].Files[0], URL: url, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}}
	e.Manual = ""
	return e, body
}

// TestDatasetsGetThenResolve: `get` fetches a pinned file over HTTP into
// the data directory, and the registry then finds and loads it; a second
// get keeps the verified file.
func TestDatasetsGetThenResolve(t *testing.T) {
	var body []byte
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer ts.Close()
	e, b := fixtureEntry(t, ts.URL+"/medqa_test_sample50.jsonl")
	body = b
	dir := t.TempDir()
	var out, errb bytes.Buffer
	f := &Factory{Out: &out, Err: &errb}
	o := &DatasetsGetOptions{Names: []string{"tiny"}, DataDir: dir}
	if err := runDatasetsGet(context.Background(), f, o, []datasets.Entry{e}, ts.Client()); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "medqa/phrases_no_exclude_test.jsonl downloaded") || !strings.Contains(errb.String(), "fetching medqa/phrases_no_exclude_test.jsonl") {
		t.Errorf("output:\n%s\n%s", out.String(), errb.String())
	}
	src, err := e.Source(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := datasets.Load(src, datasets.LoadOptions{})
	if err != nil || len(res.Questions) != 50 {
		t.Fatalf("load after get: %v, %d questions", err, len(res.Questions))
	}
	out.Reset()
	if err := runDatasetsGet(context.Background(), f, o, []datasets.Entry{e}, ts.Client()); err != nil || !strings.Contains(out.String(), "present") {
		t.Fatalf("second get: %v\n%s", err, out.String())
	}
	body = body[:100] // a server now serving a truncated file
	os.Remove(filepath.Join(dir, "medqa", "phrases_no_exclude_test.jsonl"))
	err = runDatasetsGet(context.Background(), f, o, []datasets.Entry{e}, ts.Client())
	if err == nil || !strings.Contains(errb.String(), "refused and removed: size: expected") {
		t.Fatalf("truncated: %v\n%s", err, errb.String())
	}
	if _, err := e.Source(dir); err == nil {
		t.Error("a refused file must not be found by the registry")
	}
}

// TestDatasetsGetFromMirror: the real registry's medmcqa and pubmedqa
// files taken from a mirror folder and from a loopback HTTP mirror of
// ../shared/datasets; then `--dataset NAME` (Resolve under the data dir)
// finds them, with the expected question counts.
func TestDatasetsGetFromMirror(t *testing.T) {
	shared := sharedDatasets(t)
	ts := httptest.NewServer(http.FileServer(http.Dir(shared)))
	defer ts.Close()
	for name, from := range map[string]string{"folder": shared, "URL": ts.URL} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv(datasets.DataDirEnv, dir) // no --data-dir: the env, as a user would
			code, stdout, stderr := runCLI(t, "datasets", "get", "medmcqa", "pubmedqa", "semigran", "--from", from)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			for name, n := range map[string]int{"medmcqa": 2816, "pubmedqa": 500, "semigran": 45} {
				src, err := datasets.Resolve(name, datasets.DataDir(""))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if st, err := datasets.Check(src, datasets.LoadOptions{SkipInvalid: true}); err != nil || st.Valid != n {
					t.Errorf("%s: %v, %d questions, want %d", name, err, st.Valid, n)
				}
			}
		})
	}
}

// TestDatasetsGetWithoutSource: a dataset with no pinned URL says where
// to get it by hand and where to put it, and exits non-zero.
func TestDatasetsGetWithoutSource(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "datasets", "get", "headqa", "mmlu-medical", "--data-dir", dir)
	if code == 0 {
		t.Fatal("want a failure")
	}
	for _, want := range []string{
		"headqa: no pinned public files", "https://github.com/aghie/head-qa", filepath.Join(dir, "headqa", "HEAD_EN", "test_HEAD_EN.json"),
		"mmlu-medical: mmlu_medical/anatomy_test.csv: no public download URL", "https://people.eecs.berkeley.edu/~hendrycks/data.tar", "--from DIR|URL",
		"2 of 2 dataset(s) not ready",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestDatasetsGetList(t *testing.T) {
	code, stdout, stderr := runCLI(t, "datasets", "get", "--list", "--json", "--data-dir", "/d")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var l downloadList
	if err := json.Unmarshal([]byte(stdout), &l); err != nil {
		t.Fatal(err)
	}
	byName := map[string]downloadSpec{}
	for _, s := range l.Datasets {
		byName[s.Name] = s
	}
	med := byName["medmcqa"]
	if l.DataDir != "/d" || len(med.Files) != 1 || med.Files[0].SHA256 != "06193ed891b1f4ce1b93b3416f52ec731e8c7134b17a000f9219c031a929d716" ||
		med.Files[0].Size != 924597 || !strings.HasPrefix(med.Files[0].URL, "https://") {
		t.Errorf("medmcqa: %+v (data dir %q)", med, l.DataDir)
	}
	if h := byName["headqa"]; len(h.Files) != 0 || h.Manual == "" {
		t.Errorf("headqa: %+v", h)
	}
	if _, ok := byName[datasets.SampleName]; ok {
		t.Error("the embedded sample has nothing to get")
	}
	code, stdout, _ = runCLI(t, "datasets", "get", "--list", "pubmedqa")
	for _, want := range []string{"pubmedqa/test_ground_truth.json  11414 bytes", "sha256 939fe566f09017d13b1ca64d2ddfee0bc2374b366048152997669cccedc44d51", "url    https://raw.githubusercontent.com/pubmedqa/pubmedqa/"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--list pubmedqa lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "medmcqa") {
		t.Error("--list NAME lists that dataset only")
	}
	for _, args := range [][]string{{"datasets", "get"}, {"datasets", "get", "nope"}, {"datasets", "get", "medqa", "--json"}} {
		if code, _, _ := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want usage", args, code)
		}
	}
}

// TestDatasetsListWidth: every line of `datasets list` fits a 100-column
// terminal (they were up to 439 characters); --long too, except a word
// (URL) longer than a line.
func TestDatasetsListWidth(t *testing.T) {
	for _, args := range [][]string{{"datasets", "list"}, {"datasets", "list", "--long"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		maxw := 0
		for _, l := range strings.Split(stdout, "\n") {
			if w := utf8.RuneCountInString(l); w > maxw && len(strings.Fields(l)) > 1 {
				maxw = w
			}
		}
		if maxw > listWidth {
			t.Errorf("%v: a line of %d columns, want ≤ %d:\n%s", args, maxw, listWidth, stdout)
		}
		for _, name := range datasets.Names() {
			if !strings.Contains(stdout, name+" ") {
				t.Errorf("%v lacks %s", args, name)
			}
		}
	}
}

func TestFitColumns(t *testing.T) {
	rows := [][]string{{"a", "bb", "tail"}, {"ccc", "d", strings.Repeat("x", 50)}, {"short"}}
	got := fitColumns(rows, 20)
	want := []string{"a      bb  tail", "ccc    d   xxxxxxxx…", "short"} // "short" widens the first column
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("fitColumns = %q, want %q", got, want)
	}
}

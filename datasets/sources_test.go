package datasets

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDefaultDataDir: with neither --data-dir nor MEDTEAM_DATA, the data
// directory is the user cache directory's medteam/datasets, where
// `medteam datasets get` writes.
func TestDefaultDataDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv(DataDirEnv, "")
	want := filepath.Join(cache, "medteam", "datasets")
	if got := DataDir(""); got != want && !strings.HasSuffix(got, filepath.Join("medteam", "datasets")) {
		t.Fatalf("DataDir(\"\") = %q, want %q", got, want)
	}
	if got := DataDir(""); got != DefaultDataDir() || got == "" {
		t.Errorf("DataDir(\"\") = %q, DefaultDataDir() = %q", got, DefaultDataDir())
	}
	if DataDir("/flag") != "/flag" {
		t.Error("the flag must win")
	}
}

// TestMissingDatasetSaysHowToGetIt: the error for a registry name whose
// files are missing names the get command (or the manual step).
func TestMissingDatasetSaysHowToGetIt(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{
		"medmcqa":      "fetch them with `medteam datasets get medmcqa`",
		"pubmedqa":     "fetch them with `medteam datasets get pubmedqa`",
		"medqa":        "`medteam datasets get medqa --from DIR|URL`",
		"mmlu-medical": "https://people.eecs.berkeley.edu/~hendrycks/data.tar",
		"headqa":       "place them by hand: ",
	} {
		_, err := Resolve(name, dir)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant it to say %q", name, err, want)
		}
	}
}

// TestDownloadsMatchLayouts: every dataset that needs files has pinned
// files or a manual step; pinned files are exactly the first layout's files
// (and ground truth), with a size and a 64-hex sha256.
func TestDownloadsMatchLayouts(t *testing.T) {
	for _, e := range Registry() {
		if e.Embedded {
			continue
		}
		if len(e.Downloads) == 0 && e.Manual == "" {
			t.Errorf("%s: neither pinned files nor a manual step", e.Name)
		}
		if len(e.Downloads) == 0 {
			continue
		}
		want := slices.Clone(e.Layouts[0].Files)
		if g := e.Layouts[0].GroundTruth; g != "" {
			want = append(want, g)
		}
		var got []string
		urls := 0
		for _, d := range e.Downloads {
			got = append(got, d.Path)
			if b, err := hex.DecodeString(d.SHA256); err != nil || len(b) != 32 || d.Size <= 0 {
				t.Errorf("%s: %s: size %d sha256 %q", e.Name, d.Path, d.Size, d.SHA256)
			}
			if d.URL != "" {
				urls++
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: pinned %v, first layout %v", e.Name, got, want)
		}
		if urls < len(e.Downloads) && e.Manual == "" {
			t.Errorf("%s: files without a URL need a manual step", e.Name)
		}
	}
}

// TestPinnedFilesMatchShared: the pinned sizes and checksums are those of
// the byte copies in ../shared/datasets.
func TestPinnedFilesMatchShared(t *testing.T) {
	shared := sharedData(t)
	sums, err := os.ReadFile(filepath.Join(shared, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Registry() {
		for _, d := range e.Downloads {
			if !strings.Contains(string(sums), d.SHA256+"  ./"+d.Path+"\n") {
				t.Errorf("%s: %s %s is not in SHA256SUMS", e.Name, d.SHA256, d.Path)
			}
			if st, err := os.Stat(filepath.Join(shared, filepath.FromSlash(d.Path))); err != nil || st.Size() != d.Size {
				t.Errorf("%s: %s: size %d pinned, %v", e.Name, d.Path, d.Size, err)
			}
		}
	}
}

// sharedData is ../shared/datasets beside the repository (sharedDir), or
// beside the folder of a git worktree under /work/wt; the test skips when
// neither exists.
func sharedData(t *testing.T) string {
	t.Helper()
	for _, d := range []string{sharedDir, "../" + sharedDir} {
		if _, err := os.Stat(filepath.Join(d, "SHA256SUMS")); err == nil {
			return d
		}
	}
	t.Skipf("needs %s (the real dataset files)", sharedDir)
	return ""
}

package results

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func fullManifest() Manifest {
	return Manifest{
		SchemaVersion: SchemaVersion,
		RunID:         "20261122T014700Z-a3f09c",
		Tool:          Tool{Name: "medteam", Version: "v0.3.1", GitRevision: "0123abcd+dirty", GoVersion: "go1.26.8"},
		Command:       []string{"medteam", "run", "--model", "ollama/llama3.1:8b", "--arms", "base,full", "--note=ü 医生"},
		StartedAt:     time.Date(2026, 11, 22, 1, 47, 0, 123456789, time.UTC),
		FinishedAt:    time.Date(2026, 11, 22, 2, 5, 9, 5, time.UTC),
		Seed:          -42,
		SampleSeed:    1 << 40,
		Limit:         100,
		Parallel:      8,
		Datasets: []DatasetRef{
			{Name: "medqa", Path: "data/medqa/test.jsonl", SHA256: strings.Repeat("ab", 32), Questions: 100, Embedded: true},
			{Name: "pubmedqa", Path: "/abs/pubmedqa.parquet", SHA256: strings.Repeat("cd", 32), Questions: 50},
		},
		Models: []ModelRef{
			{Name: "ollama/llama3.1:8b", Provider: "ollama", BaseURL: "http://127.0.0.1:11434", Digest: "sha256:46e0c10c039e"},
			{Name: "sim/skilled", Provider: "sim"},
		},
		Arms: []ArmRef{
			{
				Label: "full", Protocol: "teamwork", SMM: true, Leadership: true, Orientation: true, Trust: true,
				Monitoring: true, Turns: 3, Discussion: "parallel", AgentPolicy: "fixed:4", StructuredOutput: true,
				Temperatures: map[string]float64{"agent": 0.7, "leader": 0.5, "recruiter": 0.5},
			},
			{Label: "base", Protocol: "teamwork", Turns: 2, Discussion: "round_robin", AgentPolicy: "dynamic"},
		},
		Repeats:       3,
		PromptSetHash: strings.Repeat("ef", 32),
		Simulated:     true,
		Batch:         true,
		Status:        Status{State: StateIncomplete, Done: 590, Planned: 600},
		Counts:        Counts{Questions: 600, Calls: 12345, Errors: 2, Probes: 4, ProbeTokens: 12, AbandonedAttempts: 3, AbandonedTokens: 30},
		Files:         map[string]string{QuestionsFile: strings.Repeat("01", 32), CallsFile: strings.Repeat("23", 32)},
	}
}

func TestManifestRoundTrip(t *testing.T) {
	assertAllSet(t, fullManifest())
	tests := []struct {
		name string
		m    Manifest
	}{
		{"full", fullManifest()},
		{"zero", Manifest{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ManifestFile)
			if err := WriteManifest(path, tt.m); err != nil {
				t.Fatal(err)
			}
			got, err := ReadManifest(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.m) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, tt.m)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), "{\n  \"schema_version\": ") || !strings.HasSuffix(string(data), "}\n") {
				t.Errorf("manifest is not indented JSON:\n%s", data)
			}
			if _, err := os.Stat(tmpPath(path)); !os.IsNotExist(err) {
				t.Errorf("temporary file left behind: %v", err)
			}
		})
	}
}

func TestManifestTimeZones(t *testing.T) {
	m := Manifest{StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", -7*3600))}
	path := filepath.Join(t.TempDir(), ManifestFile)
	if err := WriteManifest(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.StartedAt.Equal(m.StartedAt) {
		t.Errorf("StartedAt = %v, want %v", got.StartedAt, m.StartedAt)
	}
}

func TestManifestOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), ManifestFile)
	first := fullManifest()
	if err := WriteManifest(path, first); err != nil {
		t.Fatal(err)
	}
	second := Manifest{RunID: "second"}
	if err := WriteManifest(path, second); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, second) {
		t.Fatalf("got %+v, want %+v", got, second)
	}
}

func TestReadManifestErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content *string // nil: no file
	}{
		{"missing", nil},
		{"empty", ptr("")},
		{"not json", ptr("run_id: x\n")},
		{"truncated", ptr(`{"run_id": "x", "seed": 1`)},
		{"wrong type", ptr(`{"seed": "forty-two"}`)},
		{"array", ptr(`[1, 2]`)},
		{"trailing data", ptr(`{"run_id": "x"} {"run_id": "y"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			if tt.content != nil {
				if err := os.WriteFile(path, []byte(*tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := ReadManifest(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
		})
	}
}

func TestWriteManifestMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", ManifestFile)
	if err := WriteManifest(path, Manifest{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("got %v, want an error naming %s", err, path)
	}
}

func ptr[T any](v T) *T { return &v }

func TestToolInfo(t *testing.T) {
	tests := []struct {
		name                 string
		bi                   debug.BuildInfo
		version, rev, goVers string
	}{
		{
			name: "clean",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}},
			version: "v1.2.3", rev: "abc123", goVers: "go1.26.8",
		},
		{
			name: "dirty",
			bi: debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: "abc123"}}},
			version: "(devel)", rev: "abc123+dirty", goVers: "go1.26.8",
		},
		{
			name:    "no vcs",
			bi:      debug.BuildInfo{},
			version: "(devel)", rev: "", goVers: runtime.Version(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, r, g := toolInfo(&tt.bi)
			if v != tt.version || r != tt.rev || g != tt.goVers {
				t.Errorf("got (%q, %q, %q), want (%q, %q, %q)", v, r, g, tt.version, tt.rev, tt.goVers)
			}
		})
	}
	v, _, g := ToolInfo()
	if v == "" || g == "" {
		t.Errorf("ToolInfo() = version %q, go %q; want both set", v, g)
	}
}

func TestFileSHA256(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"abc.txt": "abc", "empty.txt": ""}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, want string
	}{
		{"abc.txt", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"empty.txt", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for _, tt := range tests {
		got, err := FileSHA256(filepath.Join(dir, tt.name))
		if err != nil || got != tt.want {
			t.Errorf("FileSHA256(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	hashes, err := FileHashes(dir, "abc.txt", "empty.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"abc.txt": tests[0].want, "empty.txt": tests[1].want}; !reflect.DeepEqual(hashes, want) {
		t.Errorf("FileHashes = %v, want %v", hashes, want)
	}
	missing := filepath.Join(dir, "missing")
	if _, err := FileSHA256(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("FileSHA256(missing) = %v, want an error naming the path", err)
	}
	if _, err := FileHashes(dir, "abc.txt", "missing"); err == nil {
		t.Error("FileHashes with a missing file succeeded")
	}
}

// TestNewStatus: a run is complete when every planned unit is done, failed
// when it says so, else incomplete (issue 28, item 4).
func TestNewStatus(t *testing.T) {
	for _, c := range []struct {
		done, planned int
		failed        bool
		want, text    string
	}{
		{80, 80, false, StateComplete, "complete: 80 of 80 units done"},
		{10, 80, false, StateIncomplete, "incomplete: 10 of 80 units done"},
		{10, 80, true, StateFailed, "failed: 10 of 80 units done"},
		{0, 0, false, StateComplete, "complete: 0 of 0 units done"},
	} {
		s := NewStatus(c.done, c.planned, c.failed)
		if s.State != c.want || s.String() != c.text || s.Complete() != (c.want == StateComplete) {
			t.Errorf("NewStatus(%d, %d, %v) = %+v %q", c.done, c.planned, c.failed, s, s)
		}
	}
	if s := (Status{}); s.Complete() || !strings.HasPrefix(s.String(), "not recorded") {
		t.Errorf("no status: %q", s)
	}
}

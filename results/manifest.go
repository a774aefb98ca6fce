package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// Manifest describes one run directory: the fully resolved plan, what it ran
// on, and what it produced. It is stored as indented JSON in ManifestFile.
// It must never hold a secret: Command is the argv as the caller scrubbed it,
// and model references carry URLs and digests, not keys.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	Tool          Tool   `json:"tool"`
	// Command is the argv of the run, already scrubbed of secrets by the caller.
	Command    []string  `json:"command"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Seed       int64     `json:"seed"`
	SampleSeed int64     `json:"sample_seed"`
	Limit      int       `json:"limit"`
	Parallel   int       `json:"parallel"`

	Datasets      []DatasetRef `json:"datasets"`
	Models        []ModelRef   `json:"models"`
	Arms          []ArmRef     `json:"arms"`
	Repeats       int          `json:"repeats"`
	PromptSetHash string       `json:"prompt_set_hash"`
	// Simulated is true when any model is the simulator (sim/...): reports
	// built from this run must say that its results are a simulation.
	Simulated bool `json:"simulated"`
	// Batch is true when the invocation that wrote the manifest sent its
	// model calls through the provider's batch API (run --batch): reports
	// price the run's tokens at batch rates.
	Batch bool `json:"batch,omitempty"`
	// Status says whether the run did every unit of its plan. A manifest
	// written before medteam recorded it has none (State "").
	Status Status `json:"status"`
	Counts Counts `json:"counts"`
	// Files maps a file name in the run directory to its hex SHA-256.
	Files map[string]string `json:"files"`
}

// Run states of Status.State.
const (
	StateComplete   = "complete"   // every planned unit is done
	StateIncomplete = "incomplete" // stopped (signal, budget, outage, kill) before every unit was done; resumable
	StateFailed     = "failed"     // ended by an error that a rerun does not cure by itself
	// StateUnknown is what a reader records for a run directory whose
	// manifest is missing or records no status; it is never written.
	StateUnknown = "unknown"
)

// Status is how far a run got: its state and the units done of those planned.
type Status struct {
	State   string `json:"state"`
	Done    int    `json:"done"`
	Planned int    `json:"planned"`
}

// NewStatus is the status of a run with done of planned units: complete
// when every unit is done, failed when failed is set, else incomplete.
func NewStatus(done, planned int, failed bool) Status {
	s := Status{State: StateIncomplete, Done: done, Planned: planned}
	switch {
	case failed:
		s.State = StateFailed
	case done >= planned:
		s.State = StateComplete
	}
	return s
}

// Complete reports whether the run did every unit of its plan.
func (s Status) Complete() bool { return s.State == StateComplete }

// String is the status as reports state it, e.g. "incomplete: 10 of 80
// units done".
func (s Status) String() string {
	switch s.State {
	case "", StateUnknown:
		return "not recorded (the manifest predates run status; 'medteam export DIR' records it)"
	case StateComplete:
		return fmt.Sprintf("complete: %d of %d units done", s.Done, s.Planned)
	}
	return fmt.Sprintf("%s: %d of %d units done", s.State, s.Done, s.Planned)
}

// Tool identifies the build of medteam that produced a run (see ToolInfo).
type Tool struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	GitRevision string `json:"git_revision"`
	GoVersion   string `json:"go_version"`
}

// Counts are the totals of a run.
type Counts struct {
	Questions int `json:"questions"` // rows of questions.parquet
	Calls     int `json:"calls"`     // rows of calls.parquet
	Errors    int `json:"errors"`    // question rows with an error
	// Probes counts the circuit breaker's probe requests (one-token chats
	// sent while an endpoint was down; not calls, so not in calls.parquet)
	// over every invocation of the run, ProbeTokens their tokens (prompt +
	// completion): the requests an endpoint received are the attempts of
	// calls.parquet plus these. Absent: none.
	Probes      int   `json:"probes,omitempty"`
	ProbeTokens int64 `json:"probe_tokens,omitempty"`
	// AbandonedAttempts counts the requests of units that were stopped
	// before they were committed (an outage, a signal, a fatal error) over
	// every invocation; their questions ran again, so no row holds these
	// requests. AbandonedTokens are their tokens (prompt + completion, as
	// reported). Absent: none.
	AbandonedAttempts int   `json:"abandoned_attempts,omitempty"`
	AbandonedTokens   int64 `json:"abandoned_tokens,omitempty"`
}

// DatasetRef identifies one dataset file used by a run.
type DatasetRef struct {
	Name      string   `json:"name"`
	Path      string   `json:"path"`
	SHA256    string   `json:"sha256"`    // see DatasetSHA256; the embedded sample: its file's SHA-256
	Questions int      `json:"questions"` // questions used (after sampling/limit/shard)
	Embedded  bool     `json:"embedded"`  // the sample shipped inside the binary
	Format    string   `json:"format,omitempty"`
	Files     []string `json:"files,omitempty"`
	Records   int      `json:"records,omitempty"` // valid questions in the source before sampling
	// Skipped counts invalid records left out with --skip-invalid, by reason.
	Skipped     int            `json:"skipped,omitempty"`
	SkipReasons map[string]int `json:"skip_reasons,omitempty"`
	Shard       string         `json:"shard,omitempty"` // "i/n" when the run is one shard of a plan
	Notes       []string       `json:"notes,omitempty"` // decisions the loader took from the data

	// DuplicatesCollapsed counts exact duplicate records the loader left out
	// (the first copy kept; MedBullets as published has some).
	DuplicatesCollapsed int `json:"duplicates_collapsed,omitempty"`
	// DuplicatesKept counts content duplicates kept as distinct questions
	// because the source gives them distinct ids (MMLU-Pro; --dedupe merges
	// them).
	DuplicatesKept int `json:"duplicates_kept,omitempty"`
	// PaddingOptionsDropped counts the padding options ("n/a" after a
	// question's last real option: MMLU-Pro's "N/A", MedAgentsBench
	// AfriMedQA's option E) dropped from the source's valid questions
	// before sampling; the model is never shown them, and each question
	// records its own count (meta.padding_options_dropped).
	PaddingOptionsDropped int `json:"padding_options_dropped,omitempty"`
	// FileSHA256 lists the SHA-256 of each file read, in name order (see
	// DatasetSHA256); empty for the embedded sample.
	FileSHA256 []FileHash `json:"file_sha256,omitempty"`
}

// FileHash is one file of a dataset with its hex SHA-256.
type FileHash struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// ModelRef identifies one model used by a run.
type ModelRef struct {
	Name     string `json:"name"` // provider/model, e.g. ollama/llama3.1:8b
	Provider string `json:"provider"`
	BaseURL  string `json:"base_url"`
	Digest   string `json:"digest"` // as reported by the server, when it reports one
}

// ArmRef is one resolved arm (protocol and configuration) of a run.
type ArmRef struct {
	Label            string             `json:"label"`
	Protocol         string             `json:"protocol"`
	SMM              bool               `json:"smm"`
	Leadership       bool               `json:"leadership"`
	Orientation      bool               `json:"orientation"`
	Trust            bool               `json:"trust"`
	Monitoring       bool               `json:"monitoring"`
	Turns            int                `json:"turns"`
	Discussion       string             `json:"discussion"`   // round_robin | parallel
	AgentPolicy      string             `json:"agent_policy"` // dynamic | fixed:N
	StructuredOutput bool               `json:"structured_output"`
	Temperatures     map[string]float64 `json:"temperatures"` // by role: agent, recruiter, leader, ...
	// RedFlagsSHA256 is the hash of the red-flag file the arm applies to
	// triage items (seed 003's judge); omitted for other arms and for plans
	// without triage items.
	RedFlagsSHA256 string `json:"red_flags_sha256,omitempty"`
	// RedFlags is the rule set's name, and RedFlagsDevelopedOn what data its
	// file says it was developed on (omitted when it says nothing): a set
	// developed on an evaluation set is in-sample there.
	RedFlags            string `json:"red_flags,omitempty"`
	RedFlagsDevelopedOn string `json:"red_flags_developed_on,omitempty"`
}

// WriteManifest writes m as indented JSON to path atomically (temporary file,
// fsync, rename), so a reader never sees a partial manifest.
func WriteManifest(path string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("results: write manifest %s: %w", path, err)
	}
	data = append(data, '\n')
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("results: write manifest %s: %w", path, err)
	}
	return nil
}

// ReadManifest reads a manifest written by WriteManifest. Unknown fields are
// ignored; a file that is not a JSON object, or has trailing data, is an
// error naming the path.
func ReadManifest(path string) (Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("results: read manifest %s: %w", path, err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("results: read manifest %s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Manifest{}, fmt.Errorf("results: read manifest %s: trailing data after the JSON object", path)
	}
	return m, nil
}

// ToolInfo reports the running binary's module version, VCS revision and Go
// version from its build information. The revision gets a "+dirty" suffix
// when the working tree had uncommitted changes; it is empty when the binary
// was built without VCS stamping (for example by go test or go run).
func ToolInfo() (version, revision, goVersion string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)", "", runtime.Version()
	}
	return toolInfo(bi)
}

func toolInfo(bi *debug.BuildInfo) (version, revision, goVersion string) {
	version = bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	goVersion = bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && revision != "" {
		revision += "+dirty"
	}
	return version, revision, goVersion
}

// FileSHA256 returns the lowercase hex SHA-256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("results: hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("results: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// DatasetSHA256 identifies a dataset's files by content, as sha256sum
// does. For one file it is the file's SHA-256, what `sha256sum FILE` prints.
// For several it is the SHA-256 of the lines `sha256sum` prints for them,
// "HEX  NAME\n" (two spaces), in byte order of NAME, where NAME is the path
// relative to dir ("/"-separated) for a file under dir, else the base name;
// for the files of one folder that is
//
//	cd DIR && sha256sum FILE… | sha256sum      (FILE… sorted, e.g. LC_ALL=C ls)
//
// It also returns each file's hash, in the same order (for one file, its
// base name).
func DatasetSHA256(dir string, files []string) (string, []FileHash, error) {
	list := make([]FileHash, len(files))
	for i, f := range files {
		sum, err := FileSHA256(f)
		if err != nil {
			return "", nil, err
		}
		name := filepath.Base(f)
		if rel, err := filepath.Rel(dir, f); len(files) > 1 && err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
		list[i] = FileHash{Name: name, SHA256: sum}
	}
	if len(list) == 1 {
		return list[0].SHA256, list, nil
	}
	slices.SortStableFunc(list, func(a, b FileHash) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	for _, fh := range list {
		fmt.Fprintf(h, "%s  %s\n", fh.SHA256, fh.Name)
	}
	return hex.EncodeToString(h.Sum(nil)), list, nil
}

// FileHashes returns FileSHA256 of each named file in dir, keyed by name, in
// the form Manifest.Files expects.
func FileHashes(dir string, names ...string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, name := range names {
		sum, err := FileSHA256(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out[name] = sum
	}
	return out, nil
}

// writeFileAtomic writes data to tmpPath(path) (mode 0600), fsyncs it and renames it over
// path, then fsyncs the directory (best effort). On failure the temporary
// file is removed and path is untouched.
func writeFileAtomic(path string, data []byte) error {
	removeStale(path)
	tmp := tmpPath(path)
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

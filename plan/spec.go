package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/teamwork"
)

// Spec is the settings that determine a run's results. It is stored in the
// journal inside the plan document (its JSON names are that stored format,
// so they never change), which is how a resume rebuilds the run; no secret is
// among them.
type Spec struct {
	Datasets    []string `json:"datasets"`
	Models      []string `json:"models"`
	BaseURL     string   `json:"base_url,omitempty"`
	NumCtx      int      `json:"num_ctx"`
	Configs     []string `json:"configs"`
	Turns       int      `json:"turns"`
	Agents      int      `json:"agents"`
	Discussion  string   `json:"discussion"`
	Text        bool     `json:"text"`
	Limit       int      `json:"limit"`
	Seed        int64    `json:"seed"`
	SampleSeed  int64    `json:"sample_seed"`
	Repeats     int      `json:"repeats"`
	Transcripts bool     `json:"transcripts"`
	AgentTemp   float64  `json:"agent_temperature"`
	LeaderTemp  float64  `json:"leader_temperature"`
	MaxTokens   int      `json:"max_tokens"`
	// RetryTruncated asks again, once with twice the tokens, for a reply
	// cut off at its token limit (--retry-truncated; llm.NewTruncationRetry).
	// No effect with MaxTokens 0 (the backend's default cannot be doubled).
	RetryTruncated bool `json:"retry_truncated,omitempty"`
	// PeerChars bounds each other agent's text shown in a prompt (bytes;
	// 0 = the full text): --peer-chars.
	PeerChars int `json:"peer_chars,omitempty"`
	// PromptLayout is --prompt-layout: "shared" (what every call of a
	// question shares first) or "source" (the seeds' and papers' order);
	// "" in plans written before the switch, which are "source".
	PromptLayout string `json:"prompt_layout,omitempty"`

	Format      string `json:"format,omitempty"`
	Map         string `json:"map,omitempty"`
	DataDir     string `json:"data_dir,omitempty"`
	SkipInvalid bool   `json:"skip_invalid,omitempty"`
	// Dedupe merges content duplicates a dataset gives distinct ids
	// (--dedupe; see datasets.Source.Dedupe).
	Dedupe bool `json:"dedupe,omitempty"`
	// DatasetName names the dataset family of a file the format cannot
	// name (a standardised or mapped copy): --dataset-name, the id prefix
	// and the rows' dataset. "" = the format's ("standard", "custom").
	DatasetName string `json:"dataset_name,omitempty"`
	// Split is the split to read (--split): a folder holding several splits
	// is refused without it; for a registry name it replaces the entry's
	// split ("*" = all). "" = the dataset's default.
	Split          string `json:"split,omitempty"`
	Stratify       string `json:"stratify,omitempty"`
	Shard          string `json:"shard,omitempty"`
	ShuffleOptions bool   `json:"shuffle_options,omitempty"`
	// RedFlags is the red-flag rules seed 003's judge applies to triage
	// items (--red-flags): an embedded set's name or a file; "" = the
	// embedded default, configs/redflags.yaml (set seed003).
	RedFlags string `json:"red_flags,omitempty"`
	// DiagnosisJudge adds the LLM-judge scoring of stated diagnoses on
	// triage items (--diagnosis-judge): one call per such question.
	DiagnosisJudge bool `json:"diagnosis_judge,omitempty"`
	// FewshotFile is the training split few-shot exemplars are drawn from
	// (--fewshot-file; mdagents); "" = none. Like RedFlags it is recorded
	// by its content (Doc.FewshotSHA256), not its path.
	FewshotFile string `json:"fewshot_file,omitempty"`
	// FewshotAny lets --fewshot-file's exemplars reach a dataset that is
	// not MedQA (--fewshot-any). MDAgents' public code shows exemplars on
	// MedQA only (utils.py: if args.dataset == 'medqa'), so without it a
	// plan with --fewshot-file and another dataset is refused.
	FewshotAny bool `json:"fewshot_any,omitempty"`

	// MaxItemBytes caps one item's text (--max-item-bytes; 0 =
	// datasets.DefaultMaxItemBytes). Not part of the plan: it decides which
	// files load, not what a loaded item is.
	MaxItemBytes int `json:"-"`
}

// ProtocolVersion changes whenever the protocol's behaviour changes in a way
// the prompts do not show (parsing, aggregation, the simulator), so that a
// rerun does not resume a plan started under other rules. 3 (issue 36):
// vote:weighted weighs by ReConcile's rescaled confidence; teamwork's roles
// column marks the roles its agents never saw; leaderless SMM matches facts
// by content words; rows record facts_stated/facts_verified and heuristic_*.
const ProtocolVersion = 3

// Doc is what identifies a plan: its settings, the datasets' content hashes,
// the models' digests, the prompts and the protocol version. Its indented
// JSON is stored in the journal; the SHA-256 of that JSON is the plan hash.
type Doc struct {
	Spec            Spec                 `json:"flags"`
	Datasets        []results.DatasetRef `json:"datasets"`
	Models          []results.ModelRef   `json:"models"`
	PromptSetHash   string               `json:"prompt_set_hash"`
	ProtocolVersion int                  `json:"protocol_version"`
	Arms            []results.ArmRef     `json:"arms"`
	// ProtocolPrompts is the prompt-set hash of each protocol besides
	// teamwork that the arms run (omitted when none).
	ProtocolPrompts map[string]string `json:"protocol_prompt_sets,omitempty"`
	// FewshotSHA256 is the content hash of --fewshot-file (omitted when
	// none), so another training split is another plan.
	FewshotSHA256 string `json:"fewshot_sha256,omitempty"`
}

// Encode returns the document's stored form and its hash (hex SHA-256).
func (d Doc) Encode() ([]byte, string, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// Unshard returns a shard's plan document with everything that differs
// between the shards of one plan removed: the stored form and hash it gives
// are the same for every shard of a plan.
func Unshard(body []byte) ([]byte, string, Doc, error) {
	var doc Doc
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, "", doc, err
	}
	doc.Spec.Shard = ""
	for i := range doc.Datasets {
		doc.Datasets[i].Shard, doc.Datasets[i].Questions = "", 0
	}
	b, h, err := doc.Encode()
	return b, h, doc, err
}

// InputError is bad input: a setting out of range, a dataset that does not
// load, a plan that does not match its directory. The message says what was
// wrong, where (flag or file) and what to do; the command line exits 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Inputf returns an *InputError with a formatted message.
func Inputf(format string, a ...any) error { return &InputError{fmt.Errorf(format, a...)} }

// IsInput reports whether err is bad input.
func IsInput(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// Check checks the team settings shared by every arm, so that a bad value
// names its own flag and the values allowed (teamwork's validation would
// name the --config entry it was combined with).
func (s Spec) Check() error {
	if s.Turns != 2 && s.Turns != 3 {
		return Inputf("--turns %d: the protocol defines 2 or 3 discussion turns; use --turns 2 or --turns 3", s.Turns)
	}
	if s.Agents != 0 && (s.Agents < 2 || s.Agents > 4) {
		return Inputf("--agents %d: use 0 for a dynamic team (the recruiter decides) or a fixed size from 2 to 4", s.Agents)
	}
	if d := teamwork.DiscussionMode(s.Discussion); d != teamwork.RoundRobin && d != teamwork.Parallel {
		return Inputf("--discussion %q: use %s or %s", s.Discussion, teamwork.RoundRobin, teamwork.Parallel)
	}
	for _, t := range []struct {
		flag string
		v    float64
	}{{"--agent-temperature", s.AgentTemp}, {"--leader-temperature", s.LeaderTemp}} {
		if !(t.v >= 0 && t.v <= 2) { // NaN too: it would reach the plan's JSON
			return Inputf("%s %g: use a temperature from 0 to 2", t.flag, t.v)
		}
	}
	switch s.PromptLayout {
	case "", protocol.LayoutShared, protocol.LayoutSource:
	default:
		return Inputf("--prompt-layout %q: use %s (what every call of a question shares first) or %s (the seeds' and papers' own order)", s.PromptLayout, protocol.LayoutShared, protocol.LayoutSource)
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--peer-chars", s.PeerChars}, {"--max-tokens", s.MaxTokens}, {"--num-ctx", s.NumCtx}, {"--max-item-bytes", s.MaxItemBytes}} {
		if n.v < 0 {
			return Inputf("%s %d: give 0 (no bound / the backend's default) or a positive number", n.flag, n.v)
		}
	}
	return nil
}

// MaxUnits bounds a plan's units (questions × arms × models × repeats; of
// one shard when sharded): a larger plan is refused before anything runs.
// The dry run and a budget's estimate execute every unit on stubs, about a
// thousand units a second on one core, so this bounds them to minutes;
// MedQA's test set (1,273 questions) × 9 arms × 3 models × 5 repeats is
// 172k units.
const MaxUnits = 1_000_000

// MaxRepeats bounds --repeats.
const MaxRepeats = 1000

// checkUnits refuses a plan of more than MaxUnits units, naming its size.
func checkUnits(questions, arms, models, repeats int) error {
	units := float64(questions) * float64(arms) * float64(models) * float64(max(1, repeats)) // no overflow
	if units > MaxUnits {
		return Inputf("the plan has %.0f units (%d questions × %d arms × %d models × %d repeats), more than the %d a plan may have; lower --repeats or --limit, or split it with --shard",
			units, questions, arms, models, repeats, MaxUnits)
	}
	return nil
}

// checkCounts checks the plan's sizes.
func (s Spec) checkCounts() error {
	if s.Repeats < 1 || s.Limit < 0 {
		return Inputf("--repeats must be ≥ 1 and --limit ≥ 0")
	}
	if s.Repeats > MaxRepeats {
		return Inputf("--repeats %d: at most %d repeats of every question × arm", s.Repeats, MaxRepeats)
	}
	if len(s.Datasets) == 0 || len(s.Models) == 0 {
		return Inputf("give at least one --dataset and one --model")
	}
	return nil
}

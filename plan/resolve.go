package plan

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/cache"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/runner"
	"github.com/medteam-bench/medteam/teamwork"
)

// Endpoint is an opened model: its client stack and what the plan and the
// manifest record of it.
type Endpoint struct {
	Ref     results.ModelRef
	Request string // model name sent in requests (without the provider)
	Client  llm.Client
	Sim     bool // the simulator: never a model result
	// Probe checks that the endpoint answers at all (nil for sim): run
	// before the run starts, and by the circuit breaker during an outage.
	Probe runner.Probe
	// Gate is the socket of the retry loop of Client (nil: none), where the
	// run plugs the endpoint's circuit breaker (runner.Model.Attempts).
	Gate  *llm.GateSocket
	Close func()
	// Limits reports the endpoint's limiter (nil: no limiter): attempts,
	// 429s, the cap and the time slots were held.
	Limits func() llm.LimiterStats
	// Spare reports the calls the limiter would let through now beyond
	// those in flight and waiting (nil: the runner does not follow it).
	Spare func() int
}

// Opener opens the endpoint of one model of a plan (provider/name). The
// questions are those of the whole plan (the simulator learns their golds
// from them; a real backend ignores them).
type Opener func(ctx context.Context, model string, s Spec, questions []qa.Question) (*Endpoint, error)

// Resolved is a plan with its inputs loaded and its models opened.
type Resolved struct {
	Spec      Spec
	Arms      []runner.Arm
	Sets      []runner.QuestionSet
	Datasets  []results.DatasetRef
	Endpoints []*Endpoint
	Doc       []byte // the plan document (indented JSON)
	Hash      string // hex SHA-256 of Doc

	fewshot *protocol.Fewshot // --fewshot-file's split (nil: none)
	all     []qa.Question     // every question of Sets, for the openers
}

// Close closes the endpoints.
func (r *Resolved) Close() {
	for _, ep := range r.Endpoints {
		if ep.Close != nil {
			ep.Close()
		}
	}
}

// Simulated reports whether any model is the simulator.
func (r *Resolved) Simulated() bool {
	for _, ep := range r.Endpoints {
		if ep.Sim {
			return true
		}
	}
	return false
}

// Questions is the number of questions of the plan (of this shard).
func (r *Resolved) Questions() int {
	n := 0
	for _, s := range r.Sets {
		n += len(s.Questions)
	}
	return n
}

// Resolve checks s, loads and samples its datasets, opens its models with
// open and builds the plan document. On error nothing stays open.
func Resolve(ctx context.Context, s Spec, open Opener) (*Resolved, error) {
	r, err := Load(s)
	if err != nil {
		return nil, err
	}
	if err := r.Open(ctx, open); err != nil {
		return nil, err
	}
	return r, nil
}

// Load is the first half of Resolve: the spec's arms and questions, with
// no model opened (nothing sent anywhere). Open completes it.
func Load(s Spec) (*Resolved, error) {
	s.Configs = protocol.JoinSpecs(s.Configs) // "debate:3,2" split by --config's commas
	arms, err := s.Arms()
	if err != nil {
		return nil, err
	}
	if err := s.checkCounts(); err != nil {
		return nil, err
	}
	r := &Resolved{Spec: s, Arms: arms}
	if r.fewshot, err = s.fewshot(); err != nil {
		return nil, err
	}
	if s.FewshotAny && r.fewshot == nil {
		return nil, Inputf("--fewshot-any without --fewshot-file: there are no exemplars to show; give --fewshot-file FILE (a training split) or drop --fewshot-any")
	}
	if r.all, err = r.loadSets(); err != nil {
		return nil, err
	}
	if err := checkUnits(len(r.all), len(arms), len(s.Models), s.Repeats); err != nil {
		return nil, err
	}
	return r, nil
}

// Open is the second half of Resolve: it opens every model of a loaded
// plan (an endpoint may be probed) and encodes the plan document. On error
// the endpoints opened are closed.
func (r *Resolved) Open(ctx context.Context, open Opener) error {
	for _, m := range r.Spec.Models {
		ep, err := open(ctx, m, r.Spec, r.all)
		if err != nil {
			r.Close()
			return err
		}
		r.Endpoints = append(r.Endpoints, ep)
	}
	var err error
	if r.Doc, r.Hash, err = r.Document().Encode(); err != nil {
		r.Close()
		return err
	}
	return nil
}

// loadSets loads every dataset of the spec into a question set and returns
// all their questions.
func (r *Resolved) loadSets() ([]qa.Question, error) {
	var all []qa.Question
	seen := map[string]bool{}
	for _, spec := range r.Spec.Datasets {
		qs, dref, err := LoadDataset(spec, r.Spec)
		if err != nil {
			return nil, err
		}
		if err := checkFewshot(r.fewshot, r.Spec.FewshotFile, spec, qs); err != nil {
			return nil, err
		}
		if err := checkFewshotDataset(r.fewshot != nil && !r.Spec.FewshotAny, r.Spec.FewshotFile, spec, qs); err != nil {
			return nil, err
		}
		if seen[dref.Name] {
			dref.Name += "#" + strconv.Itoa(len(r.Sets)+1)
		}
		seen[dref.Name] = true
		set, err := selectQuestions(dref.Name, qs, r.Spec)
		if err != nil {
			return nil, err
		}
		if w := LimitWarning(dref.Name, r.Spec.Limit, len(qs)); w != "" {
			dref.Notes = append(dref.Notes, w)
		}
		dref.Questions, dref.Shard = len(set.Questions), r.Spec.Shard
		r.Sets = append(r.Sets, set)
		r.Datasets = append(r.Datasets, dref)
		all = append(all, set.Questions...)
	}
	return all, nil
}

// Document is the plan document. It carries no credentials (a base URL's
// userinfo is dropped) and nothing machine-specific (dataset files are
// identified by content, not by where they are mounted), so shards on
// different machines and reruns after unrelated commits match.
func (r *Resolved) Document() Doc {
	s := r.Spec
	s.BaseURL = cache.CleanBaseURL(s.BaseURL)
	s.DataDir = ""
	s.RedFlags = ""    // the file is identified by its content (the arms' red_flags_sha256), not where it is
	s.FewshotFile = "" // likewise: by its content (fewshot_sha256)
	sets := make([]results.DatasetRef, len(r.Datasets))
	for i, d := range r.Datasets {
		d.Path, d.Files, d.FileSHA256 = "", nil, nil
		sets[i] = d
	}
	doc := Doc{Spec: s, Datasets: sets, PromptSetHash: teamwork.PromptSetHash(), ProtocolVersion: ProtocolVersion, Arms: ArmRefs(r.Arms),
		ProtocolPrompts: protocolPrompts(r.Arms)}
	if r.fewshot != nil {
		doc.FewshotSHA256 = r.fewshot.SHA256
	}
	if !r.hasTriage() { // red-flag rules touch triage items only: a multiple-choice plan is what it always was
		for i := range doc.Arms {
			doc.Arms[i].RedFlagsSHA256, doc.Arms[i].RedFlags, doc.Arms[i].RedFlagsDevelopedOn = "", "", ""
		}
	}
	for _, ep := range r.Endpoints {
		doc.Models = append(doc.Models, ep.Ref)
	}
	return doc
}

// hasTriage reports whether any question of the plan is a triage item.
func (r *Resolved) hasTriage() bool {
	for _, set := range r.Sets {
		for _, q := range set.Questions {
			if q.Kind == qa.KindTriage {
				return true
			}
		}
	}
	return false
}

// protocolPrompts is the prompt-set hash of each protocol of the arms that
// declares one (teamwork's is the document's prompt_set_hash); nil when
// none does, so a teamwork plan's document is what it always was.
func protocolPrompts(arms []runner.Arm) map[string]string {
	var m map[string]string
	for _, a := range arms {
		if p := a.Protocol.Protocol(); p.Prompts != nil {
			if m == nil {
				m = map[string]string{}
			}
			m[p.Name] = p.Prompts()
		}
	}
	return m
}

// Source turns a dataset value (registry name, file or folder) and the
// format, field-map and data-dir settings into a source.
func Source(spec, format, mapping, dataDir string) (datasets.Source, error) {
	src, err := datasets.Resolve(spec, datasets.DataDir(dataDir))
	if err != nil {
		return src, Inputf("--dataset %s: %v", spec, err)
	}
	if format != "" {
		if src.Format, err = datasets.ParseFormat(format); err != nil {
			return src, Inputf("--format: %v", err)
		}
	}
	if mapping != "" {
		if src.Map, err = datasets.ParseFieldMap(mapping); err != nil {
			return src, Inputf("--map: %v", err)
		}
		if src.Format == datasets.FormatAuto {
			src.Format = datasets.FormatMapped
		}
	}
	return src, nil
}

// LoadDataset reads a dataset (registry name, file or folder) and returns
// its questions and reference.
func LoadDataset(spec string, s Spec) ([]qa.Question, results.DatasetRef, error) {
	src, err := Source(spec, s.Format, s.Map, s.DataDir)
	if err != nil {
		return nil, results.DatasetRef{}, err
	}
	src.Dedupe = s.Dedupe
	if s.Split != "" {
		src.Split = s.Split
	}
	if s.DatasetName != "" {
		src.Dataset = s.DatasetName
	}
	src.MaxItemBytes = s.MaxItemBytes
	res, err := datasets.Load(src, datasets.LoadOptions{SkipInvalid: s.SkipInvalid})
	if se := (*datasets.SplitsError)(nil); errors.As(err, &se) {
		return nil, results.DatasetRef{}, Inputf("--dataset %s: %v", spec, err)
	}
	if err != nil {
		return nil, results.DatasetRef{}, &InputError{fmt.Errorf("%w\n(fix the file, or pass --skip-invalid to run the valid items and record the rest)", err)}
	}
	qs := res.Questions
	if len(qs) == 0 {
		return nil, results.DatasetRef{}, noQuestions(spec, res) // before any run directory exists
	}
	ref := results.DatasetRef{Name: spec, Path: src.Path, Questions: len(qs), Format: string(res.Format), Files: res.Files,
		Records: res.Valid, Skipped: res.Skipped, Notes: res.Notes, DuplicatesCollapsed: res.DuplicatesCollapsed,
		DuplicatesKept: res.DuplicatesKept, PaddingOptionsDropped: res.PaddingDropped}
	if res.Skipped > 0 {
		ref.SkipReasons = res.Reasons
	}
	if qs[0].Dataset != "" && spec != datasets.SampleName {
		ref.Name = qs[0].Dataset
	}
	if src.Embedded() {
		ref.Embedded, ref.SHA256 = true, datasets.SampleSHA256() // sha256sum of the embedded file
	} else if ref.SHA256, ref.FileSHA256, err = results.DatasetSHA256(src.Path, res.Files); err != nil {
		return nil, ref, err
	}
	return qs, ref, nil
}

// LimitWarning is the warning for a --limit beyond the dataset's size (all
// of its questions are used), "" otherwise.
func LimitWarning(dataset string, limit, n int) string {
	if limit <= n {
		return ""
	}
	return fmt.Sprintf("--limit %d is more than the %d questions of %s: all %d are used", limit, n, dataset, n)
}

// selectQuestions applies the plan's sampling, option shuffling and shard to
// a loaded set.
func selectQuestions(name string, qs []qa.Question, s Spec) (runner.QuestionSet, error) {
	if s.Stratify != "" && s.Limit > 0 {
		qs = datasets.StratifiedLimit(qs, s.Limit, s.SampleSeed, s.Stratify)
	} else {
		qs = datasets.Limit(qs, s.Limit, s.SampleSeed)
	}
	if s.ShuffleOptions {
		for i := range qs {
			qs[i], _ = datasets.ShuffleOptions(qs[i], s.SampleSeed)
		}
	}
	set := runner.QuestionSet{Name: name, Questions: qs}
	if s.Shard == "" {
		return set, nil
	}
	i, n, err := datasets.ParseShard(s.Shard)
	if err != nil {
		return set, Inputf("--shard: %v", err)
	}
	set.Total = len(qs)
	set.Questions = nil
	for k, q := range qs {
		if datasets.InShard(q.ID, i, n) {
			set.Questions = append(set.Questions, q)
			set.Index = append(set.Index, k)
		}
	}
	return set, nil
}

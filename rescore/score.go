package rescore

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// Arm labels of a rescored run: medteam's reading, and the published
// extraction with the publishers' random fill.
const (
	ArmMedteam   = "medteam"
	ArmPublished = "published"
	Protocol     = "rescore"
)

// publishedFill is MMLU-Pro's random fill: where its regex found no letter
// (pred null), its scripts (run_gpt4o.py, run_deepseek.py,
// evaluate_from_api.py: update_result / save_res) score the option
// random.seed(12345); random.randint(0, len(options) - 1) — the same draw
// every time, so a fixed option for each number of options. The table is
// that draw for 1 to 10 options, computed with CPython's random module
// (Mersenne Twister seeded from 12345; randint via getrandbits rejection
// sampling), as 0-based option indexes.
var publishedFill = [...]int{1: 0, 2: 1, 3: 1, 4: 3, 5: 3, 6: 3, 7: 3, 8: 6, 9: 6, 10: 6}

// PublishedFill is the letter MMLU-Pro's scorer counts for a reply it could
// not read, on a question of n options; "" beyond 10 options (MMLU-Pro has
// at most 10).
func PublishedFill(n int) string {
	if n < 1 || n >= len(publishedFill) {
		return ""
	}
	return string(rune('A' + publishedFill[n]))
}

// Scored is a record read both ways.
type Scored struct {
	Record
	Medteam string // medteam's reading; "" when it abstained
	Reason  string // medteam's abstention reason
	Method  answer.Method
	Notes   []string
	// Published is the letter the published scorer counts: its extraction,
	// or its random fill (Filled) when it extracted none.
	Published string
	Filled    bool
}

// Agree reports whether medteam's reading equals the published extraction
// (a fill counts as no extraction). A withheld reply agrees: medteam did
// not read it, so there is nothing to compare.
func (s Scored) Agree() bool {
	if s.Withheld {
		return true
	}
	if s.Filled || !s.HasPred {
		return s.Medteam == "" && s.Pred == ""
	}
	return s.Medteam == s.Pred
}

// Score reads each record's reply with medteam's parser and sets the
// published letter. A record without a published extraction field is
// scored by medteam only (Published "").
func Score(recs []Record) []Scored {
	out := make([]Scored, len(recs))
	for i, r := range recs {
		opts := make([]answer.Option, len(r.Options))
		for j, o := range r.Options {
			opts[j] = answer.Option{Letter: string(rune('A' + j)), Text: o}
		}
		a := answer.Parse(r.Response, opts)
		if r.Withheld {
			a = answer.Answer{Method: answer.MethodNone, Reason: ReasonWithheld}
		}
		s := Scored{Record: r, Medteam: a.First(), Reason: a.Reason, Method: a.Method, Notes: a.Notes}
		if r.HasPred {
			s.Published = r.Pred
			if s.Published == "" {
				s.Published, s.Filled = PublishedFill(len(r.Options)), true
			}
		}
		out[i] = s
	}
	return out
}

// Run is what the rows of a rescored run share.
type Run struct {
	RunID   string
	Dataset string // the dataset name of the rows ("mmlu-pro")
	Split   string
	Model   string // the model when a record names none
}

// QuestionID is a record's id in the rows: the content id medteam's loader
// gives the question (datasets.ContentID) when the record keeps its stem,
// so the rows pair with a medteam run on the same dataset; else the
// dataset and the published id ("mmlu-pro:6001").
func (r Run) QuestionID(rec Record) string {
	if strings.TrimSpace(rec.Question) != "" {
		opts := make([]qa.Option, len(rec.Options))
		for i, o := range rec.Options {
			opts[i] = qa.Option{Letter: string(rune('A' + i)), Text: o}
		}
		return datasets.ContentID(r.Dataset, rec.Question, nil, opts)
	}
	return r.Dataset + ":" + rec.ID
}

// ModelOf is a record's model.
func (r Run) ModelOf(rec Record) string {
	if rec.Model != "" {
		return rec.Model
	}
	return r.Model
}

// Rows builds the questions.parquet rows: one per record and arm (medteam;
// published, when the record has a published extraction). A duplicate
// (model, question id) is an error naming both places.
func (r Run) Rows(scored []Scored) ([]results.QuestionRow, error) {
	seen := map[string]Record{}
	var rows []results.QuestionRow
	ids := r.QuestionIDs(scored)
	for i, s := range scored {
		model := r.ModelOf(s.Record)
		if model == "" {
			return nil, fmt.Errorf("%s:%d: the record names no model; give --model-name", s.File, s.Line)
		}
		qid := ids[i]
		key := model + "\x00" + qid
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s:%d: question %s of model %s again (first at %s:%d); keep one reply per question and model",
				s.File, s.Line, s.ID, model, prev.File, prev.Line)
		}
		seen[key] = s.Record
		base := results.QuestionRow{
			SchemaVersion: results.SchemaVersion, RunID: r.RunID, Dataset: r.Dataset, Split: r.Split,
			QuestionID: qid, SourceID: s.ID, Protocol: Protocol, Discussion: "", AgentPolicy: "fixed:1",
			Model: model, Gold: s.Gold, NOptions: int32(len(s.Options)), Subject: s.Category,
			NAgents: 1, ConfidenceMean: -1, Tries: 1, PredictedRank: -1, UrgencyRank: -1,
		}
		meta := map[string]any{"file": s.File, "line": s.Line, "published_id": s.ID}
		if s.Dropped > 0 {
			meta["padding_options_dropped"] = s.Dropped
		}
		if s.HasPred {
			meta["published_pred"] = s.Pred
		}
		if s.Withheld {
			meta["withheld"] = true
		}
		med := base
		med.Arm, med.DecisionRule = ArmMedteam, "answer.Parse of the published reply"
		med.Predicted, med.Correct = s.Medteam, s.Medteam != "" && s.Medteam == s.Gold
		med.Abstained, med.AbstainReason = s.Medteam == "", s.Reason
		med.MetaJSON = metaJSON(meta, "parse_method", string(s.Method), "parse_notes", s.Notes)
		rows = append(rows, med)
		if !s.HasPred {
			continue
		}
		pub := base
		pub.Arm, pub.DecisionRule = ArmPublished, "published extraction; MMLU-Pro's random fill where it found none"
		pub.Predicted, pub.Correct = s.Published, s.Published == s.Gold
		pub.MetaJSON = metaJSON(meta, "published_fill", s.Filled)
		rows = append(rows, pub)
	}
	return rows, nil
}

func metaJSON(base map[string]any, kv ...any) string {
	m := make(map[string]any, len(base)+len(kv)/2)
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m) // keys sorted
	return string(b)
}

// ModelSummary is one model's scores both ways.
type ModelSummary struct {
	Model                string
	N                    int
	Published, Filled    int // correct by the published scorer; its random fills
	PublishedN           int // records with a published extraction field
	Medteam, Abstained   int // correct by medteam's reading; its abstentions
	Withheld             int // abstentions on a withheld reply (reason withheld)
	Disagree             int // medteam's reading differs from the published extraction
	FillHits             int // fills that hit the gold
	ExtractedOnlyCorrect int // published extraction correct, fills not counted
}

// Summaries sums the scored records per model, in model order.
func (r Run) Summaries(scored []Scored) []ModelSummary {
	by := map[string]*ModelSummary{}
	for _, s := range scored {
		m := r.ModelOf(s.Record)
		ms := by[m]
		if ms == nil {
			ms = &ModelSummary{Model: m}
			by[m] = ms
		}
		ms.N++
		if s.Withheld {
			ms.Withheld++
		}
		if s.Medteam == "" {
			ms.Abstained++
		} else if s.Medteam == s.Gold {
			ms.Medteam++
		}
		if !s.HasPred {
			continue
		}
		ms.PublishedN++
		if s.Published == s.Gold {
			ms.Published++
			if s.Filled {
				ms.FillHits++
			} else {
				ms.ExtractedOnlyCorrect++
			}
		}
		if s.Filled {
			ms.Filled++
		}
		if !s.Agree() {
			ms.Disagree++
		}
	}
	out := make([]ModelSummary, 0, len(by))
	for _, ms := range by {
		out = append(out, *ms)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// Items builds the items.parquet rows: the text of each question whose
// record keeps its stem, once per question however many models answered
// it, in the order the questions first appear. Records without a stem
// give none (the viewer then says the text was not recorded).
func (r Run) Items(scored []Scored) []results.ItemRow {
	seen := map[string]bool{}
	var items []results.ItemRow
	ids := r.QuestionIDs(scored)
	for i, s := range scored {
		if strings.TrimSpace(s.Question) == "" {
			continue
		}
		qid := ids[i]
		if seen[qid] {
			continue
		}
		seen[qid] = true
		items = append(items, results.ItemRow{
			SchemaVersion: results.SchemaVersion, Dataset: r.Dataset, Split: r.Split, QuestionID: qid, SourceID: s.ID,
			Stem: s.Question, Options: s.Options, Gold: s.Gold, Subject: s.Category, MetaJSON: "{}",
		})
	}
	return items
}

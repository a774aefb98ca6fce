package rescore

import (
	"fmt"
	"strconv"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/qa"
	"github.com/medteam-bench/medteam/results"
)

// MABDecisionRule is the decision rule of a MedAgentsBench row.
const MABDecisionRule = "MedAgentsBench's predicted_answer == answer_idx (its scorer's rule)"

// mabDataset is the dataset a MedAgentsBench task is a copy of: the name
// medteam's loader gives its questions with --dataset-name (the task).
func mabDataset(task string) string { return task }

// MABQuestionIDs are the question ids of a file's records: the content id
// medteam's loader gives the question of MedAgentsBench's data/<task>/
// test_hard.jsonl with --dataset-name <task> (datasets.ContentID of the
// stem and options), so that the rows pair with a medteam run on that file.
// A content duplicate (two realidx, the same question) gets the loader's
// "~realidx" on every copy but the one of the smallest realidx (the data
// files are in realidx order and the loader marks the later copies).
func MABQuestionIDs(f MABFile) []string {
	ids := make([]string, len(f.Records))
	first := map[string]int{}
	for i, r := range f.Records {
		opts := make([]qa.Option, len(r.Options))
		for j, o := range r.Options {
			opts[j] = qa.Option{Letter: string(rune('A' + j)), Text: o}
		}
		ids[i] = datasets.ContentID(mabDataset(f.Task), r.Stem, nil, opts)
		if j, ok := first[ids[i]]; !ok || idxLess(r.RealIdx, f.Records[j].RealIdx) {
			first[ids[i]] = i
		}
	}
	for i, r := range f.Records {
		if first[ids[i]] != i {
			ids[i] += "~" + r.RealIdx
		}
	}
	return ids
}

// idxLess orders realidx values as numbers when both are, else as text.
func idxLess(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}

// MABRows builds the questions.parquet rows of a file: one per kept
// record, arm = the method, model = the file's model, protocol rescore.
// A record's own cost (AFlow, SPO) goes into protocol_json as cost_usd, which
// the report's cost uses instead of the tokens (as the publishers'
// calculate_cost_from_token_usage does).
func (r Run) MABRows(f MABFile) []results.QuestionRow {
	ids := MABQuestionIDs(f)
	rows := make([]results.QuestionRow, len(f.Records))
	for i, rec := range f.Records {
		row := results.QuestionRow{
			SchemaVersion: results.SchemaVersion, RunID: r.RunID, Dataset: mabDataset(f.Task), Split: f.Split,
			QuestionID: ids[i], SourceID: rec.RealIdx, Arm: f.Method, Protocol: Protocol, AgentPolicy: "published",
			Model: f.Model, Gold: rec.Gold, NOptions: int32(len(rec.Options)), Subject: "",
			ConfidenceMean: -1, Tries: 1, PredictedRank: -1, UrgencyRank: -1, DecisionRule: MABDecisionRule,
			Route: rec.Route, WallMS: 1000 * rec.Seconds,
		}
		row.Correct = rec.Hit()
		row.Predicted, row.AbstainReason = mabPredicted(rec)
		row.Abstained = row.Predicted == ""
		if rec.HasUsage {
			row.PromptTokens, row.CompletionTokens = rec.Prompt, rec.Completion
			row.PaidPromptTokens, row.PaidCompletionTokens = rec.Prompt, rec.Completion
			row.CallsCachedUnreported = 1 // published records give no cached count: unknown, not 0
		} else if !rec.HasCost {
			row.CallsUsageMissing = 1
		}
		if rec.HasCost {
			row.ProtocolJSON = metaJSON(nil, "cost_usd", rec.Cost)
		}
		meta := map[string]any{"file": f.Path, "line": rec.Line, "realidx": rec.RealIdx, "method": f.Method}
		if rec.Stem != rec.Question {
			meta["question_had_options_appended"] = true
		}
		row.MetaJSON = metaJSON(meta, "predicted_answer", rec.Pred, "predicted_answer_state", rec.PredState)
		rows[i] = row
	}
	return rows
}

// mabPredicted is the row's predicted letter: predicted_answer when it is
// one of the options' letters; else none, with the reason (the record is
// scored wrong, as in the publishers' equality).
func mabPredicted(rec MABRecord) (string, string) {
	switch {
	case rec.PredState == "missing":
		return "", "no predicted_answer in the published record"
	case rec.PredState == "null":
		return "", "predicted_answer is null (NaN) in the published record"
	case rec.Pred == "":
		return "", "predicted_answer is empty in the published record"
	}
	if len(rec.Pred) == 1 && rec.Pred[0] >= 'A' && int(rec.Pred[0]-'A') < len(rec.Options) {
		return rec.Pred, ""
	}
	if rec.Hit() { // the recorded gold is written the same way ("c" for "c")
		return rec.Gold, ""
	}
	return "", fmt.Sprintf("predicted_answer %q is not an option letter", clip(rec.Pred))
}

// MABItems builds the items.parquet rows: each question's stem, options and
// gold once, in the order the files give them.
func (r Run) MABItems(files []MABFile) []results.ItemRow {
	seen := map[string]bool{}
	var items []results.ItemRow
	for _, f := range files {
		for i, id := range MABQuestionIDs(f) {
			rec := f.Records[i]
			if seen[id] || rec.Stem == "" {
				continue
			}
			seen[id] = true
			items = append(items, results.ItemRow{
				SchemaVersion: results.SchemaVersion, Dataset: mabDataset(f.Task), Split: f.Split, QuestionID: id, SourceID: rec.RealIdx,
				Stem: rec.Stem, Options: rec.Options, Gold: rec.Gold, MetaJSON: "{}",
			})
		}
	}
	return items
}

// MABSummary is one file's score by the publishers' rules.
type MABSummary struct {
	Task, Model, Method string
	N, Correct, Dropped int
	NoPrediction        int // null, NaN, empty or missing predicted_answer
	NotALetter          int // predicted_answer that is no option letter
	PromptTokens        int64
	CompletionTokens    int64
	Costed              int // records with their own cost
	Seconds             float64
}

// Summarize scores a file as the publishers' calculate_accuracy does.
func SummarizeMAB(f MABFile) MABSummary {
	s := MABSummary{Task: f.Task, Model: f.Model, Method: f.Method, N: len(f.Records), Dropped: f.Dropped}
	for _, rec := range f.Records {
		if rec.Hit() {
			s.Correct++
		}
		p, _ := mabPredicted(rec)
		switch {
		case rec.PredState != "" || rec.Pred == "":
			s.NoPrediction++
		case p == "":
			s.NotALetter++
		}
		s.PromptTokens += rec.Prompt
		s.CompletionTokens += rec.Completion
		if rec.HasCost {
			s.Costed++
		}
		s.Seconds += rec.Seconds
	}
	return s
}

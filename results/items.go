package results

import (
	"fmt"
	"os"
	"path/filepath"
)

// ItemsFile is the run directory's table of question texts (ItemRow).
const ItemsFile = "items.parquet"

// ItemRow is one row of items.parquet: one question of a run as the models
// were shown it (after --shuffle-options), kept once however many arms,
// models and repeats answered it, so a reader can see what was asked without
// --transcripts. It joins questions.parquet on (dataset, question_id).
// Added beside schema version 5: a run directory written before it has no
// items.parquet, and a reader treats the file as optional.
//
// The gold is here because this is the run's record, read after the run;
// it is written by the runner and the exporters from the dataset, never
// from anything a protocol was given (a protocol sees qa.Item, which has
// no gold).
type ItemRow struct {
	SchemaVersion int32  `parquet:"schema_version"`
	Dataset       string `parquet:"dataset"` // the dataset's name in the plan, as in questions.parquet
	Split         string `parquet:"split"`
	QuestionID    string `parquet:"question_id"`
	SourceID      string `parquet:"source_id"`
	ItemKind      string `parquet:"item_kind"` // "" (multiple choice) | triage
	Stem          string `parquet:"stem"`
	// Context holds passages shown before the question (PubMedQA's
	// abstract), in order.
	Context []string `parquet:"context,list"`
	// Options are the option texts in letter order: Options[0] is A.
	Options  []string `parquet:"options,list"`
	Gold     string   `parquet:"gold"`      // the correct letter ("" on a triage item)
	Subject  string   `parquet:"subject"`   // as in questions.parquet
	MetaJSON string   `parquet:"meta_json"` // all item metadata as a JSON object
}

// ItemKey is the key of an item: its dataset and question id.
func ItemKey(dataset, questionID string) string { return dataset + "\x00" + questionID }

// Key returns the item's ItemKey.
func (r *ItemRow) Key() string { return ItemKey(r.Dataset, r.QuestionID) }

// OptionLetter is the letter of the option at index i (A for 0).
func OptionLetter(i int) string { return string(rune('A' + i)) }

// WriteItems writes items.parquet rows to path atomically.
func WriteItems(path string, rows []ItemRow) error { return WriteFile(path, rows) }

// ReadItems reads the items.parquet of a run directory. A directory
// without one (a run written before the file existed, or a rescore of
// files that keep no question text) gives no rows and ok false.
func ReadItems(dir string) (rows []ItemRow, ok bool, err error) {
	path := filepath.Join(dir, ItemsFile)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return nil, false, nil
	}
	rows, err = ReadFile[ItemRow](path)
	if err != nil {
		return nil, false, fmt.Errorf("%w (the question texts; delete %s to open the run without them)", err, path)
	}
	return rows, true, nil
}

package view

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/medteam-bench/medteam/results"
)

// Status of one arm on one question, as the grid shows and filters it.
const (
	StatusCorrect   = "correct"
	StatusWrong     = "wrong"
	StatusAbstained = "abstained"
	StatusError     = "error"
)

// status classifies a question row: an error first (it has no answer), then
// an abstention, then correct or wrong.
func status(r *results.QuestionRow) string {
	switch {
	case r.Error != "":
		return StatusError
	case r.Abstained:
		return StatusAbstained
	case r.Correct:
		return StatusCorrect
	default:
		return StatusWrong
	}
}

// Arm is one column of the grid: an arm of one run.
type Arm struct {
	Label string `json:"label"` // the arm, or RUN:ARM when several runs are viewed
	Run   int    `json:"run"`
	Arm   string `json:"arm"`
}

// Cell is one arm's result on one grid line ("" status: the arm has no row).
type Cell struct {
	S string `json:"s"`           // correct | wrong | abstained | error | ""
	P string `json:"p,omitempty"` // predicted
}

// Line is one grid line: a question × repeat, with a cell per arm.
type Line struct {
	ID       int      `json:"id"` // position in the unfiltered grid; names the question in the API and the export
	Q        string   `json:"q"`  // question id
	Rep      int32    `json:"rep"`
	Dataset  string   `json:"dataset"`
	Subject  string   `json:"subject,omitempty"`
	Gold     string   `json:"gold"`
	Stem     string   `json:"stem,omitempty"` // the start of the question's text (excerpt), when the run kept it
	Cells    []Cell   `json:"cells"`
	Disagree bool     `json:"disagree"`
	Phases   []string `json:"phases,omitempty"` // phases of the line's calls (filled once calls.parquet is indexed)

	rows []rowRef // per arm: where its question row is (run -1: none)
}

type rowRef struct{ run, row int }

// Run is one run directory, its question rows in memory and an index of its
// calls.parquet (built on first use, texts never held).
type Run struct {
	Name string
	Dir  string
	Rows []results.QuestionRow
	// Items are the question texts by results.ItemKey (items.parquet);
	// nil when the run kept none.
	Items map[string]*results.ItemRow

	// callsFile is calls.parquet as opened with questions.parquet (nil: no
	// such file then). Every read goes through this handle, so a run
	// rewritten while it is viewed (a new file renamed over the path) is
	// never read at the old file's offsets: the viewer keeps its snapshot.
	callsFile *os.File

	once  sync.Once
	calls *callIndex
	err   error
}

// Close releases the run's open calls.parquet.
func (r *Run) Close() error {
	if r.callsFile == nil {
		return nil
	}
	return r.callsFile.Close()
}

// callKey is the part of a calls.parquet row the index reads: no texts.
type callKey struct {
	QuestionID string `parquet:"question_id"`
	Arm        string `parquet:"arm"`
	Repeat     int32  `parquet:"repeat"`
	Phase      string `parquet:"phase"`
}

// callIndex maps a unit (arm, question, repeat) to its rows in calls.parquet.
type callIndex struct {
	rows        map[string][]int64
	phases      map[string][]string // per unit, in first-seen order
	transcripts bool                // the run kept prompts and replies (--transcripts)
	present     bool                // calls.parquet exists
}

func unitKey(arm, q string, rep int32) string {
	return arm + "\x00" + q + "\x00" + strconv.Itoa(int(rep))
}

// transcriptProbe is how many of the first call rows are read in full to
// learn whether the run kept its texts.
const transcriptProbe = 64

// index builds (once) the call index of the run.
func (r *Run) index() (*callIndex, error) {
	r.once.Do(func() { r.calls, r.err = buildIndex(r.callsPath(), r.callsFile) })
	return r.calls, r.err
}

func (r *Run) callsPath() string { return filepath.Join(r.Dir, results.CallsFile) }

// buildIndex indexes the open calls.parquet f (nil: the run has none).
func buildIndex(path string, f *os.File) (*callIndex, error) {
	ix := &callIndex{rows: map[string][]int64{}, phases: map[string][]string{}}
	if f == nil {
		return ix, nil
	}
	ix.present = true
	var n int64
	err := results.ScanOpen(path, f, func(i int64, c *callKey) error {
		k := unitKey(c.Arm, c.QuestionID, c.Repeat)
		ix.rows[k] = append(ix.rows[k], i)
		if !slices.Contains(ix.phases[k], c.Phase) {
			ix.phases[k] = append(ix.phases[k], c.Phase)
		}
		n = i + 1
		return nil
	})
	if err != nil {
		return nil, err
	}
	probe := make([]int64, min(n, transcriptProbe))
	for i := range probe {
		probe[i] = int64(i)
	}
	rows, err := results.ReadRowsAtOpen[results.CallRow](path, f, probe)
	if err != nil {
		return nil, err
	}
	for _, c := range rows {
		if c.Prompt != "" || c.Response != "" {
			ix.transcripts = true
			break
		}
	}
	return ix, nil
}

// calls reads the calls of one unit from calls.parquet, in the protocol's
// order (try, then seq).
func (r *Run) callsOf(arm, q string, rep int32) ([]results.CallRow, error) {
	ix, err := r.index()
	if err != nil {
		return nil, err
	}
	rows, err := results.ReadRowsAtOpen[results.CallRow](r.callsPath(), r.callsFile, ix.rows[unitKey(arm, q, rep)])
	if err != nil {
		return nil, err
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].UnitTry != rows[j].UnitTry {
			return rows[i].UnitTry < rows[j].UnitTry
		}
		return rows[i].Seq < rows[j].Seq
	})
	return rows, nil
}

// OpenRun reads a run directory's questions.parquet (a path to the file
// itself is accepted too) and opens its calls.parquet, read later on
// demand from that handle; Close releases it.
func OpenRun(path string) (*Run, error) {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	qp := filepath.Join(dir, results.QuestionsFile)
	if _, err := os.Stat(qp); err != nil {
		return nil, fmt.Errorf("%s: no %s (give a run directory of medteam run; 'medteam export %s' writes it from the journal)", path, results.QuestionsFile, dir)
	}
	cf, err := openCalls(filepath.Join(dir, results.CallsFile))
	if err != nil {
		return nil, err
	}
	rows, err := results.ReadQuestions(qp)
	if err == nil {
		var items []results.ItemRow
		var ok bool
		if items, ok, err = results.ReadItems(dir); err == nil {
			return newRun(dir, cf, rows, items, ok), nil
		}
	}
	if cf != nil {
		_ = cf.Close()
	}
	return nil, err
}

// openCalls opens calls.parquet; nil without error when there is none.
func openCalls(path string) (*os.File, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (check the file's permissions)", path, err)
	}
	return f, nil
}

func newRun(dir string, cf *os.File, rows []results.QuestionRow, items []results.ItemRow, ok bool) *Run {
	r := &Run{Name: filepath.Base(filepath.Clean(dir)), Dir: dir, Rows: rows, callsFile: cf}
	if ok {
		r.Items = make(map[string]*results.ItemRow, len(items))
		for i := range items {
			r.Items[items[i].Key()] = &items[i]
		}
	}
	return r
}

// Data is what the viewer shows: the runs, the arm columns and the grid.
type Data struct {
	Runs     []*Run
	Arms     []Arm
	Lines    []Line
	Subjects []string

	byQuestion map[string][]int // results.ItemKey → the question's lines (one per repeat)

	phasesOnce sync.Once
	phases     []string
	phasesErr  error
}

// NewData lays out the grid of the runs: one column per (run, arm) in the
// order the arms first appear, one line per (question, repeat) in the order
// the questions first appear.
func NewData(runs []*Run) *Data {
	d := &Data{Runs: runs, byQuestion: map[string][]int{}}
	col := d.columns()
	line := map[string]int{}
	subjects := map[string]bool{}
	for ri, r := range runs {
		for i := range r.Rows {
			q := &r.Rows[i]
			lk := q.Dataset + "\x00" + q.QuestionID + "\x00" + strconv.Itoa(int(q.Repeat))
			li, ok := line[lk]
			if !ok {
				li = len(d.Lines)
				line[lk] = li
				d.Lines = append(d.Lines, Line{ID: li, Q: q.QuestionID, Rep: q.Repeat, Dataset: q.Dataset,
					Subject: q.Subject, Gold: q.Gold})
			}
			l := &d.Lines[li]
			if l.Cells == nil {
				l.Cells = make([]Cell, len(d.Arms))
				l.rows = make([]rowRef, len(d.Arms))
				for k := range l.rows {
					l.rows[k] = rowRef{run: -1}
				}
			}
			c := col[[2]string{strconv.Itoa(ri), q.Arm}]
			l.Cells[c] = Cell{S: status(q), P: q.Predicted}
			l.rows[c] = rowRef{run: ri, row: i}
			if q.Subject != "" {
				subjects[q.Subject] = true
			}
		}
	}
	for i := range d.Lines {
		l := &d.Lines[i]
		l.Disagree = disagree(l.Cells)
		ik := results.ItemKey(l.Dataset, l.Q)
		d.byQuestion[ik] = append(d.byQuestion[ik], i)
		if it := d.item(i); it != nil {
			l.Stem = excerpt(it.Stem)
		}
	}
	for s := range subjects {
		d.Subjects = append(d.Subjects, s)
	}
	sort.Strings(d.Subjects)
	return d
}

// columns lays out the arm columns: one per (run, arm) in the order the
// arms first appear; it returns the column of each.
func (d *Data) columns() map[[2]string]int {
	col := map[[2]string]int{}
	for ri, r := range d.Runs {
		for i := range r.Rows {
			q := &r.Rows[i]
			ck := [2]string{strconv.Itoa(ri), q.Arm}
			if _, ok := col[ck]; !ok {
				label := q.Arm
				if len(d.Runs) > 1 {
					label = r.Name + ":" + q.Arm
				}
				col[ck] = len(d.Arms)
				d.Arms = append(d.Arms, Arm{Label: label, Run: ri, Arm: q.Arm})
			}
		}
	}
	return col
}

// disagree reports whether the arms that answered (no error, row present)
// gave different answers; an abstention counts as an answer of its own.
func disagree(cells []Cell) bool {
	first, seen := "", false
	for _, c := range cells {
		if c.S == "" || c.S == StatusError {
			continue
		}
		p := c.P
		if c.S == StatusAbstained {
			p = "\x00abstained"
		}
		if !seen {
			first, seen = p, true
		} else if p != first {
			return true
		}
	}
	return false
}

// Phases indexes every run's calls (once) and fills each line's phases; it
// returns every phase seen, sorted.
func (d *Data) Phases() ([]string, error) {
	d.phasesOnce.Do(func() {
		all := map[string]bool{}
		for _, r := range d.Runs {
			if _, err := r.index(); err != nil {
				d.phasesErr = err
				return
			}
		}
		for i := range d.Lines {
			l := &d.Lines[i]
			var ph []string
			for c, ref := range l.rows {
				if ref.run < 0 {
					continue
				}
				r := d.Runs[ref.run]
				for _, p := range r.calls.phases[unitKey(d.Arms[c].Arm, l.Q, l.Rep)] {
					if !slices.Contains(ph, p) {
						ph = append(ph, p)
					}
					all[p] = true
				}
			}
			l.Phases = ph
		}
		for p := range all {
			d.phases = append(d.phases, p)
		}
		sort.Strings(d.phases)
	})
	return d.phases, d.phasesErr
}

// Filter selects grid lines. The zero value selects every line.
type Filter struct {
	Status   string // correct | wrong | abstained | error | "" (any)
	Arm      int    // the arm column Status applies to; -1: any arm
	Disagree bool   // only lines where the arms disagree
	Subject  string
	Phase    string // only lines with a call in this phase (needs Phases first)
	Query    string // substring of the question id
}

// Match reports whether a line passes the filter.
func (f Filter) Match(l *Line) bool {
	if f.Status != "" {
		hit := false
		for c, cell := range l.Cells {
			if (f.Arm < 0 || f.Arm == c) && cell.S == f.Status {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	if f.Disagree && !l.Disagree {
		return false
	}
	if f.Subject != "" && l.Subject != f.Subject {
		return false
	}
	if f.Phase != "" && !slices.Contains(l.Phases, f.Phase) {
		return false
	}
	if f.Query != "" && !containsFold(l.Q, f.Query) {
		return false
	}
	return true
}

func containsFold(s, sub string) bool {
	return len(sub) == 0 || indexFold(s, sub) >= 0
}

func indexFold(s, sub string) int {
	ls, lsub := []rune(s), []rune(sub)
	for i := 0; i+len(lsub) <= len(ls); i++ {
		ok := true
		for j := range lsub {
			if toLower(ls[i+j]) != toLower(lsub[j]) {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

func toLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// Page is one page of filtered grid lines.
type Page struct {
	Total  int    `json:"total"`  // lines passing the filter
	All    int    `json:"all"`    // lines in the grid
	Offset int    `json:"offset"` // of the first line returned, among those passing
	Lines  []Line `json:"lines"`
}

// Select returns the lines passing f, from offset, at most limit of them.
func (d *Data) Select(f Filter, offset, limit int) Page {
	p := Page{All: len(d.Lines), Offset: offset, Lines: []Line{}}
	for i := range d.Lines {
		if !f.Match(&d.Lines[i]) {
			continue
		}
		if p.Total >= offset && len(p.Lines) < limit {
			p.Lines = append(p.Lines, d.Lines[i])
		}
		p.Total++
	}
	return p
}

// ArmDetail is one arm's record of a question: its question row and its
// calls in order.
type ArmDetail struct {
	Arm         int                  `json:"arm"` // column index
	Row         *results.QuestionRow `json:"row"` // nil: the arm has no row for this question
	Calls       []results.CallRow    `json:"calls"`
	Transcripts bool                 `json:"transcripts"` // the run kept prompts and replies
	CallsFile   bool                 `json:"calls_file"`  // the run has calls.parquet
	Shown       *Shown               `json:"shown"`       // the row's numbers rounded as the report rounds them (nil without a row)
}

// Question is a line's full record: the question's text (when the run
// kept it), every arm's answer over the repeats, and the details of the
// arms asked for.
type Question struct {
	Line     Line             `json:"line"`
	Item     *results.ItemRow `json:"item"`                // nil: the run kept no text (ItemNote says so)
	ItemNote string           `json:"item_note,omitempty"` // why there is no text and how to get it
	Answers  []Answer         `json:"answers"`
	Arms     []ArmDetail      `json:"arms"`
}

// Question returns line id's record for the given arm columns (all when
// arms is empty).
func (d *Data) Question(id int, arms []int) (*Question, error) {
	if id < 0 || id >= len(d.Lines) {
		return nil, fmt.Errorf("no question %d (the grid has %d lines)", id, len(d.Lines))
	}
	l := d.Lines[id]
	if len(arms) == 0 {
		for c := range d.Arms {
			arms = append(arms, c)
		}
	}
	q := &Question{Line: l, Item: d.item(id), Answers: d.answers(id), Arms: []ArmDetail{}}
	if q.Item == nil {
		q.ItemNote = NoItemNote
	}
	for _, c := range arms {
		if c < 0 || c >= len(d.Arms) {
			return nil, fmt.Errorf("no arm column %d (there are %d)", c, len(d.Arms))
		}
		ad := ArmDetail{Arm: c, Calls: []results.CallRow{}}
		if ref := l.rows[c]; ref.run >= 0 {
			r := d.Runs[ref.run]
			ad.Row = &r.Rows[ref.row]
			ix, err := r.index()
			if err != nil {
				return nil, err
			}
			ad.Transcripts, ad.CallsFile = ix.transcripts, ix.present
			if ix.present {
				calls, err := r.callsOf(d.Arms[c].Arm, l.Q, l.Rep)
				if err != nil {
					return nil, err
				}
				ad.Calls = calls
			}
			sh := shown(ad.Row, ad.Calls)
			ad.Shown = &sh
		}
		q.Arms = append(q.Arms, ad)
	}
	return q, nil
}

// Close releases every run's open calls.parquet.
func (d *Data) Close() error {
	var errs []error
	for _, r := range d.Runs {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// Transcripts reports, once every run is indexed, which runs kept no texts.
func (d *Data) Transcripts() (without []string, err error) {
	for _, r := range d.Runs {
		ix, err := r.index()
		if err != nil {
			return nil, err
		}
		if !ix.transcripts {
			without = append(without, r.Name)
		}
	}
	return without, nil
}

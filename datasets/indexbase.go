package datasets

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// IndexBase says how integer answers count options: MedMCQA's cop and
// integer answers of mapped files.
type IndexBase int

const (
	// IndexAuto decides per file from the data: if any answer is 0 the file
	// counts from 0; if any answer equals the number of options it counts
	// from 1; if both occur the file is refused. When neither occurs the
	// default is 1 for MedMCQA JSON (the original release counts cop 1–4)
	// and 0 for MedMCQA parquet (HF exports store cop as a 0–3 class label)
	// and for mapped files.
	IndexAuto IndexBase = iota
	IndexZero           // 0 is the first option
	IndexOne            // 1 is the first option
)

// ParseIndexBase reads "auto" (or ""), "0" or "1".
func ParseIndexBase(s string) (IndexBase, error) {
	switch strings.TrimSpace(s) {
	case "", "auto":
		return IndexAuto, nil
	case "0":
		return IndexZero, nil
	case "1":
		return IndexOne, nil
	}
	return 0, fmt.Errorf("answer index base %q: want auto, 0 or 1", s)
}

// indexRule says how a format's integer answers are counted when the
// source leaves it to the data (IndexAuto).
type indexRule struct {
	// What names the answers in the note that says how they were counted
	// ("cop").
	What string
	// Probe returns the probe that reads a record's integer answer.
	Probe func(src *Source) answerIndexProbe
	// Default is the base when the data decide nothing (neither 0 nor the
	// number of options occurs), which may depend on the container.
	Default func(enc container) int
}

// answerIndexProbe returns, for a record, the integer answer and the number
// of options, or ok=false when the record has no integer answer.
type answerIndexProbe func(r *record) (answer int64, nOptions int, ok bool)

// decideIndexBase sets ctx.base for formats with integer answers: as the
// source states it, or else from a first pass over the file (see
// decideBase), noted.
func (r *Reader) decideIndexBase(ctx *fileCtx, o opened) error {
	rule := ctx.def.IndexBase
	if rule == nil {
		return nil
	}
	switch r.src.IndexBase {
	case IndexZero:
		ctx.base = 0
		return nil
	case IndexOne:
		ctx.base = 1
		return nil
	}
	rr, err := containers[ctx.enc].Open(o, ctx.name, ctx.def)
	if err != nil {
		return err
	}
	base, seen0, seenN, err := decideBase(rr, rule.Probe(&r.src), rule.Default(ctx.enc))
	closeRecords(rr)
	if err != nil {
		return &ParseError{Source: ctx.name, Code: CodeGold, Fatal: true, Msg: err.Error()}
	}
	ctx.base = base
	r.notes = append(r.notes, baseNote(ctx.name, rule.What, base, seen0, seenN))
	return nil
}

// baseNote says how the integer answers of a file were found to count.
func baseNote(path, what string, base int, seen0, seenN bool) string {
	switch {
	case seen0:
		return fmt.Sprintf("%s: %s counted from 0 (a 0 occurs)", path, what)
	case seenN:
		return fmt.Sprintf("%s: %s counted from 1 (the last option's number occurs)", path, what)
	}
	return fmt.Sprintf("%s: %s counted from %d by default (neither 0 nor the last option's number occurs)", path, what, base)
}

// decideBase reads every record and decides how integer answers count: any
// 0 means from 0, any answer equal to the number of options means from 1;
// both is an error; neither gives def.
func decideBase(rr recordReader, probe answerIndexProbe, def int) (base int, seen0, seenN bool, err error) {
	for {
		r, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) && !pe.Fatal {
				continue
			}
			break // the main pass reports it
		}
		n, k, ok := probe(r)
		if !ok {
			continue
		}
		if n == 0 {
			seen0 = true
		}
		if n == int64(k) {
			seenN = true
		}
	}
	switch {
	case seen0 && seenN:
		return 0, true, true, errors.New("the answer indices include both 0 and the number of options, so they cannot be counted from 0 or from 1 consistently; fix the file or state the base (IndexBase / --answer-base)")
	case seen0:
		return 0, true, false, nil
	case seenN:
		return 1, false, true, nil
	}
	return def, false, false, nil
}

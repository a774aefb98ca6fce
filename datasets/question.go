// Package datasets defines the Question every protocol consumes and the
// loaders for the published dataset formats.
package datasets

import (
	"fmt"
	"strings"
)

// MaxOptions is the largest number of options an item may have (A–J).
const MaxOptions = 10

// Option is one answer option with its letter.
type Option struct {
	Letter string `json:"letter"`
	Text   string `json:"text"`
}

// Question is one multiple-choice item. Gold is the correct option letter;
// protocols never receive it (see Item).
type Question struct {
	ID      string            `json:"id"`
	Dataset string            `json:"dataset"`
	Split   string            `json:"split"`
	Stem    string            `json:"stem"`
	Context []string          `json:"context,omitempty"` // e.g. PubMedQA abstract passages
	Options []Option          `json:"options"`
	Gold    string            `json:"gold"`
	Meta    map[string]string `json:"meta,omitempty"` // e.g. "step": "step1"
}

// Item is what a protocol sees of a question: everything but the gold answer.
type Item struct {
	ID      string
	Stem    string
	Context []string
	Options []Option
}

// Item strips the gold answer.
func (q Question) Item() Item {
	return Item{ID: q.ID, Stem: q.Stem, Context: q.Context, Options: q.Options}
}

// Letters returns the option letters in order.
func (it Item) Letters() []string {
	out := make([]string, len(it.Options))
	for i, o := range it.Options {
		out[i] = o.Letter
	}
	return out
}

// Letters returns the option letters in order.
func (q Question) Letters() []string { return q.Item().Letters() }

// Validate checks the structural invariants of a question.
func (q Question) Validate() error {
	if strings.TrimSpace(q.ID) == "" {
		return fmt.Errorf("empty id")
	}
	if strings.TrimSpace(q.Stem) == "" {
		return fmt.Errorf("empty question stem")
	}
	if len(q.Options) < 2 || len(q.Options) > MaxOptions {
		return fmt.Errorf("%d options; need 2 to %d", len(q.Options), MaxOptions)
	}
	seen := map[string]bool{}
	for i, o := range q.Options {
		want := string(rune('A' + i))
		if o.Letter != want {
			return fmt.Errorf("option %d has letter %q; want %q (letters must run A, B, C, … in order)", i+1, o.Letter, want)
		}
		if seen[o.Letter] {
			return fmt.Errorf("duplicate option letter %q", o.Letter)
		}
		seen[o.Letter] = true
		if strings.TrimSpace(o.Text) == "" {
			return fmt.Errorf("option %s is empty", o.Letter)
		}
	}
	if !seen[q.Gold] {
		return fmt.Errorf("gold answer %q is not among the options %s", q.Gold, strings.Join(q.Letters(), ","))
	}
	return nil
}

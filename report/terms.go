package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// armTerms is what an arm's first answers were asked with, on one dataset
// × model: the team sizes its rows had and its first-answer prompts
// (results.QuestionRow.FirstPrompt), each with its row count.
type armTerms struct {
	sizes     map[int32]int
	prompts   map[string]int
	protocols map[string]bool
}

// own reports whether the arm's protocol asks its first answers in its own
// prompts (one of the protocols named in own).
func (t *armTerms) own(own []string) bool {
	for p := range t.protocols {
		if slices.Contains(own, p) {
			return true
		}
	}
	return false
}

// termsOf collects the terms of every dataset × model × arm.
func termsOf(rows []results.QuestionRow) map[[3]string]*armTerms {
	out := map[[3]string]*armTerms{}
	for i := range rows {
		q := &rows[i]
		if q.Error != "" {
			continue
		}
		k := [3]string{q.Dataset, q.Model, q.Arm}
		t := out[k]
		if t == nil {
			t = &armTerms{sizes: map[int32]int{}, prompts: map[string]int{}, protocols: map[string]bool{}}
			out[k] = t
		}
		t.protocols[q.Protocol] = true
		if q.NAgents > 0 {
			t.sizes[q.NAgents]++
		}
		if q.FirstPrompt != "" {
			t.prompts[q.FirstPrompt]++
		}
	}
	return out
}

// sizeText is "3", or "2–4" for a dynamic team.
func (t *armTerms) sizeText() string {
	if len(t.sizes) == 0 {
		return "—"
	}
	var ns []int
	for n := range t.sizes {
		ns = append(ns, int(n))
	}
	slices.Sort(ns)
	if len(ns) == 1 {
		return strconv.Itoa(ns[0])
	}
	return fmt.Sprintf("%d–%d", ns[0], ns[len(ns)-1])
}

// samePrompts reports whether two arms asked every first answer with one
// and the same prompt (both sets equal and of one element each); arms with
// no first answers are not judged.
func samePrompts(a, b *armTerms) (same, judged bool) {
	if len(a.prompts) == 0 || len(b.prompts) == 0 {
		return false, false
	}
	if len(a.prompts) != len(b.prompts) {
		return false, true
	}
	for p := range a.prompts {
		if _, ok := b.prompts[p]; !ok {
			return false, true
		}
	}
	return true, true
}

// noteTerms flags every comparison whose two arms were not compared on
// equal terms: different team sizes, or first answers asked with different
// prompts (DESIGN §5 "Equal terms"). A difference is not an error — a
// single-agent baseline against a team is a legitimate comparison — but the
// reader must know that the arms differ in more than their method. Arms of
// a protocol in own (Options.OwnFirstAnswer) ask no shared first answer at
// all; they get a note of their own rather than being counted among the
// arms whose shared request differs (issue 36).
func (r *Report) noteTerms(rows []results.QuestionRow, own []string) {
	terms := termsOf(rows)
	var size, prompt, ownArms []string
	refOwn := false
	for _, c := range r.Comparisons {
		ref, cand := terms[[3]string{c.Dataset, c.Model, c.Reference}], terms[[3]string{c.Dataset, c.Model, c.Candidate}]
		if ref == nil || cand == nil {
			continue
		}
		if rs, cs := ref.sizeText(), cand.sizeText(); rs != cs {
			size = append(size, fmt.Sprintf("%s (%s) vs %s (%s)", c.Candidate, cs, c.Reference, rs))
		}
		switch {
		case ref.own(own):
			refOwn = true
		case cand.own(own):
			if !slices.Contains(ownArms, c.Candidate) {
				ownArms = append(ownArms, c.Candidate)
			}
		default:
			if same, judged := samePrompts(ref, cand); judged && !same && !slices.Contains(prompt, c.Candidate) {
				prompt = append(prompt, c.Candidate)
			}
		}
	}
	if len(size) > 0 {
		r.Notes = append(r.Notes, "team sizes differ between compared arms, so their difference is not the method's alone: "+strings.Join(size, "; "))
	}
	if len(prompt) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("first answers asked with a different prompt than %s's (column first_prompt): %s", r.Reference, strings.Join(prompt, ", ")))
	}
	if refOwn {
		r.Notes = append(r.Notes, fmt.Sprintf("the reference %s asks its first answers in its own prompts, not the shared first-answer request: no compared arm shares its first answers", r.Reference))
	}
	if len(ownArms) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("arms that ask no shared first answer (their methods' own prompts, by design), so their difference from %s includes the first answers: %s", r.Reference, strings.Join(ownArms, ", ")))
	}
}

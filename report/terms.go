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
	sizes   map[int32]int
	prompts map[string]int
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
			t = &armTerms{sizes: map[int32]int{}, prompts: map[string]int{}}
			out[k] = t
		}
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
// reader must know that the arms differ in more than their method.
func (r *Report) noteTerms(rows []results.QuestionRow) {
	terms := termsOf(rows)
	var size, prompt []string
	for _, c := range r.Comparisons {
		ref, cand := terms[[3]string{c.Dataset, c.Model, c.Reference}], terms[[3]string{c.Dataset, c.Model, c.Candidate}]
		if ref == nil || cand == nil {
			continue
		}
		if rs, cs := ref.sizeText(), cand.sizeText(); rs != cs {
			size = append(size, fmt.Sprintf("%s (%s) vs %s (%s)", c.Candidate, cs, c.Reference, rs))
		}
		if same, judged := samePrompts(ref, cand); judged && !same {
			prompt = append(prompt, c.Candidate)
		}
	}
	if len(size) > 0 {
		r.Notes = append(r.Notes, "team sizes differ between compared arms, so their difference is not the method's alone: "+strings.Join(size, "; "))
	}
	if len(prompt) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("first answers asked with a different prompt than %s's (column first_prompt): %s", r.Reference, strings.Join(prompt, ", ")))
	}
}

package judge

import (
	"math"
	"strings"

	"github.com/medteam-bench/medteam/aggregator"
)

// NoAnswer is what the consensus judge writes in consensus_answer when the
// algorithm gives the safe default on a multiple-choice item (a tie, no
// readable answer, a low-confidence council): the seed's "General
// Practice", where the answer is an option letter.
const NoAnswer = "NONE"

// AgentOutput is what seed 003's algorithm reads of one agent's structured
// output: on a multiple-choice item its answer (the first choice), on a
// triage item its urgency (the rank of the level it chose, 0 = least
// urgent) and, where the item asks for one, its specialty; and its
// confidence.
type AgentOutput struct {
	Answer     string  // an option letter; "" = no readable answer
	Urgency    int     // triage: the level's rank; -1 = none
	Specialty  string  // triage with specialties; "" = none named
	Confidence float64 // in [0,1]; negative = none stated
}

// Task is what the algorithm needs to know of the item: its option letters
// in order, and on a triage item the number of levels of its scale (0 on a
// multiple-choice item), the rank of each option's level (qa.Triage.Ranks)
// and whether it asks for a specialty.
type Task struct {
	Letters      []string
	Levels       int
	Ranks        []int
	AskSpecialty bool
}

// Triage reports whether the task is a triage item's.
func (t Task) Triage() bool { return t.Levels > 0 }

// Result is the seed's output object as the algorithm computes it, with how
// each part was reached.
type Result struct {
	// Answer is the consensus option on a multiple-choice item; "" is the
	// safe default (written NoAnswer by the judge).
	Answer string
	// Urgency is the consensus level's rank on a triage item; -1 when no
	// agent named a level (the safe default: the most urgent level).
	Urgency int
	// Specialty is the consensus specialty where the task asks for one.
	Specialty string
	// AverageConfidence is the council's mean confidence over all agents,
	// a missing confidence counting 0.
	AverageConfidence float64
	// LowConfidence is AverageConfidence < 0.70.
	LowConfidence bool

	// Branch is how the answer (multiple choice: plurality, tie, no_votes,
	// low_confidence) or the urgency (triage: weighted_urgency,
	// zero_confidence_default, no_votes) was reached; SpecialtyBranch how
	// the specialty was (plurality, tie, no_votes, low_confidence).
	Branch          string
	SpecialtyBranch string
	// Votes counts the agents per option (multiple choice) or per level
	// rank (triage), in option or rank order.
	Votes []float64
	// UrgencyMean is Σu·c/Σc before rounding, u the rank; -1 when Σc = 0 or
	// no level was named.
	UrgencyMean float64
}

// Consensus runs seed 003's consensus algorithm (§F.3, the Consensus
// Judge's tasks) on the agents' outputs, as the judge is asked to:
//
//  1. Consensus of the answer: the plurality of the agents' answers; a tie
//     for the top (or no readable answer) gives the safe default. On a
//     triage item the seed's specialty vote: the plurality of the named
//     specialties, "General Practice" on a tie or when none is named.
//  2. Urgency consensus (triage): the confidence-weighted average of the
//     urgencies, round(Σu·c / Σc), half up (towards the more urgent
//     level); the middle level when Σc = 0 (seed 000's default; seed 003
//     does not say); no level named → the safe default (-1).
//  3. Uncertainty: the average confidence of the council, over all agents,
//     a missing confidence counting 0 (clamped to [0,1]).
//  4. Below 0.70 the result is low confidence, and the answer (the seed's
//     specialty) becomes the safe default — the urgency is kept.
//
// It is a pure function of its inputs: the same rules as seed 000's
// (aggregator.VoteRule, VoteUrgency, VoteSpecialty), which the seeds share.
func Consensus(outs []AgentOutput, t Task) Result {
	votes := make([]string, len(outs))
	conf := make([]float64, len(outs))
	for i, o := range outs {
		votes[i], conf[i] = o.Answer, o.Confidence
	}
	// VoteRule's mean (over all agents, a missing confidence as 0) is the
	// seed's average confidence; its plurality branches are task 1's.
	vote, _ := aggregator.VoteRule(t.Letters, votes, conf, false) // unweighted: never an error
	r := Result{Urgency: -1, AverageConfidence: max(vote.MeanConfidence, 0), UrgencyMean: -1}
	r.LowConfidence = r.AverageConfidence < aggregator.MinMeanConfidence-aggregator.TieEpsilon
	if !t.Triage() {
		r.Answer, r.Branch, r.Votes = vote.Decision.Winner, vote.Branch, vote.Decision.Scores
		return r
	}
	ranks := make([]int, len(outs))
	r.Votes = make([]float64, t.Levels)
	for i, o := range outs {
		ranks[i] = o.Urgency
		if o.Urgency >= 0 && o.Urgency < t.Levels {
			r.Votes[o.Urgency]++
		}
	}
	u := aggregator.VoteUrgency(ranks, conf, t.Levels)
	r.Urgency, r.Branch, r.UrgencyMean = u.Rank, u.Branch, u.Mean
	if t.AskSpecialty {
		sp := make([]string, len(outs))
		for i, o := range outs {
			sp[i] = o.Specialty
		}
		s := aggregator.VoteSpecialty(sp, r.AverageConfidence)
		r.Specialty, r.SpecialtyBranch = s.Specialty, s.Branch
	}
	return r
}

// ConfidenceTolerance is how far the judge's stated average confidence may
// be from the computed one and still agree: the judge writes it with two
// decimals.
const ConfidenceTolerance = 0.01 + 1e-9

// Fields of the seed's output object, as Compare names disagreements.
const (
	FieldAnswer        = "consensus_answer"
	FieldUrgency       = "consensus_urgency"
	FieldSpecialty     = "consensus_specialty"
	FieldAverage       = "average_confidence"
	FieldLowConfidence = "is_low_confidence"
)

// Compare lists the fields of the seed's output where the judge's verdict
// differs from the algorithm's result (nil: they agree). A field the judge
// left unreadable differs. On a multiple-choice item the answer is
// compared (the judge's NONE with the safe default), on a triage item the
// urgency and, where asked, the specialty (case and white space ignored);
// always the average confidence (within ConfidenceTolerance) and the
// low-confidence flag.
func Compare(v Verdict, r Result, t Task) []string {
	var diff []string
	if !t.Triage() {
		switch {
		case v.None:
			if r.Answer != "" {
				diff = append(diff, FieldAnswer)
			}
		case v.Answer == "" || v.Answer != r.Answer:
			diff = append(diff, FieldAnswer)
		}
	} else {
		if v.Urgency < 0 || v.Urgency != r.Urgency {
			diff = append(diff, FieldUrgency)
		}
		if t.AskSpecialty && !sameSpecialty(v.Specialty, r.Specialty) {
			diff = append(diff, FieldSpecialty)
		}
	}
	if v.AverageConfidence < 0 || math.Abs(v.AverageConfidence-r.AverageConfidence) > ConfidenceTolerance {
		diff = append(diff, FieldAverage)
	}
	if !v.LowConfidenceRead || v.LowConfidence != r.LowConfidence {
		diff = append(diff, FieldLowConfidence)
	}
	return diff
}

// sameSpecialty compares two specialties, case and white space ignored; an
// empty one (unread) never matches.
func sameSpecialty(a, b string) bool {
	a, b = strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " ")
	return a != "" && strings.EqualFold(a, b)
}

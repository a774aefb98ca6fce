package stats

import (
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// ParseRound splits one element of QuestionRow.Rounds — the agents' first
// choices joined by commas, in agent order — into one choice per agent; an
// empty field is an agent that abstained in that round. Fields are trimmed
// of surrounding white space. The empty string is one abstaining agent (what
// strings.Join writes for a one-agent round).
func ParseRound(s string) []string {
	out := strings.Split(s, ",")
	for i, f := range out {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

// Agreement is the share of agents whose choice is the round's plurality
// choice: max_l #{agents choosing l} / #agents, abstentions counting as
// disagreeing (so a tie for the plurality does not change the share). It
// is the definition the runner uses for AgreementInitial/Final. 0 when no
// agent chose.
func Agreement(choices []string) float64 {
	if len(choices) == 0 {
		return 0
	}
	best := 0
	for i, c := range choices {
		if c == "" {
			continue
		}
		n := 0
		for _, d := range choices[i:] {
			if d == c {
				n++
			}
		}
		best = max(best, n)
	}
	return float64(best) / float64(len(choices))
}

// RoundAgreement is the mean agreement of one round across rows.
type RoundAgreement struct {
	Round int // 0 = the initial prediction, t = discussion turn t
	N     int // rows that have this round
	Mean  float64
	CI    Interval // Mean ± t_{G−1}·SE_CR1 over questions, clamped to [0, 1]
}

// Convergence is how a team's opinions moved across rounds.
type Convergence struct {
	Rows         int // rows with at least one round
	ByRound      []RoundAgreement
	RightToWrong int64 // agents right initially and not finally, summed over rows
	WrongToRight int64
}

// ConvergenceOf measures agreement by round and opinion flows over rows
// (typically one arm's). Round t's agreement is the mean over the rows
// whose round t has two or more agents of Agreement(ParseRound(Rounds[t]))
// (N = 0 and NaN when none has: a lone agent's agreement is undefined), with a
// question-clustered interval (ClusteredMean) at the given level (0 = 0.95).
// The flows sum ChangesRightToWrong and ChangesWrongToRight over all rows.
func ConvergenceOf(rows []results.QuestionRow, lvl float64) Convergence {
	idx := seq(len(rows))
	sortByQuestion(rows, idx)
	return convergenceIdx(rows, idx, lvl)
}

// convergenceIdx is ConvergenceOf over the rows idx, sorted by question.
func convergenceIdx(rows []results.QuestionRow, idx []int, lvl float64) Convergence {
	var c Convergence
	var y [][]float64
	var q [][]string
	for _, i := range idx {
		r := &rows[i]
		c.RightToWrong += int64(r.ChangesRightToWrong)
		c.WrongToRight += int64(r.ChangesWrongToRight)
		if len(r.Rounds) > 0 {
			c.Rows++
		}
		for t, s := range r.Rounds {
			if t == len(y) {
				y, q = append(y, nil), append(q, nil)
			}
			// One agent agrees with nobody: its round has no agreement
			// (undefined, not 100%), so it adds no row to the mean.
			if ch := ParseRound(s); len(ch) >= 2 {
				y[t] = append(y[t], Agreement(ch))
				q[t] = append(q[t], r.QuestionID)
			}
		}
	}
	for t := range y {
		m := ClusteredMean(y[t], q[t])
		c.ByRound = append(c.ByRound, RoundAgreement{Round: t, N: m.N, Mean: m.Mean, CI: m.CI(lvl, 0, 1)})
	}
	return c
}

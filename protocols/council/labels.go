package council

import (
	"math/rand/v2"
)

// Labels are the anonymous names reviewers see the others' answers under:
// words, not letters or numbers, so a label is never read as an option
// letter or an agent number.
var Labels = [...]string{
	"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel",
	"India", "Juliett", "Kilo", "Lima", "Mike", "November", "Oscar", "Papa",
}

// Assignment is what reviewer i sees: the other agents in the order shown,
// Agents[k] under the label Labels[k].
type Assignment struct {
	Reviewer int
	Agents   []int // 0-based agents, never the reviewer
}

// Label returns the label agent j is shown under, "" when this reviewer
// does not see j (j is the reviewer).
func (a Assignment) Label(j int) string {
	for k, x := range a.Agents {
		if x == j {
			return Labels[k]
		}
	}
	return ""
}

// Names are the labels in the order shown.
func (a Assignment) Names() []string { return Labels[:len(a.Agents)] }

// Assign is reviewer i's view of a team of n: every other agent once, in an
// order drawn with seed (a permutation, so which agent is "Alpha" carries no
// information), and never the reviewer's own answer.
func Assign(n, reviewer int, seed uint64) Assignment {
	others := make([]int, 0, n-1)
	for j := range n {
		if j != reviewer {
			others = append(others, j)
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x636f756e63696c)) // "council"
	r.Shuffle(len(others), func(a, b int) { others[a], others[b] = others[b], others[a] })
	return Assignment{Reviewer: reviewer, Agents: others}
}

package sim

// What a behaviour's tests check its answers against: the traits the
// simulator drew for a question, and its fixed texts.

// Traits are what the simulator drew for a question from its id.
type Traits struct {
	Difficulty float64
	// Distractor is the attractive wrong option (an index).
	Distractor int8
	// Relevance lists the specialties (SpecialtyName) by relevance to the
	// question, most relevant first.
	Relevance [NSpecialties]uint8
	// Supportive and Misleading are the texts of the question's fact pools:
	// what a correct agent states, and what a wrong one may state instead.
	Supportive, Misleading [poolSize]string
}

// Traits are question id's traits; false for an unknown or unusable id.
func (m *Model) Traits(id string) (Traits, bool) {
	it := m.items[id]
	if it == nil || it.err != nil {
		return Traits{}, false
	}
	t := Traits{Difficulty: it.difficulty, Distractor: it.distractor, Relevance: it.relevance}
	for i := range t.Supportive {
		t.Supportive[i], t.Misleading[i] = factBank[it.truePool[i]], factBank[it.falsePool[i]]
	}
	return t, true
}

// NFacts is the number of facts the simulator ever states.
const NFacts = nFacts

// Fact is the i-th fact of the bank (without a final period).
func Fact(i int) string { return factBank[i] }

// FactIndex is the index of fact s in the bank, -1 when s is none.
func FactIndex(s string) int {
	if i, ok := factIndex[s]; ok {
		return int(i)
	}
	return -1
}

// SpecialtyIndex is the index of the specialty named s (ignoring ASCII
// case), -1 when none.
func SpecialtyIndex(s string) int { return specialtyIndex(s) }

package teamwork

// CallCount is the call accounting of DESIGN §4 for one question.
type CallCount struct {
	Recruitment int // 2: assessment, recruitment
	Prediction  int // N, +1 leader synthesis iff L∧(SMM∨TO∨T)
	Discussion  int // N·T, +T mediations iff L, +3·(T−1) iff MM
	Aggregation int // 0, +1 iff L and the final scores tie
}

// Total is the sum over phases.
func (c CallCount) Total() int { return c.Recruitment + c.Prediction + c.Discussion + c.Aggregation }

// ExpectedCalls is the number of model calls one question makes under c with
// a team of n agents; tie says whether the final scores tied (the leader's
// tie-break call). So base = 2 + N + N·T and
// full = 3 + N + N·T + T + 3(T−1) (+1 on a tie).
func ExpectedCalls(c Config, n int, tie bool) CallCount {
	t := c.Turns
	cc := CallCount{Recruitment: 2, Prediction: n, Discussion: n * t}
	if c.synthesisCall() {
		cc.Prediction++
	}
	if c.Leadership {
		cc.Discussion += t
		if tie {
			cc.Aggregation = 1
		}
	}
	if c.Monitoring {
		cc.Discussion += 3 * (t - 1)
	}
	return cc
}

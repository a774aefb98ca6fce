package runner

import (
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/results"
)

// spending is a run's budget accounting: what finished units spent, what the
// units in flight have reserved, and the figures estimates are made from. It
// is guarded by its execution's mutex.
type spending struct {
	b           Budget
	reserved    int64
	reservedUSD float64
	armMax      map[string]int64 // largest tokens of a finished unit, per arm
	// reportedCalls and reportedTokens are the calls sent that reported
	// usage and their tokens: the mean charged for a call without usage.
	reportedCalls, reportedTokens int64
}

func newSpending(b Budget) spending { return spending{b: b, armMax: map[string]int64{}} }

// estimate is the tokens reserved for one unit of arm: a quarter above the
// largest finished unit of the arm, else the budget's first guess.
func (s *spending) estimate(arm string) int64 {
	if v := s.armMax[arm]; v > 0 {
		return v + v/4
	}
	if s.b.Estimate != nil {
		return s.b.Estimate(arm)
	}
	return 0
}

// usd prices an estimate of tokens whose prompt/completion split is unknown
// at the dearer of the two rates, so a reservation never under-prices.
func (s *spending) usd(model string, tokens int64) float64 {
	if s.b.Price == nil {
		return 0
	}
	return max(s.b.Price(model, llm.Usage{PromptTokens: int(tokens)}),
		s.b.Price(model, llm.Usage{CompletionTokens: int(tokens)}))
}

// reserve books the estimate of one unit of arm on model, unless that would
// take the spent (st) plus the reserved over the budget; it returns the
// reservation and whether it was made.
func (s *spending) reserve(arm, model string, st *Stats) (int64, bool) {
	est := s.estimate(arm)
	over := (s.b.Tokens > 0 && st.Tokens+s.reserved+est > s.b.Tokens) ||
		(s.b.USD > 0 && st.SpentUSD+s.reservedUSD+s.usd(model, est) > s.b.USD)
	if over {
		return 0, false
	}
	s.reserved += est
	s.reservedUSD += s.usd(model, est)
	return est, true
}

// release gives back a reservation.
func (s *spending) release(model string, est int64) {
	s.reserved -= est
	s.reservedUSD -= s.usd(model, est)
}

// charge records a committed unit in st. Spending counts what reached the
// endpoint: calls served by an identical earlier request or the cache cost
// nothing. An answer without usage is charged an estimate, never 0.
func (s *spending) charge(arm, model string, est int64, qr *results.QuestionRow, cr []results.CallRow, st *Stats) {
	var spent llm.Usage
	var sentCalls, sentMissing, missing int64
	for _, c := range cr {
		p, q, ok := c.Tokens()
		if !ok && c.Status == "ok" {
			missing++
			if !c.Cached {
				sentMissing++
			}
		}
		if !c.Cached && ok {
			sentCalls++
			spent.PromptTokens += int(p)
			spent.CompletionTokens += int(q)
			if c.CachedPromptTokens != nil { // priced at the cached_prompt rate
				spent.CachedTokens += int(*c.CachedPromptTokens)
				spent.CachedReported = true
			}
		}
	}
	s.reportedCalls += sentCalls
	s.reportedTokens += int64(spent.Total())
	perCall := est / max(1, int64(len(cr)))
	if s.reportedCalls > 0 {
		perCall = s.reportedTokens / s.reportedCalls
	}
	estimated := sentMissing * perCall
	st.Finished++
	if qr.Error != "" {
		st.Failed++
	}
	st.Calls += int64(qr.Calls)
	st.Shared += int64(qr.CachedCalls)
	st.Tokens += int64(spent.Total()) + estimated
	st.UsageMissing += missing
	st.EstimatedTokens += estimated
	if s.b.Price != nil {
		st.SpentUSD += s.b.Price(model, spent) + s.usd(model, estimated)
	}
	s.armMax[arm] = max(s.armMax[arm], qr.PromptTokens+qr.CompletionTokens+missing*perCall)
}

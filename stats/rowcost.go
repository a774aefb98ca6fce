package stats

import (
	"encoding/json"
	"strings"

	"github.com/medteam-bench/medteam/results"
)

// rowCostUSD is a row's own recorded cost, when it has one: a rescored
// published record that gave its cost in USD instead of its tokens
// (MedAgentsBench's AFlow and SPO outputs; protocol_json {"cost_usd": x}).
// The publishers' scorer counts that cost as it is, whatever the model's
// price, and so does the cost column.
func rowCostUSD(r *results.QuestionRow) (float64, bool) {
	if r.Protocol != "rescore" || !strings.Contains(r.ProtocolJSON, `"cost_usd"`) {
		return 0, false
	}
	var c struct {
		CostUSD *float64 `json:"cost_usd"`
	}
	if json.Unmarshal([]byte(r.ProtocolJSON), &c) != nil || c.CostUSD == nil {
		return 0, false
	}
	return *c.CostUSD, true
}

package council

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Contribution is one entry of the chairman's attribution (seed 001 §7.2).
type Contribution struct {
	Agent  int     `json:"agent"`  // 1-based expert number
	Weight float64 `json:"weight"` // in [0,1], as written
	Reason string  `json:"reason,omitempty"`
}

// Chairman is the chairman's reply as read.
type Chairman struct {
	kit.Pick
	Reasoning string
	// Contributors is the attribution as read, in the order written; nil
	// when none could be read (AttributionErr says why).
	Contributors   []Contribution
	AttributionErr string
	Notes          []string
}

var chairLabels = map[string]string{"ANSWER": "answer", "FINAL ANSWER": "answer", "DECISION": "answer", "REASONING": "reasoning"}

// maxContributors bounds how many attribution entries are read.
const maxContributors = 64

// ParseChairman reads the chairman's answer (an option, or none and why:
// never a guess) and its attribution block: the "contributors" list of a
// JSON object that decodes (the whole reply, or a fenced or embedded block).
// A missing, cut-off or undecodable block, or a contributors value that is
// not a list, is a recorded parse failure (AttributionErr), never a guessed
// attribution. An entry whose expert is not 1…n, whose weight is not a
// number in [0,1], or that repeats an expert is left out with a note; a
// list left empty that way is a failure too. Weights that do not sum to 1
// are noted, not rescaled.
func ParseChairman(text string, options []answer.Option, n int) Chairman {
	set := answer.NewSet(options)
	c := Chairman{Pick: kit.ReadPick(text, set, chairLabels)}
	_, body := answer.Prepare(text)
	o, m, ok := answer.DecodeObject(body, false)
	if ok {
		c.Reasoning, _ = o.FirstString("reasoning", "rationale")
	}
	if c.Reasoning == "" {
		c.Reasoning = answer.Sections(body, chairLabels)["reasoning"]
	}
	c.readAttribution(o, m, ok, n)
	c.Notes = append(set.Notes(), c.Notes...)
	return c
}

func (c *Chairman) readAttribution(o answer.Object, m answer.Method, ok bool, n int) {
	if !ok {
		c.AttributionErr = "no contributors block (no JSON object decodes)"
		return
	}
	if m == answer.MethodJSONPartial {
		c.AttributionErr = "the contributors block does not decode (cut off or malformed)"
		return
	}
	v, ok := o.Get("contributors", "contributions", "attribution", "attributions")
	if !ok {
		c.AttributionErr = "no contributors block"
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil {
		c.AttributionErr = "contributors is not a list"
		return
	}
	seen := map[int]bool{}
	sum := 0.0
	for _, it := range items[:min(len(items), maxContributors)] {
		e, ok := c.entry(it, n)
		if !ok {
			continue
		}
		if seen[e.Agent] {
			c.note("expert %d credited twice; the later entry left out", e.Agent)
			continue
		}
		seen[e.Agent] = true
		sum += e.Weight
		c.Contributors = append(c.Contributors, e)
	}
	switch {
	case len(c.Contributors) == 0 && len(items) > 0:
		c.AttributionErr = "no usable contributors entry"
	case len(c.Contributors) == 0:
		c.Contributors = []Contribution{} // read: the chairman credits nobody
	case math.Abs(sum-1) > 0.01:
		c.note("contributor weights sum to %.2f, not 1; kept as written", sum)
	}
}

// entry reads one {"id": 2, "weight": 0.6, "reason": "…"} entry.
func (c *Chairman) entry(it json.RawMessage, n int) (Contribution, bool) {
	o := answer.DecodeFlat(it)
	raw := kit.Truncate(string(it), 60)
	if o == nil {
		c.note("contributors entry %s is not an object; left out", raw)
		return Contribution{}, false
	}
	id, ok := o.Get("id", "agent", "expert", "expertid", "expertnumber")
	var agent int
	if ok {
		agent, ok = answer.RawInt(id)
	}
	if !ok || agent < 1 || agent > n {
		c.note("contributors entry %s names no expert 1 to %d; left out", raw, n)
		return Contribution{}, false
	}
	w, ok := o.Get("weight", "score", "share")
	x, kind, okNum := 0.0, answer.NumPlain, false
	if ok {
		x, kind, okNum = answer.RawNumber(w)
	}
	if !okNum || kind != answer.NumPlain || x < 0 || x > 1 || math.IsNaN(x) {
		c.note("contributors entry %s has no weight in [0,1]; left out", raw)
		return Contribution{}, false
	}
	reason, _ := o.FirstString("reason", "reasoning", "why")
	return Contribution{Agent: agent, Weight: x, Reason: strings.TrimSpace(reason)}, true
}

func (c *Chairman) note(format string, args ...any) {
	c.Notes = append(c.Notes, fmt.Sprintf(format, args...))
}

package judge

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// Seed 003's consensus judge (kind judge, protocols/judge): the prompt
// carries the seed's input object, {"agent_outputs": [...]}, one agent's
// output per line, and asks the judge to execute the consensus algorithm
// on it. The simulated judge does: the plurality of the answers (a tie or
// no answer: NONE), on a triage item the confidence-weighted urgency
// (half up; the middle level when the weights sum to 0, the most urgent
// when no agent has one) and, where the outputs carry specialties, their
// plurality ("General Practice" on a tie or none), the average confidence
// over all agents (null as 0), and below 0.70 the low-confidence flag with
// NONE (the specialty: General Practice; the urgency kept). With
// probability SimSlip it skips that last step — flag false, the answer
// kept — the slip of a model executing an algorithm, so that the row's
// agreement with the code's result is not trivially perfect. The gold
// never enters: the judge knows nothing but the outputs it is shown.

// SimSlip is the probability that the simulated consensus judge skips
// the 0.70 rule.
const SimSlip = 0.1

// Sim is the consensus judge's simulated behaviour (llm/sim's Behaviour),
// described above. The code seeds every draw of a call: it never changes.
var Sim = sim.Behaviour{
	Protocol: "judge",
	Kinds:    map[string]uint64{kit.KindJudge: 18},
	Answer:   simAnswer,
}

// simAnswer answers the judge call: the verdict on the input object, in
// the format asked for, then the malformed and fence draws.
func simAnswer(c *sim.Call) string {
	c.ReadPrompt(0, true)
	a := c.NewAnswer()
	cj := simJudge(c, &a)
	asJSON := c.Request().Schema != nil
	var arr [1024]byte
	b := arr[:0]
	if asJSON {
		b = simJSON(b, cj)
	} else {
		b = simPlain(b, cj)
	}
	return c.Finish(b, a.Letter(), asJSON)
}

// generalPractice is seed 003's default specialty.
const generalPractice = "General Practice"

// simVerdict is the consensus judge's output.
type simVerdict struct {
	triage    bool
	answer    string // multiple choice: a letter or NONE
	urgency   int    // triage: 1…L
	specialty string // "" when the outputs carry none
	hasSpec   bool
	avg       float64
	low       bool
}

// simOutput is one line of the input object.
type simOutput struct {
	Answer     *string  `json:"answer"`
	Specialty  *string  `json:"specialty"`
	Confidence *float64 `json:"confidence"`
	Urgency    *int     `json:"urgency"`
}

// simInput reads the input object's lines and, on a triage item, the
// number of levels of the scale shown ("Urgency scale, …: 1 = sc (…), 2 =
// …"). triage is true when the outputs carry an "urgency" key.
func simInput(req *llm.Request) (outs []simOutput, levels int, triage, spec bool) {
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			continue
		}
		in := false
		for _, line := range strings.Split(m.Content, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "Urgency scale"):
				levels = strings.Count(line, " = ")
			case strings.HasPrefix(line, `{"agent_outputs": [`):
				in = true
			case in && strings.HasPrefix(line, "]}"):
				in = false
			case in && strings.HasPrefix(line, "{"):
				var o simOutput
				if json.Unmarshal([]byte(strings.TrimSuffix(line, ",")), &o) == nil {
					outs = append(outs, o)
				}
				triage = triage || strings.Contains(line, `"urgency":`)
				spec = spec || strings.Contains(line, `"specialty":`)
			}
		}
	}
	return outs, levels, triage, spec
}

// simJudge executes the algorithm on the outputs the prompt shows.
func simJudge(c *sim.Call, a *sim.Answer) *simVerdict {
	outs, levels, triage, hasSpec := simInput(c.Request())
	cj := &simVerdict{triage: triage, hasSpec: hasSpec}
	sum := 0.0
	for _, o := range outs {
		if o.Confidence != nil {
			sum += sim.Clamp(*o.Confidence, 0, 1)
		}
	}
	if len(outs) > 0 {
		cj.avg = sum / float64(len(outs))
	}
	r := c.Rng(sim.TagLeader)
	cj.low = cj.avg < 0.70-1e-9 && r.Float() >= SimSlip
	if hasSpec {
		cj.specialty = pluralityOf(outs, func(o simOutput) *string { return o.Specialty }, generalPractice)
		if cj.low {
			cj.specialty = generalPractice
		}
	}
	if triage {
		cj.urgency = weightedUrgency(outs, max(levels, 1))
		return cj
	}
	cj.answer = pluralityOf(outs, func(o simOutput) *string { return o.Answer }, "NONE")
	if cj.low {
		cj.answer = "NONE"
	}
	if i := c.LetterIndex(cj.answer); i >= 0 {
		a.SetLetter(int8(i))
	}
	return cj
}

// pluralityOf is the most common non-empty value of get (case and white
// space ignored; its first spelling), none on a tie or when there is none.
func pluralityOf(outs []simOutput, get func(simOutput) *string, none string) string {
	count := map[string]int{}
	spelling := map[string]string{}
	var order []string
	for _, o := range outs {
		p := get(o)
		if p == nil {
			continue
		}
		v := strings.Join(strings.Fields(*p), " ")
		k := strings.ToLower(v)
		if k == "" {
			continue
		}
		if _, ok := spelling[k]; !ok {
			spelling[k] = v
			order = append(order, k)
		}
		count[k]++
	}
	best, top, tie := 0, "", false
	for _, k := range order {
		switch n := count[k]; {
		case n > best:
			best, top, tie = n, spelling[k], false
		case n == best:
			tie = true
		}
	}
	if best == 0 || tie {
		return none
	}
	return top
}

// weightedUrgency is round(Σu·c/Σc) on the 1…levels scale, half up; the
// middle level when Σc = 0, the most urgent when no agent has an urgency.
func weightedUrgency(outs []simOutput, levels int) int {
	var num, den float64
	voters := 0
	for _, o := range outs {
		if o.Urgency == nil || *o.Urgency < 1 || *o.Urgency > levels {
			continue
		}
		voters++
		w := 0.0
		if o.Confidence != nil {
			w = sim.Clamp(*o.Confidence, 0, 1)
		}
		num += float64(*o.Urgency) * w
		den += w
	}
	switch {
	case voters == 0:
		return levels
	case den <= 0:
		return levels/2 + 1
	}
	return min(levels, max(1, int(math.Floor(num/den+0.5+1e-9))))
}

// simJSON writes the seed's output object, reasoning first.
func simJSON(b []byte, cj *simVerdict) []byte {
	b = append(b, `{"reasoning":`...)
	b = sim.AppendQuoted(b, cj.sentence())
	if cj.hasSpec {
		b = append(b, `,"consensus_specialty":`...)
		b = sim.AppendQuoted(b, cj.specialty)
	}
	if cj.triage {
		b = append(b, `,"consensus_urgency":`...)
		b = strconv.AppendInt(b, int64(cj.urgency), 10)
	} else {
		b = append(b, `,"consensus_answer":`...)
		b = sim.AppendQuoted(b, cj.answer)
	}
	b = append(b, `,"average_confidence":`...)
	b = strconv.AppendFloat(b, sim.Round2(cj.avg), 'f', 2, 64)
	b = append(b, `,"is_low_confidence":`...)
	b = strconv.AppendBool(b, cj.low)
	return append(b, '}')
}

// simPlain writes the output as the labelled lines the prompt asks.
func simPlain(b []byte, cj *simVerdict) []byte {
	b = append(b, "REASONING: "...)
	b = append(b, cj.sentence()...)
	if cj.hasSpec {
		b = append(b, "\nCONSENSUS SPECIALTY: "...)
		b = append(b, cj.specialty...)
	}
	if cj.triage {
		b = append(b, "\nCONSENSUS URGENCY: "...)
		b = strconv.AppendInt(b, int64(cj.urgency), 10)
	} else {
		b = append(b, "\nCONSENSUS ANSWER: "...)
		b = append(b, cj.answer...)
	}
	b = append(b, "\nAVERAGE CONFIDENCE: "...)
	b = strconv.AppendFloat(b, sim.Round2(cj.avg), 'f', 2, 64)
	b = append(b, "\nIS LOW CONFIDENCE: "...)
	return append(b, sim.YesNo(cj.low)...)
}

// sentence is the judge's working in one sentence.
func (cj *simVerdict) sentence() string {
	avg := strconv.FormatFloat(sim.Round2(cj.avg), 'f', 2, 64)
	if cj.triage {
		return "The confidence-weighted urgency rounds to " + strconv.Itoa(cj.urgency) + " and the average confidence is " + avg + "."
	}
	return "The plurality of the answers gives " + cj.answer + " and the average confidence is " + avg + "."
}

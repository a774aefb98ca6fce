package judge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/answer/answertest"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

var abcd = []answer.Option{{Letter: "A", Text: "Aspirin"}, {Letter: "B", Text: "Heparin"}, {Letter: "C", Text: "Warfarin"}, {Letter: "D", Text: "Alteplase"}}

// script answers the experts' first answers and the judge's call.
func script(experts []string, judge string) *kittest.Script {
	s := &kittest.Script{Answers: map[string]string{kittest.Key(kit.KindJudge, 0, -1): judge}}
	for i, a := range experts {
		s.Answers[kittest.Key(kit.KindFirst, 0, i)] = a
	}
	return s
}

// TestDecisions (mode llm): the judge's output decides — its answer, its
// NONE (the safe default), its low-confidence flag (the safe default), an
// unreadable answer (abstention) — and the row records the code's result
// and whether the two agree, field by field.
func TestDecisions(t *testing.T) {
	confident := []string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.75, 0.2, false), kittest.First("A", 0.8, 0.2, false)}
	hesitant := []string{kittest.First("B", 0.5, 0.5, false), kittest.First("A", 0.6, 0.4, false), kittest.First("A", 0.6, 0.4, false)}
	split := []string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.8, 0.2, false), kittest.First("C", 0.8, 0.2, false)}
	tests := []struct {
		name      string
		experts   []string
		judge     string
		predicted string
		rule      string
		reason    string
		agrees    bool
		diff      []string
	}{
		{"the judge runs the algorithm", confident, `{"reasoning":"A has two votes of three.","consensus_answer":"A","average_confidence":0.78,"is_low_confidence":false}`, "A", RuleJudge, "", true, nil},
		{"text form", confident, "REASONING: two of three\nCONSENSUS ANSWER: A\nAVERAGE CONFIDENCE: 0.78\nIS LOW CONFIDENCE: no", "A", RuleJudge, "", true, nil},
		{"the judge departs from the algorithm", confident, `{"reasoning":"B is better argued.","consensus_answer":"B","average_confidence":0.78,"is_low_confidence":false}`, "B", RuleJudge, "", false, []string{FieldAnswer}},
		{"NONE on a tie", split, `{"reasoning":"a three-way tie","consensus_answer":"NONE","average_confidence":0.8,"is_low_confidence":false}`, "", RuleJudgeNone, "judge_none: the judge's consensus answer is NONE (a tie or no answer; the code's branch: tie)", true, nil},
		{"the judge flags a weak consensus", hesitant, `{"reasoning":"r","consensus_answer":"NONE","average_confidence":0.57,"is_low_confidence":true}`, "", RuleJudgeLowConfidence, "low_confidence: the judge flagged a weak consensus (stated average 0.57; computed 0.57)", true, nil},
		{"a flag set against the numbers still decides", confident, `{"reasoning":"r","consensus_answer":"A","average_confidence":0.78,"is_low_confidence":true}`, "", RuleJudgeLowConfidence, "low_confidence", false, []string{FieldLowConfidence}},
		{"a miscalculated average", confident, `{"reasoning":"r","consensus_answer":"A","average_confidence":0.9,"is_low_confidence":false}`, "A", RuleJudge, "", false, []string{FieldAverage}},
		{"no flag: the answer stands, recorded as a disagreement", hesitant, `{"reasoning":"r","consensus_answer":"A"}`, "A", RuleJudge, "", false, []string{FieldAnswer, FieldAverage, FieldLowConfidence}},
		{"an answer that is not an option", confident, `{"reasoning":"r","consensus_answer":"E","average_confidence":0.78,"is_low_confidence":false}`, "", RuleJudgeUnparsed, "judge_unparsed: answer E is not one of the options", false, []string{FieldAnswer}},
		{"an answer naming two options", confident, "CONSENSUS ANSWER: A or B\nIS LOW CONFIDENCE: no\nAVERAGE CONFIDENCE: 0.78", "", RuleJudgeUnparsed, "judge_unparsed", false, []string{FieldAnswer}},
		{"an empty reply", confident, "", "", RuleJudgeUnparsed, "judge_unparsed: empty response", false, []string{FieldAnswer, FieldAverage, FieldLowConfidence}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := script(tt.experts, tt.judge)
			out := kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
			det := out.Details.(Details)
			if out.Predicted != tt.predicted || out.Decision.Rule != tt.rule || !strings.HasPrefix(out.AbstainReason, tt.reason) {
				t.Fatalf("predicted %q rule %q reason %q; want %q %q %q", out.Predicted, out.Decision.Rule, out.AbstainReason, tt.predicted, tt.rule, tt.reason)
			}
			if det.Mode != ModeLLM || det.Judge == nil || det.Agrees == nil || *det.Agrees != tt.agrees || !slices.Equal(det.Disagreements, tt.diff) {
				t.Fatalf("mode %q agrees %v disagreements %v; want %v %v", det.Mode, det.Agrees, det.Disagreements, tt.agrees, tt.diff)
			}
			if len(s.Keys()) != 4 {
				t.Fatalf("calls %v, want N+1 = 4", s.Keys())
			}
		})
	}
}

// TestDetailsJSON: protocol_json holds the judge's output object as read,
// the code's, the code's branch and votes, and the agreement.
func TestDetailsJSON(t *testing.T) {
	s := script([]string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.7, 0.2, false), kittest.First("A", 0.9, 0.2, false)},
		`{"reasoning":"r","consensus_answer":"B","average_confidence":0.8,"is_low_confidence":false}`)
	out := kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
	b, err := json.Marshal(out.Details)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mode":"llm","n":3,"rule":"judge","judge":{"consensus_answer":"B","average_confidence":0.8,"is_low_confidence":false},"judge_parse":"json",` +
		`"code":{"consensus_answer":"A","average_confidence":0.7999999999999999,"is_low_confidence":false},"code_branch":"plurality",` +
		`"votes":{"A":2,"B":1},"agrees":false,"disagreements":["consensus_answer"]}`
	if string(b) != want {
		t.Fatalf("protocol_json\n%s\nwant\n%s", b, want)
	}
}

// TestModeCode: judge:mode=code makes N calls, no judge call, and decides
// by the algorithm in code: the plurality, a tie or low confidence → the
// safe default (with its reason).
func TestModeCode(t *testing.T) {
	for _, tc := range []struct {
		name      string
		experts   []string
		predicted string
		rule      string
		reason    string
	}{
		{"plurality", []string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.75, 0.2, false), kittest.First("A", 0.8, 0.2, false)}, "A", "plurality", ""},
		{"tie", []string{kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.8, 0.2, false), kittest.First("C", 0.8, 0.2, false)}, "", "tie", "tie: A, B and C share the top vote (A 1, B 1, C 1)"},
		{"low confidence", []string{kittest.First("A", 0.5, 0.2, false), kittest.First("A", 0.6, 0.2, false), kittest.First("A", 0.6, 0.2, false)}, "", "low_confidence", "low_confidence: mean confidence 0.57 < 0.70"},
		{"no answers", []string{"Hmm.", "?", ""}, "", "no_votes", "no_votes: no agent gave a readable answer"},
	} {
		s := script(tc.experts, "")
		out := kittest.Run(t, Protocol, "judge:mode=code", kittest.Settings(3), s)
		det := out.Details.(Details)
		if out.Predicted != tc.predicted || out.Decision.Rule != tc.rule || out.AbstainReason != tc.reason || det.Mode != ModeCode || det.Judge != nil || det.Agrees != nil {
			t.Fatalf("%s: predicted %q rule %q reason %q mode %q judge %v agrees %v", tc.name, out.Predicted, out.Decision.Rule, out.AbstainReason, det.Mode, det.Judge, det.Agrees)
		}
		if keys := s.Keys(); len(keys) != 3 || slices.Contains(keys, kittest.Key(kit.KindJudge, 0, -1)) {
			t.Fatalf("%s: calls %v, want the 3 first answers only", tc.name, keys)
		}
	}
	a, _, err := Protocol.Parse("judge:mode=code,n=4", kittest.Settings(3))
	if err != nil {
		t.Fatal(err)
	}
	if calls, _ := a.Calls(0); calls != 4 || a.Info().Label != "judge:mode=code,n=4" || a.Info().LeaderTemp != 0 {
		t.Fatalf("calls %d label %q leader temperature %v", calls, a.Info().Label, a.Info().LeaderTemp)
	}
	for spec, label := range map[string]string{"judge": "judge/n3", "judge:mode=llm": "judge/n3", "judge:n=3": "judge/n3", "judge/n3": "judge/n3"} {
		a, _, err := Protocol.Parse(spec, kittest.Settings(3))
		if err != nil || a.Info().Label != label {
			t.Fatalf("%s: %v label %q", spec, err, a.Info().Label)
		}
		if calls, _ := a.Calls(0); calls != 4 {
			t.Fatalf("%s: %d calls", spec, calls)
		}
	}
	for _, bad := range []string{"judge:mode=free", "judge:code", "judge:k=3"} {
		if _, _, err := Protocol.Parse(bad, kittest.Settings(3)); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}

// TestJudgeSees: the judge's call carries the seed's Consensus Judge
// instructions and the seed's input object — each expert's answer,
// confidence and reasoning, null for what it did not state — and nothing
// of the question; with structured output its schema is the seed's output
// object, reasoning first.
func TestJudgeSees(t *testing.T) {
	s := script([]string{kittest.First("B", 0.8, 0.2, false), "Hmm.", kittest.First("A", 0.6, 0.4, false)},
		`{"reasoning":"r","consensus_answer":"NONE","average_confidence":0.47,"is_low_confidence":true}`)
	kittest.Run(t, Protocol, "judge", kittest.Settings(3), s)
	req := s.Reqs[kittest.Key(kit.KindJudge, 0, -1)]
	system, user := req.Messages[0].Content, req.Messages[1].Content
	if !strings.HasPrefix(system, "**You are the Consensus Judge.** You are a pure analytical agent.") || !strings.Contains(system, "Your sole purpose is to execute the consensus algorithm.") {
		t.Fatalf("system prompt:\n%s", system)
	}
	for _, want := range []string{
		"{\"agent_outputs\": [\n" +
			"  {\"answer\": \"B\", \"confidence\": 0.8, \"reasoning\": \"B fits the findings.\"},\n" +
			"  {\"answer\": null, \"confidence\": null, \"reasoning\": null},\n" +
			"  {\"answer\": \"A\", \"confidence\": 0.6, \"reasoning\": \"A fits the findings.\"}\n]}",
		"1.  **Answer Consensus**: Perform a plurality vote on the `answer` field. If there is a tie, the winner is \"NONE\"",
		"2.  **Uncertainty Estimation**: Calculate the average confidence score of the council (over all 3 agents, a null confidence counting as 0).",
		"If `average_confidence` is less than 0.70, set `is_low_confidence` to `true` and `consensus_answer` to \"NONE\".",
		`{ "reasoning": "...", "consensus_answer": "...", "average_confidence": 0.85, "is_low_confidence": false }`,
	} {
		if !strings.Contains(user, want) {
			t.Fatalf("judge prompt lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "Aspirin") || strings.Contains(user, "crushing chest pain") || strings.Contains(user, "sentences") {
		t.Fatalf("the judge sees the question or a sentence cap:\n%s", user)
	}
	order, err := kit.PropertyOrder(req.Schema.Schema)
	if err != nil || !slices.Equal(order, []string{"reasoning", "consensus_answer", "average_confidence", "is_low_confidence"}) {
		t.Fatalf("schema order %v %v", order, err)
	}
	if !strings.Contains(string(req.Schema.Schema), `"enum":["A","B","C","D","NONE"]`) {
		t.Fatalf("schema %s", req.Schema.Schema)
	}
	// --peer-chars bounds each reasoning; the text form asks for lines.
	set := kittest.Settings(3)
	set.PeerChars, set.Structured = 5, false
	s = script([]string{kittest.First("B", 0.8, 0.2, false), kittest.First("B", 0.8, 0.2, false), kittest.First("A", 0.6, 0.4, false)}, "CONSENSUS ANSWER: B")
	kittest.Run(t, Protocol, "judge", set, s)
	user = s.User(t, kittest.Key(kit.KindJudge, 0, -1))
	for _, want := range []string{`"reasoning": "B fit…"`, "REASONING: <your working>\nCONSENSUS ANSWER: <one option letter, or NONE>\nAVERAGE CONFIDENCE: <0 to 1>\nIS LOW CONFIDENCE: <yes or no>"} {
		if !strings.Contains(user, want) {
			t.Fatalf("text judge prompt lacks %q:\n%s", want, user)
		}
	}
}

// TestAccounting: 'medteam calls' prints both modes' formulas.
func TestAccounting(t *testing.T) {
	var b strings.Builder
	if err := Protocol.Accounting(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"judge            3  3       1      4      0", "judge:mode=code  3  3       0      3      0"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("accounting lacks %q:\n%s", want, b.String())
		}
	}
}

func TestParseVerdict(t *testing.T) {
	for _, tt := range []struct {
		text         string
		answer       string
		none         bool
		reason       string
		avg          float64
		low, lowRead bool
		note         string
	}{
		{`{"reasoning":"r","consensus_answer":"C","average_confidence":0.66,"is_low_confidence":true}`, "C", false, "", 0.66, true, true, ""},
		{`{"reasoning":"r","consensus_answer":"NONE","average_confidence":0.66,"is_low_confidence":true}`, "", true, "", 0.66, true, true, ""},
		{"```json\n{\"consensus_answer\": \"Warfarin\", \"average_confidence\": \"72%\", \"is_low_confidence\": \"no\"}\n```", "C", false, "", 0.72, false, true, "read as 0.72"},
		{"REASONING: Two experts favour A.\nCONSENSUS ANSWER: A\nAVERAGE CONFIDENCE: 0.81\nIS LOW CONFIDENCE: No", "A", false, "", 0.81, false, true, ""},
		{"CONSENSUS ANSWER: **none**\nAVERAGE CONFIDENCE: 0.5\nIS LOW CONFIDENCE: yes", "", true, "", 0.5, true, true, ""},
		{`{"answer":"B","average_confidence":81,"low_confidence":"perhaps"}`, "B", false, "", -1, false, false, "not a yes or no"},
		{"The consensus answer is D.", "D", false, "", -1, false, false, "no low-confidence flag"},
		{"Either A or B could be right.", "", false, answer.ReasonNoAnswer, -1, false, false, "no average confidence"},
		{"CONSENSUS ANSWER: A\nCONSENSUS ANSWER: C", "", false, answer.ReasonAmbiguous, -1, false, false, ""},
		{`{"consensus_answer":"E"}`, "", false, answer.ReasonNotAnOption, -1, false, false, ""},
		{"", "", false, answer.ReasonEmpty, -1, false, false, ""},
	} {
		v := ParseVerdict(tt.text, abcd, mcq)
		if v.Answer != tt.answer || v.None != tt.none || (tt.reason != "" && v.Reason != tt.reason) || v.AverageConfidence != tt.avg || v.LowConfidence != tt.low || v.LowConfidenceRead != tt.lowRead {
			t.Fatalf("%q: %+v", tt.text, v)
		}
		if tt.note != "" && !slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
			t.Fatalf("%q: notes %q lack %q", tt.text, v.Notes, tt.note)
		}
	}
}

// TestParseVerdictTriage: the urgency is a whole number on the 1…L scale
// shown (or a level named), mapped to its rank; the specialty is read where
// asked.
func TestParseVerdictTriage(t *testing.T) {
	spec := tri
	spec.AskSpecialty = true
	shuffled := Task{Letters: []string{"A", "B", "C"}, Levels: 3, Ranks: []int{2, 0, 1}}
	for _, tt := range []struct {
		text      string
		task      Task
		urgency   int
		specialty string
		reason    string
	}{
		{`{"reasoning":"r","consensus_urgency":3,"average_confidence":0.8,"is_low_confidence":false}`, tri, 2, "", ""},
		{`{"reasoning":"r","consensus_urgency":"2","average_confidence":0.8,"is_low_confidence":false}`, tri, 1, "", ""},
		{`{"reasoning":"r","consensus_specialty":"Cardiology","consensus_urgency":1,"average_confidence":0.8,"is_low_confidence":false}`, spec, 0, "Cardiology", ""},
		{"REASONING: r\nCONSENSUS SPECIALTY: General Practice\nCONSENSUS URGENCY: 2\nAVERAGE CONFIDENCE: 0.5\nIS LOW CONFIDENCE: yes", spec, 1, "General Practice", ""},
		{`{"consensus_urgency":"em"}`, tri, 2, "", ""},
		{`{"consensus_urgency":"em"}`, shuffled, 2, "", ""},
		{`{"consensus_urgency":"A"}`, shuffled, 2, "", ""},
		{`{"consensus_urgency":4}`, tri, -1, "", answer.ReasonNotAnOption},
		{`{"consensus_urgency":2.5}`, tri, -1, "", answer.ReasonNotAnOption},
		{`{"consensus_urgency":0}`, tri, -1, "", answer.ReasonNotAnOption},
		{`{"consensus_urgency":"soon"}`, tri, -1, "", answer.ReasonNoAnswer},
		{"The level for this case.\nANSWER: Emergency care", tri, 2, "", ""},
		{"No idea.", tri, -1, "", answer.ReasonNoAnswer},
	} {
		opts := []answer.Option{{Letter: "A", Text: "sc — Self-care", Aliases: []string{"sc", "Self-care"}}, {Letter: "B", Text: "ne — Non-emergency", Aliases: []string{"ne", "Non-emergency"}},
			{Letter: "C", Text: "em — Emergency care", Aliases: []string{"em", "Emergency care", "Emergency"}}}
		if tt.task.Ranks[0] == 2 {
			opts = []answer.Option{{Letter: "A", Text: "em — Emergency care", Aliases: []string{"em", "Emergency care", "Emergency"}},
				{Letter: "B", Text: "sc — Self-care", Aliases: []string{"sc", "Self-care"}}, {Letter: "C", Text: "ne — Non-emergency", Aliases: []string{"ne", "Non-emergency"}}}
		}
		v := ParseVerdict(tt.text, opts, tt.task)
		if v.Urgency != tt.urgency || v.Specialty != tt.specialty || (tt.reason != "" && v.Reason != tt.reason) || (v.Urgency < 0) != (v.Reason != "") {
			t.Fatalf("%q: urgency %d specialty %q reason %q (%s); want %d %q %q", tt.text, v.Urgency, v.Specialty, v.Reason, v.Err, tt.urgency, tt.specialty, tt.reason)
		}
	}
}

// FuzzParseVerdict: never panics, never names a letter that is not an
// option nor an urgency off the scale, an unread deciding field always has
// a reason, numbers stay in range.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range answertest.Seeds {
		f.Add(s, uint8(3), "x", false)
	}
	f.Add(`{"consensus_answer":"B","average_confidence":1e400,"is_low_confidence":"yes"}`, uint8(3), "Heparin", false)
	f.Add("CONSENSUS ANSWER: **C**\nIS LOW CONFIDENCE: yes\nAVERAGE CONFIDENCE: 7/10", uint8(2), "y", false)
	f.Add(`{"consensus_urgency":1e19,"consensus_specialty":"x"}`, uint8(3), "em", true)
	f.Add("CONSENSUS URGENCY: -3\nCONSENSUS SPECIALTY:", uint8(4), "z", true)
	f.Fuzz(func(t *testing.T, text string, n uint8, optText string, triage bool) {
		opts := answertest.FuzzOptions(n, optText)
		task := Task{Letters: make([]string, len(opts))}
		for i, o := range opts {
			task.Letters[i] = o.Letter
		}
		if triage && len(opts) > 0 {
			task.Levels, task.AskSpecialty = len(opts), true
			for i := range opts {
				task.Ranks = append(task.Ranks, len(opts)-1-i)
			}
		}
		v := ParseVerdict(text, opts, task)
		if v.Answer != "" && !slices.Contains(task.Letters, v.Answer) {
			t.Fatalf("answer %q not an option", v.Answer)
		}
		if v.Urgency < -1 || v.Urgency >= max(task.Levels, 1) || (!task.Triage() && v.Urgency != -1) {
			t.Fatalf("urgency %d on %d levels", v.Urgency, task.Levels)
		}
		if !v.Read(task) && (v.Reason == "" || v.Err == "") {
			t.Fatalf("unread without a reason: %+v", v)
		}
		if v.AverageConfidence != -1 && (v.AverageConfidence < 0 || v.AverageConfidence > 1) {
			t.Fatalf("average %v", v.AverageConfidence)
		}
		if v.LowConfidence && !v.LowConfidenceRead {
			t.Fatal("flag without a reading")
		}
		if v.None && v.Answer != "" {
			t.Fatal("NONE with an answer")
		}
	})
}

var _ protocol.Arm = Arm{}

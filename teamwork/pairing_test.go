package teamwork

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// promptLog records every request's user prompt and hash by call identity.
type promptLog struct {
	mu     sync.Mutex
	next   llm.Client
	prompt map[string]string // kind/turn/agent → user prompt
	hash   map[string]string // kind/turn/agent → llm.RequestHash
}

func newPromptLog(next llm.Client) *promptLog {
	return &promptLog{next: next, prompt: map[string]string{}, hash: map[string]string{}}
}

func callKey(m llm.Meta) string { return fmt.Sprintf("%s/%d/%d", m.Kind, m.Turn, m.Agent) }

func (p *promptLog) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.mu.Lock()
	k := callKey(req.Meta)
	p.prompt[k] = req.Messages[len(req.Messages)-1].Content
	p.hash[k] = llm.RequestHash(req)
	p.mu.Unlock()
	return p.next.Chat(ctx, req)
}

// promptSensitive is a real-model-like stub: what it answers depends on the
// whole request (system and user prompt), as a real model's does, so any
// difference between two arms' requests can change the team it recruits.
type promptSensitive struct{}

func (promptSensitive) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	h := sha256.New()
	for _, m := range req.Messages {
		h.Write([]byte(m.Role))
		h.Write([]byte(m.Content))
	}
	u := binary.LittleEndian.Uint64(h.Sum(nil))
	var text string
	switch req.Meta.Kind {
	case KindAssess:
		text = fmt.Sprintf(`{"agents": %d, "analysis": "Mind the qualifier %d."}`, 2+u%3, u%97)
	case KindRecruit:
		specs := []string{"Cardiologist", "Neurologist", "Pharmacologist", "Internist", "Radiologist", "Surgeon"}
		var roles []string
		for i := range 4 {
			roles = append(roles, fmt.Sprintf(`{"name": %q, "focus": "f%d"}`, specs[(u>>(8*i)+uint64(i))%uint64(len(specs))]+fmt.Sprint(i), i))
		}
		text = `{"roles": [` + strings.Join(roles, ",") + `]}`
	case KindSynthesize:
		text = `{"facts": ["f"], "report": "r", "quality": [{"agent": 1, "score": 0.7}]}`
	case KindMediate:
		text = `{"summary": "s", "leaning": "A"}`
	case KindMonitorSelect:
		text = `{"agent": 1, "concern": "c"}`
	case KindMonitorRate:
		text = `{"quality": 0.5, "debated_point": "p"}`
	case KindTieBreak:
		text = `{"answer": "A", "reasoning": "r"}`
	default:
		letters := []string{"A", "B", "C", "D"}
		f := letters[u%4]
		rest := slices.DeleteFunc(slices.Clone(letters), func(s string) bool { return s == f })
		text = fmt.Sprintf(`{"reasoning": "because %d", "ranking": ["%s","%s","%s","%s"], "confidence": 0.6, "facts": ["fact %d"], "response": "ok", "accepts": false}`, u%13, f, rest[0], rest[1], rest[2], u%3)
	}
	return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}, Attempts: 1}, nil
}

// TestRecruitmentPairedAcrossPresets (issue 8 item 3, DESIGN §4 "Paired
// arms"): on a model whose answers depend on the whole request, both
// recruitment calls are the same request in all nine presets, so every arm
// gets the same team size and roles; and the initial predictions of arms
// whose prediction prompts do not depend on their components (no SMM, no
// TO — trust is not shown before it is observed) are the same requests too.
func TestRecruitmentPairedAcrossPresets(t *testing.T) {
	for _, q := range sampleQuestions(t, 12) {
		item := q.Item()
		ref := map[string]string{}
		var refTeam string
		predictRef := map[string]string{}
		for _, preset := range PresetNames() {
			c, err := ParseComponents(preset, Default())
			if err != nil {
				t.Fatal(err)
			}
			log := newPromptLog(promptSensitive{})
			out, err := (&Team{Config: c, Model: "m", Arm: preset, RunSeed: 3}).Run(context.Background(), log, item)
			if err != nil {
				t.Fatalf("%s: %v", preset, err)
			}
			for _, k := range []string{KindAssess, KindRecruit} {
				key := callKey(llm.Meta{Kind: k, Agent: -1})
				h := log.hash[key]
				if h == "" {
					t.Fatalf("%s: no %s call", preset, k)
				}
				if ref[key] == "" {
					ref[key] = h
				} else if h != ref[key] {
					t.Errorf("question %s, preset %s: the %s request differs from preset base's; the arms are not paired", q.ID, preset, k)
				}
			}
			roles := make([]string, len(out.Roles)) // the names as recruited (HiddenRole marks an arm's, issue 36)
			for i, r := range out.Roles {
				roles[i] = strings.TrimSuffix(r, HiddenRole)
			}
			team := fmt.Sprint(out.N, roles)
			if refTeam == "" {
				refTeam = team
			} else if team != refTeam {
				t.Errorf("question %s, preset %s: team %s, base recruited %s", q.ID, preset, team, refTeam)
			}
			if c.SMM || c.Orientation && c.Leadership {
				continue
			}
			for i := range out.N {
				key := callKey(llm.Meta{Kind: kit.KindFirst, Agent: i})
				if predictRef[key] == "" {
					predictRef[key] = log.hash[key]
				} else if log.hash[key] != predictRef[key] {
					t.Errorf("question %s, preset %s: agent %d's prediction request differs from base's, though neither shows SMM or roles", q.ID, preset, i+1)
				}
			}
		}
	}
}

// keyedLeader answers predictions per agent (the agent abstain abstains)
// and, as leader, scores every expert the synthesis prompt shows with a
// score that identifies the expert (0.1 × number), keyed or as a list.
type keyedLeader struct {
	abstain int
	bare    bool // answer a bare list in the order shown (the positional trap)

	mu        sync.Mutex
	synthesis string
	tiebreak  string
}

var reShown = regexp.MustCompile(`(?m)^POSITION agent (\d+): ([A-D])`)

func (k *keyedLeader) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	var text string
	switch m := req.Meta; m.Kind {
	case KindAssess:
		text = `{"agents": 3, "analysis": "a"}`
	case KindRecruit:
		text = `{"roles": [{"name": "R1", "focus": ""}, {"name": "R2", "focus": ""}, {"name": "R3", "focus": ""}]}`
	case KindSynthesize:
		k.mu.Lock()
		k.synthesis = prompt
		k.mu.Unlock()
		var parts []string
		for _, sm := range reShown.FindAllStringSubmatch(prompt, -1) {
			var n int
			fmt.Sscan(sm[1], &n)
			if k.bare {
				parts = append(parts, fmt.Sprintf("%.1f", 0.1*float64(n)))
			} else {
				parts = append(parts, fmt.Sprintf(`{"agent": %d, "score": %.1f}`, n, 0.1*float64(n)))
			}
		}
		text = `{"facts": [], "report": "", "quality": [` + strings.Join(parts, ", ") + `]}`
	case KindMediate:
		text = `{"summary": "s", "leaning": ""}`
	case KindTieBreak:
		k.mu.Lock()
		k.tiebreak = prompt
		k.mu.Unlock()
		text = `{"answer": "A", "reasoning": "r"}`
	default:
		switch {
		case m.Agent == k.abstain && m.Kind == kit.KindFirst:
			text = "I would rather not say."
		case m.Agent%2 == 0:
			text = fmt.Sprintf(`{"reasoning": "Agent %d thinks aspirin because of the platelet effect.", "ranking": ["A","B","C","D"], "confidence": 0.6, "facts": ["fact of agent %d"]}`, m.Agent+1, m.Agent+1)
		default:
			text = fmt.Sprintf(`{"reasoning": "Agent %d thinks heparin because of the thrombus.", "ranking": ["B","A","C","D"], "confidence": 0.6, "facts": ["fact of agent %d"]}`, m.Agent+1, m.Agent+1)
		}
	}
	return llm.Response{Text: text, Usage: llm.Usage{PromptTokens: 1, CompletionTokens: 1}, Attempts: 1}, nil
}

// TestLeaderSeesReasoning (issue 8 item 1): the synthesis prompt shows each
// expert's reasoning and stated facts, and an abstaining expert as such.
func TestLeaderSeesReasoning(t *testing.T) {
	c, _ := ParseComponents("l+t+smm", Default())
	k := &keyedLeader{abstain: 1}
	if _, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), k, fourOptions); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"POSITION agent 1: A > B > C > D (confidence 0.60)",
		"REASONING agent 1: Agent 1 thinks aspirin because of the platelet effect.",
		"FACTS agent 1: fact of agent 1",
		"POSITION agent 2: (no readable answer)",
		"REASONING agent 3: Agent 3 thinks aspirin",
		"FACTS agent 3: fact of agent 3",
	} {
		if !strings.Contains(k.synthesis, want) {
			t.Errorf("synthesis prompt lacks %q:\n%s", want, k.synthesis)
		}
	}
	if strings.Contains(k.synthesis, "REASONING agent 2") {
		t.Errorf("an abstaining expert has no reasoning to show:\n%s", k.synthesis)
	}
}

// TestTieBreakSeesReasoningAndTrust (issue 8 item 1): the tie-break shows the
// final answers' reasoning and facts and, with trust, the trust scores.
func TestTieBreakSeesReasoningAndTrust(t *testing.T) {
	c, _ := ParseComponents("l+t", Default())
	c.Agents = 2
	k := &keyedLeader{abstain: -1}
	s := &scripted{reply: func(m llm.Meta, prompt string) string {
		if m.Kind == KindSynthesize {
			return `{"facts": [], "report": "", "quality": [{"agent": 1, "score": 0.5}, {"agent": 2, "score": 0.5}]}`
		}
		if m.Kind == KindTieBreak {
			k.tiebreak = prompt
		}
		r := tieScript(`{"answer": "B", "reasoning": "r"}`)(m, prompt)
		return strings.Replace(r, `"reasoning": "r"`, fmt.Sprintf(`"reasoning": "final word of agent %d"`, m.Agent+1), 1)
	}}
	out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), s, fourOptions)
	if err != nil {
		t.Fatal(err)
	}
	if out.TieBrokenBy != "leader" {
		t.Fatalf("no leader tie-break: %+v", out.Decision)
	}
	for _, want := range []string{"TRUST:\nagent 1: 0.71\nagent 2: 0.71", "REASONING agent 1: final word of agent 1", "REASONING agent 2: final word of agent 2", "FACTS agent 2: x"} {
		if !strings.Contains(k.tiebreak, want) {
			t.Errorf("tie-break prompt lacks %q:\n%s", want, k.tiebreak)
		}
	}
}

// TestQualityKeyedByAgent (issue 8 item 2): with an abstaining agent in
// every position, each leader score lands on the expert it names; a bare
// list that skips the abstainer (the positional trap) updates nobody and is
// noted.
func TestQualityKeyedByAgent(t *testing.T) {
	c, _ := ParseComponents("l+t", Default())
	for abstain := range 3 {
		for _, bare := range []bool{false, true} {
			t.Run(fmt.Sprintf("agent %d abstains, bare=%v", abstain+1, bare), func(t *testing.T) {
				k := &keyedLeader{abstain: abstain, bare: bare}
				out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), k, fourOptions)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					wantQ := 0.1 * float64(i+1)
					if i == abstain || bare {
						wantQ = -1
					}
					if math.Abs(out.Quality[i]-wantQ) > 1e-9 {
						t.Errorf("agent %d: quality %v, want %v (all %v)", i+1, out.Quality[i], wantQ, out.Quality)
					}
					wantT := TrustStart
					if wantQ >= 0 {
						wantT = updateTrust(TrustStart, wantQ)
					}
					if math.Abs(out.Trust[i]-wantT) > 1e-9 {
						t.Errorf("agent %d: trust %v, want %v", i+1, out.Trust[i], wantT)
					}
				}
				var notes []string
				for _, p := range out.Parses {
					if p.Kind == KindSynthesize {
						notes = p.Notes
					}
				}
				if bare != (len(notes) > 0 && strings.Contains(strings.Join(notes, "\n"), "unnumbered")) {
					t.Errorf("synthesis notes %q (bare list: %v)", notes, bare)
				}
			})
		}
	}
}

// TestTrustShownOnceObserved (issue 8 item 5): no prediction prompt shows
// trust (nothing has been observed yet); discussion prompts show it after the
// first observation; when the leader's scores cannot be read there is no
// observation and no trust block.
func TestTrustShownOnceObserved(t *testing.T) {
	tests := []struct {
		preset    string
		synthesis string
		discuss   bool // whether discussion turn 1 shows TRUST
	}{
		{"t", "", true}, // heuristic quality observed after prediction
		{"l+t", `{"facts": [], "report": "", "quality": [{"agent": 1, "score": 0.9}]}`, true},
		{"l+t", `{"facts": [], "report": "", "quality": "excellent"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.preset+"/"+tt.synthesis, func(t *testing.T) {
			c, _ := ParseComponents(tt.preset, Default())
			c.Agents = 2
			var mu sync.Mutex
			prompts := map[string]string{}
			s := &scripted{reply: func(m llm.Meta, prompt string) string {
				mu.Lock()
				prompts[callKey(m)] = prompt
				mu.Unlock()
				if m.Kind == KindSynthesize {
					return tt.synthesis
				}
				return tieScript(`{"answer": "A"}`)(m, prompt)
			}}
			if _, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), s, fourOptions); err != nil {
				t.Fatal(err)
			}
			for k, p := range prompts {
				if strings.HasPrefix(k, kit.KindFirst+"/") && strings.Contains(p, "TRUST:") {
					t.Errorf("%s shows trust before any observation:\n%s", k, p)
				}
			}
			d := prompts[callKey(llm.Meta{Kind: KindDiscuss, Turn: 1, Agent: 0})]
			if d == "" {
				t.Fatal("no discussion prompt recorded")
			}
			if strings.Contains(d, "TRUST:") != tt.discuss {
				t.Errorf("discussion turn 1 shows trust: %v, want %v:\n%s", !tt.discuss, tt.discuss, d)
			}
		})
	}
}

// TestAnalysisNamingAnOptionIsRecorded (issue 8 item 4): the assessment
// prompt forbids naming an answer; a parsed analysis that does is recorded
// (Outcome.AnalysisNamesOption and a note on the assess call), one that only
// describes the problem is not.
func TestAnalysisNamingAnOptionIsRecorded(t *testing.T) {
	tests := []struct{ analysis, want string }{
		{"The answer is B; watch the timing of the anticoagulant.", "B"},
		{"Heparin is the answer, because of the thrombus.", "B"},
		{"Option B is a distractor; the key qualifier is 'most likely'.", ""},
		{"Watch the timing: aspirin versus warfarin is the crux.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.analysis, func(t *testing.T) {
			c, _ := ParseComponents("base", Default())
			var assessPrompt string
			s := &scripted{reply: func(m llm.Meta, prompt string) string {
				if m.Kind == KindAssess {
					assessPrompt = prompt
					return fmt.Sprintf(`{"agents": 2, "analysis": %q}`, tt.analysis)
				}
				return tieScript(`{"answer": "A"}`)(m, prompt)
			}}
			out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), s, fourOptions)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(assessPrompt, "do not say which option is correct") {
				t.Fatalf("assessment prompt lacks the rule:\n%s", assessPrompt)
			}
			if out.AnalysisNamesOption != tt.want {
				t.Fatalf("analysis_names_option %q, want %q", out.AnalysisNamesOption, tt.want)
			}
			var notes []string
			for _, p := range out.Parses {
				if p.Kind == KindAssess {
					notes = p.Notes
				}
			}
			if (len(notes) > 0) != (tt.want != "") {
				t.Fatalf("assess notes %q", notes)
			}
		})
	}
}

// TestParseNotesReachTheOutcome (issue 8, done-when): letters outside the
// options and out-of-range confidences are parse notes of the call, never
// silently dropped or rescaled.
func TestParseNotesReachTheOutcome(t *testing.T) {
	c, _ := ParseComponents("base", Default())
	s := &scripted{reply: func(m llm.Meta, prompt string) string {
		switch m.Kind {
		case KindAssess:
			return `{"agents": 2, "analysis": "a"}`
		case KindRecruit:
			return `{"roles": [{"name": "A1", "focus": ""}, {"name": "A2", "focus": ""}]}`
		case kit.KindFirst:
			if m.Agent == 0 {
				return `{"reasoning": "r", "ranking": ["B", "E", "A"], "confidence": 85}`
			}
			return `{"reasoning": "r", "ranking": ["C", "A", "B", "D"], "confidence": "high"}`
		}
		return `{"reasoning": "r", "ranking": ["A", "B", "C", "D"], "confidence": 1.7}`
	}}
	out, err := (&Team{Config: c, RunSeed: 1}).Run(context.Background(), s, fourOptions)
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for _, p := range out.Parses {
		notes[fmt.Sprintf("%s/%d/%d", p.Kind, p.Turn, p.Agent)] = strings.Join(p.Notes, " | ")
	}
	for key, want := range map[string][]string{
		"first/0/0": {`"E"`, "85"},
		"first/0/1": {`"high"`},
		"final/2/0": {"1.7"},
	} {
		for _, w := range want {
			if !strings.Contains(notes[key], w) {
				t.Errorf("%s: notes %q lack %s", key, notes[key], w)
			}
		}
	}
	if c := out.Rounds[0][0].Confidence; c != -1 {
		t.Errorf("confidence 85 became %v; a bare number outside [0,1] is unknown (-1), not rescaled", c)
	}
}

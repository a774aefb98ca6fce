package protocols_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/llmtest"
	"github.com/medteam-bench/medteam/llm/openai"
	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
	"github.com/medteam-bench/medteam/protocols/medagents"
	"github.com/medteam-bench/medteam/teamwork"
)

// The wire order of every call kind (issue 22 items 1, 2 and 12; DESIGN §5
// "Fidelity"): structured-output backends generate an object's fields in
// the order of its schema, so the field that carries a call's reasoning
// must come first on the wire, or every protocol answers first and
// rationalises after. These are the kinds whose reasoning-like field is not
// called "reasoning"; every other kind that carries reasoning — including
// kinds added later, by any protocol — must put "reasoning" first.
var reasoningField = map[string]struct{ json, label string }{
	kit.KindPeerReview:          {"reviews", "REVIEW"},        // strengths and weaknesses of each response, then the ranking
	teamwork.KindAssess:         {"analysis", "ANALYSIS"},     // what makes the question tricky, then the team size
	teamwork.KindSynthesize:     {"facts", "FACTS"},           // facts and report, then the quality scores
	teamwork.KindMediate:        {"summary", "SUMMARY"},       // the mediation, then the leaning
	teamwork.KindMonitorSelect:  {"concern", "CONCERN"},       // the concern, then the expert it concerns
	teamwork.KindMonitorRespond: {"response", "RESPONSE"},     // the reply, then acceptance and ranking
	teamwork.KindMonitorRate:    {"debated_point", "DEBATED"}, // the point under debate, then the rating
	// MedAgents' analyses, report, advice and revision are reasoning through
	// and through (Tang et al.: one free-text field each).
	medagents.KindQuestionAnalysis: {"analysis", ""},
	medagents.KindOptionAnalysis:   {"analysis", ""},
	medagents.KindReport:           {"key_knowledge", ""},
	medagents.KindAdvice:           {"revisions", ""},
	medagents.KindRevision:         {"total_analysis", ""},
}

// withoutReasoning are the kinds that carry no reasoning at all (named in
// docs/protocols.md): their one field is the answer itself.
var withoutReasoning = map[string]struct{ json, label string }{
	kit.KindZeroShot:     {"answer", "ANSWER"}, // zeroshot asks for the letter alone, by definition
	teamwork.KindRecruit: {"roles", "ROLE 1"},  // the recruited specialties and their focus
	// MedAgents asks, as its public code does, for the domains, a yes/no
	// vote on the report and the final option alone (docs/protocols.md#medagents).
	medagents.KindQuestionDomains: {"fields", ""},
	medagents.KindOptionDomains:   {"fields", ""},
	medagents.KindVote:            {"vote", ""},
	medagents.KindFinal:           {"answer", ""},
}

// An empty label marks a kind whose prompt keeps its source code's wording of
// the reply format (MedAgents'): the schema order and the JSON instruction
// are checked, not text-mode labels, which are the reference's own.

// mustSee are the kinds the arms below must exercise, so a kind that
// silently stops being sent (or is never reached) fails the test.
var mustSee = []string{kit.KindFirst, kit.KindZeroShot, kit.KindPeerReview, kit.KindChairman, kit.KindJudge,
	teamwork.KindAssess, teamwork.KindRecruit, teamwork.KindSynthesize, teamwork.KindDiscuss, teamwork.KindFinal,
	teamwork.KindMediate, teamwork.KindMonitorSelect, teamwork.KindMonitorRespond, teamwork.KindMonitorRate, teamwork.KindTieBreak,
	"revise", "veto_debate", "veto_ballot", medagents.KindQuestionDomains, medagents.KindQuestionAnalysis, medagents.KindReport,
	medagents.KindVote, medagents.KindFinal, "md_route", "md_basic", "md_recruit", "md_moderator", "md_mdt_recruit", "md_decision"}

// sentenceCap matches a length cap on reasoning written as a number of
// sentences ("at most 4 sentences", "<one sentence>", "in one or two
// sentences"). Reasoning is bounded by --max-tokens only.
var sentenceCap = regexp.MustCompile(`(?i)(at most|up to|no more than|in|within|<)\s*(\d+|one|two|three|four|five)(\s+or\s+(\d+|two|three|four|five))?\s+sentences?\b`)

// seedAnalysisCap is the one sentence count a prompt may carry: seed 002
// §2.1 defines the shared model's question analysis as "Trick detection
// (1-2 sentences)" — the analysis, shown to every agent, not an agent's
// reasoning.
const seedAnalysisCap = "In one or two sentences, note what makes it tricky"

// tieArm is (the label prefix of) a teamwork arm whose two agents tie (A>B…
// against B>A…), so the leader's tie-break call is made.
const tieArm = "c2/n2"

// wireKey identifies a request by what reaches the server: model, messages
// and seed.
func wireKey(model string, msgs []llm.Message, seed int64) string {
	h := sha256.New()
	h.Write([]byte(model))
	for _, m := range msgs {
		fmt.Fprintf(h, "\x00%s\x00%d\x00%s", m.Role, len(m.Content), m.Content)
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	h.Write(b[:])
	return hex.EncodeToString(h.Sum(nil))
}

// sent remembers each request a protocol made (its metadata: which call
// kind) by its wire key, so the server side can tell which kind a body is.
type sent struct {
	next llm.Client
	mu   sync.Mutex
	reqs map[string]llm.Request
}

func (s *sent) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	s.reqs[wireKey(req.Model, req.Messages, req.Seed)] = req
	s.mu.Unlock()
	return s.next.Chat(ctx, req)
}

func (s *sent) lookup(key string) (llm.Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reqs[key]
	return r, ok
}

// stubFor answers a request as the dry-run stubs do (well-formed, so every
// protocol goes through all its calls), and the tie arm's agents with
// opposite rankings.
func stubFor(req llm.Request) string {
	if strings.HasPrefix(req.Meta.Arm, tieArm) && req.Meta.Agent >= 0 {
		if req.Meta.Agent%2 == 0 {
			return `{"reasoning":"r","ranking":["A","B","C","D"],"confidence":0.6}`
		}
		return `{"reasoning":"r","ranking":["B","A","C","D"],"confidence":0.6}`
	}
	c := kit.Stub(false)
	if slices.Contains(teamworkKinds, req.Meta.Kind) {
		c = teamwork.Stub(false)
	}
	resp, _ := c.Chat(context.Background(), req)
	return resp.Text
}

var teamworkKinds = []string{teamwork.KindAssess, teamwork.KindRecruit, teamwork.KindSynthesize, teamwork.KindDiscuss,
	teamwork.KindFinal, teamwork.KindMediate, teamwork.KindMonitorSelect, teamwork.KindMonitorRespond, teamwork.KindMonitorRate,
	teamwork.KindTieBreak}

// wireBody is the part of a chat-completion body the test reads.
type wireBody struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Seed           int64 `json:"seed"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// wireArms are the arms the test runs: every preset of every registered
// protocol (so protocols added or changed later are covered), teamwork's
// components one by one and with the leaning shown, and the tie arm.
func wireArms(t *testing.T, structured bool) []protocol.Arm {
	t.Helper()
	var arms []protocol.Arm
	seen := map[string]bool{}
	add := func(spec string, agents int) {
		a, err := protocols.All().Parse(spec, settings(agents, structured))
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if l := a.Info().Label; !seen[l] {
			seen[l] = true
			arms = append(arms, a)
		}
	}
	for _, p := range protocols.All() {
		for _, spec := range p.Presets {
			add(spec, 3)
		}
	}
	for _, spec := range []string{"smm", "l", "to", "t", "l+mm", "full:leaning", "judge:n=4", "sc:k=3"} {
		add(spec, 3)
	}
	add("c2", 2) // tieArm
	if !seen[tieArm] && !seen[tieArm+"/text"] {
		t.Fatalf("no arm %s among %v", tieArm, seen)
	}
	return arms
}

// TestWireOrder runs every registered protocol's arms through the real
// OpenAI-compatible backend against a test server and reads each request
// body as it reaches the server: in structured mode, the first property of
// response_format.json_schema.schema and the first field the prompt's JSON
// instruction names are the kind's reasoning (reasoningField, else
// "reasoning"); in text mode, the first labelled line of the format the
// prompt asks for is; and no prompt caps reasoning with a sentence count.
func TestWireOrder(t *testing.T) {
	for _, structured := range []bool{true, false} {
		t.Run(fmt.Sprintf("structured=%v", structured), func(t *testing.T) {
			var rec *sent
			fake := llmtest.NewOpenAIServer(t, llmtest.ServerOptions{Models: []string{"m"}, Respond: func(c llmtest.Call) string {
				req, ok := rec.lookup(wireKey(c.Model, c.Messages, c.Seed))
				if !ok {
					return "{}"
				}
				return stubFor(req)
			}})
			var mu sync.Mutex
			var bodies [][]byte
			front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if strings.HasSuffix(r.URL.Path, "/chat/completions") {
					mu.Lock()
					bodies = append(bodies, b)
					mu.Unlock()
				}
				r.Body = io.NopCloser(bytes.NewReader(b))
				fake.ServeHTTP(w, r)
			}))
			t.Cleanup(front.Close)
			backend, err := openai.New(openai.Config{BaseURL: front.URL + "/v1"})
			if err != nil {
				t.Fatal(err)
			}
			rec = &sent{next: backend, reqs: map[string]llm.Request{}}
			for _, a := range wireArms(t, structured) {
				if _, err := a.Run(context.Background(), rec, kittest.Item, kittest.Unit(a.Info().Label)); err != nil {
					t.Fatalf("%s: %v", a.Info().Label, err)
				}
			}
			seen := map[string]int{}
			for _, b := range bodies {
				var wb wireBody
				if err := json.Unmarshal(b, &wb); err != nil {
					t.Fatalf("body %s: %v", b, err)
				}
				msgs := make([]llm.Message, len(wb.Messages))
				for i, m := range wb.Messages {
					msgs[i] = llm.Message{Role: m.Role, Content: m.Content}
				}
				req, ok := rec.lookup(wireKey(wb.Model, msgs, wb.Seed))
				if !ok {
					t.Fatalf("a body no protocol sent: %s", b)
				}
				kind := req.Meta.Kind
				seen[kind]++
				checkWire(t, req, wb, structured)
			}
			var missing []string
			for _, k := range mustSee {
				if seen[k] == 0 {
					missing = append(missing, k)
				}
			}
			kinds := make([]string, 0, len(seen))
			for k, n := range seen {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(kinds)
			t.Logf("%d requests read on the wire: %s", len(bodies), strings.Join(kinds, ", "))
			if len(missing) > 0 {
				t.Fatalf("kinds never sent: %v (sent: %v)", missing, kinds)
			}
		})
	}
}

// checkWire checks one request body of call kind req.Meta.Kind.
func checkWire(t *testing.T, req llm.Request, wb wireBody, structured bool) {
	t.Helper()
	kind, arm := req.Meta.Kind, req.Meta.Arm
	want, ok := reasoningField[kind]
	if !ok {
		want, ok = withoutReasoning[kind]
	}
	if !ok {
		want = struct{ json, label string }{"reasoning", "REASONING"}
	}
	for _, m := range wb.Messages {
		for _, cap := range sentenceCap.FindAllString(m.Content, -1) {
			if !(kind == teamwork.KindAssess && strings.Contains(m.Content, seedAnalysisCap) && strings.Count(m.Content, "sentence") == 1) {
				t.Errorf("%s %s: the prompt caps reasoning with %q", arm, kind, cap)
			}
		}
	}
	user := wb.Messages[len(wb.Messages)-1].Content
	if structured {
		if wb.ResponseFormat == nil || wb.ResponseFormat.JSONSchema == nil || !wb.ResponseFormat.JSONSchema.Strict {
			t.Fatalf("%s %s: no strict json_schema on the wire", arm, kind)
		}
		order, err := kit.PropertyOrder(wb.ResponseFormat.JSONSchema.Schema)
		if err != nil || len(order) == 0 {
			t.Fatalf("%s %s: schema %s: %v", arm, kind, wb.ResponseFormat.JSONSchema.Schema, err)
		}
		if order[0] != want.json {
			t.Errorf("%s %s: schema properties go out as %v; %q must be first", arm, kind, order, want.json)
		}
		instr, ok := after(user, "Reply with one JSON object only", "You MUST return only a single, valid JSON object", "as one JSON object only")
		if !ok {
			t.Fatalf("%s %s: no JSON instruction in\n%s", arm, kind, user)
		}
		if first := firstKey.FindStringSubmatch(instr); first == nil || first[1] != want.json {
			t.Errorf("%s %s: the JSON instruction names %v first, want %q:\n%s", arm, kind, first, want.json, instr)
		}
		return
	}
	if wb.ResponseFormat != nil {
		t.Fatalf("%s %s: a response_format in text mode", arm, kind)
	}
	if want.label == "" {
		return // the reference's own wording (referenceWording)
	}
	format, ok := after(user, "\nReply ", "You MUST reply in exactly these lines")
	if !ok {
		t.Fatalf("%s %s: no format instruction in\n%s", arm, kind, user)
	}
	if first := firstLabel.FindStringSubmatch(format); first == nil || first[1] != want.label {
		t.Errorf("%s %s: the format's first line is %v, want %s:\n%s", arm, kind, first, want.label, format)
	}
}

// after is the text after the first of the markers that s contains (a
// protocol's own wording of its format instruction: ours, or a seed's).
func after(s string, markers ...string) (string, bool) {
	for _, m := range markers {
		if _, rest, ok := strings.Cut(s, m); ok {
			return rest, true
		}
	}
	return "", false
}

var (
	firstKey   = regexp.MustCompile(`\{\s*"([a-z_]+)"\s*:`)
	firstLabel = regexp.MustCompile(`(?m)^(REVIEW|ROLE 1|[A-Z][A-Z ]*[A-Z])[: ]`)
)

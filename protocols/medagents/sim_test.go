package medagents

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/sim"
	"github.com/medteam-bench/medteam/llm/sim/simtest"
)

// maReq builds a MedAgents request: system and user prompts as the
// protocol writes them (only the lines the simulator reads matter).
func maReq(id, kind string, turn, agent int, seed int64, schema bool, system, user string) llm.Request {
	req := llm.Request{Model: "sim",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: "Case text.\nA) one\nB) two\n" + user}},
		Seed:     seed, Meta: llm.Meta{QuestionID: id, Arm: "medagents", Phase: "x", Kind: kind, Turn: turn, Agent: agent}}
	if schema {
		req.Schema = simtest.Schema
	}
	return req
}

// reportLine is the report's Total Analysis line leaning to lean with a
// cue of tier.
func reportLine(lean, other string, tier int) string {
	s := maReportSentences[0]
	return "Total Analysis: " + s[0] + lean + s[1] + other + s[2] + " " + sim.QualityCue(tier, 0) + "\n"
}

func adviceLine(domain, lean, against string, tier int) string {
	s := maAdviceSentences[0]
	return "Here is advice from a medical expert specialized in " + domain + ": " + s[0] + lean + s[1] + against + s[2] + " " + sim.QualityCue(tier, 0) + "\n"
}

var singleLetterWord = regexp.MustCompile(`\b[A-J]\b`)

// TestMedagentsFormats: every kind answers in the format its prompt asks
// for, in JSON and in text.
func TestMedagentsFormats(t *testing.T) {
	items, ids := simtest.Items(40, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	for _, schema := range []bool{true, false} {
		for i, id := range ids {
			ls := items[id].Letters
			text := func(kind string, turn, agent int, system, user string) string {
				return simtest.Chat(t, m, maReq(id, kind, turn, agent, int64(i), schema, system, user)).Text
			}
			field := func(s, key, prefix string) string {
				if schema {
					obj, ok := simtest.DecodeJSON(s)
					v, _ := obj[key].(string)
					if !ok || v == "" {
						t.Fatalf("%q has no %s", s, key)
					}
					return v
				}
				v, ok := strings.CutPrefix(s, prefix)
				if !ok {
					t.Fatalf("%q lacks %q", s, prefix)
				}
				return v
			}
			for _, n := range []int{5, 2, 3} {
				s := text(KindQuestionDomains, 0, -1, "", fmt.Sprintf("NUMBER OF FIELDS: %d\n", n))
				var names []string
				if schema {
					obj, _ := simtest.DecodeJSON(s)
					for _, v := range obj["fields"].([]any) {
						names = append(names, v.(string))
					}
				} else {
					names = strings.Split(field(s, "", "Medical Field: "), " | ")
				}
				if len(names) != n || !isSpecialty(names[0]) {
					t.Fatalf("domains %q for %d", s, n)
				}
			}
			sys := "You are a medical expert in the domain of Cardiologist.\nFrom your area…"
			qa := field(text(KindQuestionAnalysis, 0, 0, sys, ""), "analysis", "")
			if sim.DecodeTier(qa) < 0 || singleLetterWord.MatchString(qa) {
				t.Fatalf("question analysis %q: no cue, or names a letter", qa)
			}
			oa := field(text(KindOptionAnalysis, 0, 5, "You are a medical expert specialized in the Nephrologist domain.",
				"The evaluation from the Cardiologist expert suggests: "+qa+"\n"), "analysis", "")
			if sim.DecodeTier(oa) < 0 || letterIndex(items[id].Letters, leanOf(items[id].Letters, oa)) < 0 {
				t.Fatalf("option analysis %q", oa)
			}
			rep := text(KindReport, 0, -1, "", "Report1\nQuestion: x\nDomain: d\nAnalysis: "+qa+"\n\nReport2\nOptions:\nDomain: e\nAnalysis: "+oa+"\n")
			if schema {
				field(rep, "key_knowledge", "")
				rep = "Total Analysis: " + field(rep, "total_analysis", "")
			} else if !strings.HasPrefix(rep, "Key Knowledge: ") || !strings.Contains(rep, "\nTotal Analysis: ") {
				t.Fatalf("report %q", rep)
			}
			vote := field(text(KindVote, 1, 0, "You are a medical expert specialized in the Cardiologist domain.", rep+"\n"), "vote", "")
			if vote != "YES" && vote != "NO" {
				t.Fatalf("vote %q", vote)
			}
			adv := field(text(KindAdvice, 1, 0, "You are a medical expert specialized in the Cardiologist domain.", rep+"\n"), "revisions", "Revisions: ")
			rev := field(text(KindRevision, 1, -1, "", rep+"\nHere is advice from a medical expert specialized in Cardiologist: "+adv+"\n"), "total_analysis", "Total Analysis: ")
			fin := field(text(KindFinal, 0, -1, "", "Total Analysis: "+rev+"\n"), "answer", "Option: ")
			for _, s := range []string{adv, rev} {
				if leanOf(items[id].Letters, s) == "" || sim.DecodeTier(s) < 0 {
					t.Fatalf("%q: no lean or cue", s)
				}
			}
			if letterIndex(items[id].Letters, fin) < 0 || len(fin) != 1 || ls[0] != "A" {
				t.Fatalf("decision %q", fin)
			}
		}
	}
}

// leanOf is the letter a simulator sentence leans to ("" when none).
func leanOf(ls []string, s string) string {
	if l := decodeLean(func(x string) int { return letterIndex(ls, x) }, s); l >= 0 {
		return ls[l]
	}
	return ""
}

// TestMedagentsDeterministic: the same request gets the same text; the arm
// and the repeat change nothing.
func TestMedagentsDeterministic(t *testing.T) {
	items, ids := simtest.Items(5, 4)
	m := sim.New(simtest.Profile(t, "noisy"), items, Sim)
	for _, kind := range []string{KindQuestionDomains, KindQuestionAnalysis, KindReport, KindVote, KindAdvice, KindRevision, KindFinal} {
		for i, id := range ids {
			req := maReq(id, kind, 1, 2, int64(i), i%2 == 0, "You are a medical expert in the domain of Cardiologist.", reportLine("B", "C", 2))
			a := simtest.Chat(t, m, req).Text
			req.Meta.Arm, req.Meta.Repeat = "medagents:syn_only", 3
			if b := simtest.Chat(t, m, req).Text; a != b {
				t.Fatalf("%s: %q then %q", kind, a, b)
			}
		}
	}
}

// TestMedagentsVoteAndAdvice: an expert's vote and its advice on the same
// report agree — a "no" asks for the expert's own view, not the report's
// lean — and the vote reads the report: a report leaning to the gold with
// strong reasoning gets more yes votes than one leaning elsewhere with weak
// reasoning.
func TestMedagentsVoteAndAdvice(t *testing.T) {
	items, ids := simtest.Items(800, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	yes := func(right bool, tier int) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			it := items[id]
			lean := it.Gold
			if !right {
				lean = it.Letters[(letterIndex(items[id].Letters, it.Gold)+1)%4]
			}
			other := it.Letters[(letterIndex(items[id].Letters, lean)+2)%4]
			user := "Here is a medical report:\n" + reportLine(lean, other, tier)
			sys := "You are a medical expert specialized in the Cardiologist domain."
			v := simtest.Chat(t, m, maReq(id, KindVote, 1, i%7, int64(i), false, sys, user)).Text
			adv := simtest.Chat(t, m, maReq(id, KindAdvice, 1, i%7, int64(i+1000), false, sys, user)).Text
			if got := leanOf(items[id].Letters, adv); v == "NO" && (got == lean || got == "") {
				t.Fatalf("%s: voted no but advises %q (report leans %s): %q", id, got, lean, adv)
			}
			return v == "YES"
		})
	}
	good, bad := yes(true, 4), yes(false, 0)
	t.Logf("yes votes: report right and strong %.2f, wrong and weak %.2f", good, bad)
	if !(good > bad+0.2 && good < 1 && bad > 0) {
		t.Fatalf("yes votes: right and strong %.2f, wrong and weak %.2f", good, bad)
	}
}

// TestMedagentsRevisionFollowsAdvice: the reviser moves the report to the
// option the advice backs more often when more advice backs it, never
// without advice but for its own insight.
func TestMedagentsRevisionFollowsAdvice(t *testing.T) {
	items, ids := simtest.Items(1500, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	moved := func(n int) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			ls := items[id].Letters
			user := "Here is the original report:\n" + reportLine(ls[3], ls[2], 2)
			for j := 0; j < n; j++ {
				user += adviceLine(fmt.Sprintf("field %d", j), ls[0], ls[3], 2)
			}
			rev := simtest.Chat(t, m, maReq(id, KindRevision, 1, -1, int64(i), false, "", user)).Text
			return leanOf(items[id].Letters, rev) == ls[0]
		})
	}
	none, one, five := moved(0), moved(1), moved(5)
	t.Logf("moved to the advice: none %.2f, one advice %.2f, five %.2f", none, one, five)
	if !(none < 0.1 && one > none+0.05 && five > one+0.05 && five < 0.9) {
		t.Fatalf("moved to the advice: none %.2f, one %.2f, five %.2f", none, one, five)
	}
}

// TestMedagentsFinalFollowsStrongReport: the decision takes the report's
// lean more often when the report's reasoning reads stronger.
func TestMedagentsFinalFollowsStrongReport(t *testing.T) {
	items, ids := simtest.Items(1000, 4)
	m := sim.New(simtest.Clean(t), items, Sim)
	follows := func(tier int) float64 {
		return simtest.Share(ids, func(i int, id string) bool {
			ls := items[id].Letters
			fin := simtest.Chat(t, m, maReq(id, KindFinal, 0, -1, int64(i), false, "", reportLine(ls[2], ls[1], tier))).Text
			return fin == "Option: "+ls[2]
		})
	}
	weak, strong := follows(0), follows(4)
	t.Logf("decision follows the report: weak %.2f, strong %.2f", weak, strong)
	if !(strong > weak+0.3) {
		t.Fatalf("decision follows the report: weak %.2f, strong %.2f", weak, strong)
	}
}

// TestSimIsRegisteredWithTheProtocol: the simulator's core knows none of
// MedAgents' kinds — without the behaviour a MedAgents call is a bad
// request naming its kind — and the protocol's registry entry carries the
// behaviour that answers them.
func TestSimIsRegisteredWithTheProtocol(t *testing.T) {
	items, ids := simtest.Items(1, 4)
	req := maReq(ids[0], KindFinal, 0, -1, 1, false, "", reportLine("B", "C", 2))
	simtest.CoreRefuses(t, items, req)
	simtest.Carries(t, Protocol.Sim, Kinds...)
	if len(Protocol.Sim.Kinds) != len(Kinds) {
		t.Fatalf("Protocol.Sim carries %d kinds, MedAgents sends %d", len(Protocol.Sim.Kinds), len(Kinds))
	}
	if text := simtest.Chat(t, sim.New(simtest.Clean(t), items, *Protocol.Sim), req).Text; !strings.HasPrefix(text, "Option: ") {
		t.Fatalf("final option %q", text)
	}
}

func letterIndex(ls []string, s string) int {
	for i, l := range ls {
		if l == s {
			return i
		}
	}
	return -1
}

func isSpecialty(name string) bool {
	for i := 0; i < sim.NSpecialties; i++ {
		if sim.SpecialtyName(uint8(i)) == name {
			return true
		}
	}
	return false
}

package sim

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
)

// maReq builds a MedAgents request: system and user prompts as the
// protocol writes them (only the lines the simulator reads matter).
func maReq(id, kind string, turn, agent int, seed int64, schema bool, system, user string) llm.Request {
	req := llm.Request{Model: "sim",
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: "Case text.\nA) one\nB) two\n" + user}},
		Seed:     seed, Meta: llm.Meta{QuestionID: id, Arm: "medagents", Phase: "x", Kind: kind, Turn: turn, Agent: agent}}
	if schema {
		req.Schema = testSchema
	}
	return req
}

// reportLine is the report's Total Analysis line leaning to lean with a
// cue of tier.
func reportLine(lean, other string, tier int) string {
	s := maReportSentences[0]
	return "Total Analysis: " + s[0] + lean + s[1] + other + s[2] + " " + qualityCues[tier][0] + "\n"
}

func adviceLine(domain, lean, against string, tier int) string {
	s := maAdviceSentences[0]
	return "Here is advice from a medical expert specialized in " + domain + ": " + s[0] + lean + s[1] + against + s[2] + " " + qualityCues[tier][0] + "\n"
}

var singleLetterWord = regexp.MustCompile(`\b[A-J]\b`)

// TestMedagentsFormats: every kind answers in the format its prompt asks
// for, in JSON and in text.
func TestMedagentsFormats(t *testing.T) {
	items, ids := synthItems(40, 4)
	m := New(cleanProfile(t), items)
	for _, schema := range []bool{true, false} {
		for i, id := range ids {
			ls := items[id].Letters
			text := func(kind string, turn, agent int, system, user string) string {
				return mustChat(t, m, maReq(id, kind, turn, agent, int64(i), schema, system, user)).Text
			}
			field := func(s, key, prefix string) string {
				if schema {
					obj, ok := decodeJSON(s)
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
				s := text(kindMAQuestionDomains, 0, -1, "", fmt.Sprintf("NUMBER OF FIELDS: %d\n", n))
				var names []string
				if schema {
					obj, _ := decodeJSON(s)
					for _, v := range obj["fields"].([]any) {
						names = append(names, v.(string))
					}
				} else {
					names = strings.Split(field(s, "", "Medical Field: "), " | ")
				}
				if len(names) != n || specialtyIndex(names[0]) < 0 {
					t.Fatalf("domains %q for %d", s, n)
				}
			}
			sys := "You are a medical expert in the domain of Cardiologist.\nFrom your area…"
			qa := field(text(kindMAQuestionAnalysis, 0, 0, sys, ""), "analysis", "")
			if decodeTier(qa) < 0 || singleLetterWord.MatchString(qa) {
				t.Fatalf("question analysis %q: no cue, or names a letter", qa)
			}
			oa := field(text(kindMAOptionAnalysis, 0, 5, "You are a medical expert specialized in the Nephrologist domain.",
				"The evaluation from the Cardiologist expert suggests: "+qa+"\n"), "analysis", "")
			if decodeTier(oa) < 0 || m.items[id].letterIndex(leanOf(t, m, id, oa)) < 0 {
				t.Fatalf("option analysis %q", oa)
			}
			rep := text(kindMAReport, 0, -1, "", "Report1\nQuestion: x\nDomain: d\nAnalysis: "+qa+"\n\nReport2\nOptions:\nDomain: e\nAnalysis: "+oa+"\n")
			if schema {
				field(rep, "key_knowledge", "")
				rep = "Total Analysis: " + field(rep, "total_analysis", "")
			} else if !strings.HasPrefix(rep, "Key Knowledge: ") || !strings.Contains(rep, "\nTotal Analysis: ") {
				t.Fatalf("report %q", rep)
			}
			vote := field(text(kindMAVote, 1, 0, "You are a medical expert specialized in the Cardiologist domain.", rep+"\n"), "vote", "")
			if vote != "YES" && vote != "NO" {
				t.Fatalf("vote %q", vote)
			}
			adv := field(text(kindMAAdvice, 1, 0, "You are a medical expert specialized in the Cardiologist domain.", rep+"\n"), "revisions", "Revisions: ")
			rev := field(text(kindMARevision, 1, -1, "", rep+"\nHere is advice from a medical expert specialized in Cardiologist: "+adv+"\n"), "total_analysis", "Total Analysis: ")
			fin := field(text(kindMAFinal, 0, -1, "", "Total Analysis: "+rev+"\n"), "answer", "Option: ")
			for _, s := range []string{adv, rev} {
				if leanOf(t, m, id, s) == "" || decodeTier(s) < 0 {
					t.Fatalf("%q: no lean or cue", s)
				}
			}
			if m.items[id].letterIndex(fin) < 0 || len(fin) != 1 || ls[0] != "A" {
				t.Fatalf("decision %q", fin)
			}
		}
	}
}

// leanOf is the letter a simulator sentence leans to ("" when none).
func leanOf(t *testing.T, m *Model, id, s string) string {
	c := call{it: m.items[id], n: len(m.items[id].letters)}
	if l := c.decodeLean(s); l >= 0 {
		return c.it.letters[l]
	}
	return ""
}

// TestMedagentsDeterministic: the same request gets the same text; the arm
// and the repeat change nothing.
func TestMedagentsDeterministic(t *testing.T) {
	items, ids := synthItems(5, 4)
	m := New(mustProfile(t, "noisy"), items)
	for _, kind := range []string{kindMAQuestionDomains, kindMAQuestionAnalysis, kindMAReport, kindMAVote, kindMAAdvice, kindMARevision, kindMAFinal} {
		for i, id := range ids {
			req := maReq(id, kind, 1, 2, int64(i), i%2 == 0, "You are a medical expert in the domain of Cardiologist.", reportLine("B", "C", 2))
			a := mustChat(t, m, req).Text
			req.Meta.Arm, req.Meta.Repeat = "medagents:syn_only", 3
			if b := mustChat(t, m, req).Text; a != b {
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
	items, ids := synthItems(800, 4)
	m := New(cleanProfile(t), items)
	yes := func(right bool, tier int) float64 {
		k := 0
		for i, id := range ids {
			it := items[id]
			lean := it.Gold
			if !right {
				lean = it.Letters[(m.items[id].letterIndex(it.Gold)+1)%4]
			}
			other := it.Letters[(m.items[id].letterIndex(lean)+2)%4]
			user := "Here is a medical report:\n" + reportLine(lean, other, tier)
			sys := "You are a medical expert specialized in the Cardiologist domain."
			v := mustChat(t, m, maReq(id, kindMAVote, 1, i%7, int64(i), false, sys, user)).Text
			adv := mustChat(t, m, maReq(id, kindMAAdvice, 1, i%7, int64(i+1000), false, sys, user)).Text
			if got := leanOf(t, m, id, adv); v == "NO" && (got == lean || got == "") {
				t.Fatalf("%s: voted no but advises %q (report leans %s): %q", id, got, lean, adv)
			}
			if v == "YES" {
				k++
			}
		}
		return float64(k) / float64(len(ids))
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
	items, ids := synthItems(1500, 4)
	m := New(cleanProfile(t), items)
	moved := func(n int) float64 {
		k := 0
		for i, id := range ids {
			ls := items[id].Letters
			user := "Here is the original report:\n" + reportLine(ls[3], ls[2], 2)
			for j := 0; j < n; j++ {
				user += adviceLine(fmt.Sprintf("field %d", j), ls[0], ls[3], 2)
			}
			rev := mustChat(t, m, maReq(id, kindMARevision, 1, -1, int64(i), false, "", user)).Text
			if leanOf(t, m, id, rev) == ls[0] {
				k++
			}
		}
		return float64(k) / float64(len(ids))
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
	items, ids := synthItems(1000, 4)
	m := New(cleanProfile(t), items)
	follows := func(tier int) float64 {
		k := 0
		for i, id := range ids {
			ls := items[id].Letters
			fin := mustChat(t, m, maReq(id, kindMAFinal, 0, -1, int64(i), false, "", reportLine(ls[2], ls[1], tier))).Text
			if fin == "Option: "+ls[2] {
				k++
			}
		}
		return float64(k) / float64(len(ids))
	}
	weak, strong := follows(0), follows(4)
	t.Logf("decision follows the report: weak %.2f, strong %.2f", weak, strong)
	if !(strong > weak+0.3) {
		t.Fatalf("decision follows the report: weak %.2f, strong %.2f", weak, strong)
	}
}

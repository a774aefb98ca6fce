package council

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
	"github.com/medteam-bench/medteam/protocols/kit/kittest"
)

// TestAssign: every reviewer sees every other agent exactly once and never
// itself; the order is a function of the seed; over seeds every agent gets
// every label.
func TestAssign(t *testing.T) {
	for n := 2; n <= 8; n++ {
		for i := range n {
			a := Assign(n, i, 42)
			if len(a.Agents) != n-1 || slices.Contains(a.Agents, i) || a.Label(i) != "" {
				t.Fatalf("n=%d reviewer %d: %v", n, i, a.Agents)
			}
			sorted := slices.Sorted(slices.Values(a.Agents))
			for k, j := range sorted {
				if want := k + boolInt(k >= i); j != want {
					t.Fatalf("n=%d reviewer %d: agents %v are not the others once each", n, i, a.Agents)
				}
			}
			if b := Assign(n, i, 42); !slices.Equal(a.Agents, b.Agents) {
				t.Fatal("same seed, different labels")
			}
		}
	}
	// Over seeds, agent 1 is shown to reviewer 0 under each label about equally often.
	counts := map[string]int{}
	for seed := uint64(0); seed < 3000; seed++ {
		counts[Assign(4, 0, seed).Label(1)]++
	}
	for _, l := range []string{"Alpha", "Bravo", "Charlie"} {
		if counts[l] < 850 || counts[l] > 1150 {
			t.Fatalf("label draw not uniform: %v", counts)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// reasoningOf is agent i's distinctive reasoning in the scripted answers.
func reasoningOf(i int) string { return fmt.Sprintf("Distinctive reasoning number %d.", 1000+i) }

// councilScript answers first answers with distinctive reasoning, reviews
// with a ranking of the labels shown, and the chairman with chair.
func councilScript(chair string) *kittest.Script {
	labelRe := regexp.MustCompile(`(?m)^POSITION response (\w+):`)
	return &kittest.Script{Default: func(req llm.Request) string {
		user := req.Messages[1].Content
		switch req.Meta.Kind {
		case kit.KindFirst:
			l := "ABCD"[req.Meta.Agent%2 : req.Meta.Agent%2+1]
			return fmt.Sprintf(`{"reasoning":%q,"ranking":["%s"],"confidence":0.8,"risk":0.2,"veto":false}`, reasoningOf(req.Meta.Agent), l)
		case kit.KindPeerReview:
			var names []string
			for _, m := range labelRe.FindAllStringSubmatch(user, -1) {
				names = append(names, "Response "+m[1])
			}
			slices.Reverse(names)
			return "REVIEW Response Alpha: STRENGTHS: clear WEAKNESSES: short\nFINAL RANKING:\n1. " + strings.Join(names, "\n2. ")
		}
		return chair
	}}
}

// TestReviewsAreAnonymousAndNeverSelf: reviewer i's prompt holds every
// other agent's reasoning under a label, never its own, and names no agent.
func TestReviewsAreAnonymousAndNeverSelf(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		s := councilScript(`{"answer":"A","reasoning":"r","contributors":[{"id":1,"weight":1,"reason":"r"}]}`)
		out := kittest.Run(t, Protocol, fmt.Sprintf("council:n=%d", n), kittest.Settings(3), s)
		det := out.Details.(Details)
		for i := range n {
			p := s.User(t, kittest.Key(kit.KindPeerReview, 0, i))
			if strings.Contains(p, reasoningOf(i)) {
				t.Fatalf("n=%d: reviewer %d sees its own answer", n, i)
			}
			if regexp.MustCompile(`(?i)agent \d|expert \d`).MatchString(p) {
				t.Fatalf("n=%d: reviewer %d's prompt names an agent:\n%s", n, i, p)
			}
			for j := range n {
				if j == i {
					continue
				}
				if !strings.Contains(p, reasoningOf(j)) {
					t.Fatalf("n=%d: reviewer %d does not see agent %d", n, i, j)
				}
				shownUnder := ""
				for l, agent := range det.Labels[i] {
					if agent == j+1 {
						shownUnder = l
					}
				}
				if !strings.Contains(p, "REASONING response "+shownUnder+": "+reasoningOf(j)) {
					t.Fatalf("n=%d: reviewer %d: agent %d not under its recorded label %q", n, i, j, shownUnder)
				}
			}
			if len(det.Labels[i]) != n-1 {
				t.Fatalf("labels %v", det.Labels[i])
			}
		}
	}
}

// TestLabelsSeeded: the labels are reproducible, independent of the arm,
// the strategy and the model, and differ across questions and reviewers.
func TestLabelsSeeded(t *testing.T) {
	run := func(spec, arm string, seed int64) Details {
		s := councilScript(`{"answer":"A"}`)
		a, _, err := Protocol.Parse(spec, kittest.Settings(5))
		if err != nil {
			t.Fatal(err)
		}
		u := kittest.Unit(arm)
		u.RunSeed = seed
		out, err := a.Run(t.Context(), s, kittest.Item, u)
		if err != nil {
			t.Fatal(err)
		}
		return out.Details.(Details)
	}
	a := run("council:balanced", "x", 1)
	b := run("council:novelty", "y", 1)
	if fmt.Sprint(a.Labels) != fmt.Sprint(b.Labels) {
		t.Fatalf("labels depend on the arm or strategy:\n%v\n%v", a.Labels, b.Labels)
	}
	differs := false
	for seed := int64(2); seed < 6; seed++ {
		differs = differs || fmt.Sprint(run("council:balanced", "x", seed).Labels) != fmt.Sprint(a.Labels)
	}
	if !differs {
		t.Fatal("labels never change with the run seed")
	}
	same := 0
	for i := 1; i < 5; i++ {
		if fmt.Sprint(a.Labels[i]) == fmt.Sprint(a.Labels[0]) {
			same++
		}
	}
	if same == 4 {
		t.Fatal("every reviewer got the same labels")
	}
}

package stats

import (
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/medteam-bench/medteam/results"
)

func TestParseRound(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		agr  float64
	}{
		{"A,B,A", []string{"A", "B", "A"}, 2.0 / 3},
		{"A,,A", []string{"A", "", "A"}, 2.0 / 3},
		{",,", []string{"", "", ""}, 0},
		{"", []string{""}, 0},
		{"C", []string{"C"}, 1},
		{"A,B", []string{"A", "B"}, 0.5},  // a tie: the share is still 1/2
		{" A , A", []string{"A", "A"}, 1}, // white space trimmed
		{"A,B,C,D", []string{"A", "B", "C", "D"}, 0.25},
	} {
		got := ParseRound(c.in)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("ParseRound(%q) = %q, want %q", c.in, got, c.want)
		}
		if a := Agreement(got); !near(a, c.agr, 1e-15) {
			t.Errorf("Agreement(%q) = %v, want %v", got, a, c.agr)
		}
	}
	if Agreement(nil) != 0 {
		t.Error("Agreement(nil) != 0")
	}
}

// FuzzParseRound: one field per comma-separated element, each trimmed,
// joining them back gives the input when it has no white space, and the
// agreement is a share k/n with k ≤ the number of non-empty fields.
func FuzzParseRound(f *testing.F) {
	for _, s := range []string{"", "A", "A,B,A", ",,", "A,,B", " A , B ", "ab,ab,\t", "é,é,E"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseRound(s)
		if len(got) != strings.Count(s, ",")+1 {
			t.Fatalf("ParseRound(%q) has %d fields", s, len(got))
		}
		nonEmpty := 0
		for _, g := range got {
			if g != strings.TrimSpace(g) || strings.Contains(g, ",") {
				t.Fatalf("field %q not trimmed or holds a comma", g)
			}
			if g != "" {
				nonEmpty++
			}
		}
		if !strings.ContainsFunc(s, unicode.IsSpace) && strings.Join(got, ",") != s {
			t.Fatalf("Join(ParseRound(%q)) = %q", s, strings.Join(got, ","))
		}
		a := Agreement(got)
		k := a * float64(len(got))
		if a < 0 || a > 1 || math.Abs(k-math.Round(k)) > 1e-9 || int(math.Round(k)) > nonEmpty || (nonEmpty > 0) != (a > 0) {
			t.Fatalf("Agreement(%q) = %v", got, a)
		}
	})
}

// By hand: round 0 agreements 2/3 (A,A,B), 1/3 (A,B,C), 2/3 (C,,C) → 5/9;
// round 1: 1, 2/3 (B,B,), 1 → 8/9; round 2 only on q2: 1.
func TestConvergenceOf(t *testing.T) {
	rows := []results.QuestionRow{
		{QuestionID: "q1", Repeat: 0, Rounds: []string{"A,A,B", "A,A,A"}, ChangesWrongToRight: 1},
		{QuestionID: "q2", Rounds: []string{"C,,C", "C,C,C", "C,C,C"}, ChangesRightToWrong: 2, ChangesWrongToRight: 1},
		{QuestionID: "q1", Repeat: 1, Rounds: []string{"A,B,C", "B,B,"}},
		{QuestionID: "q3", ErrorClass: "timeout"},
	}
	got := ConvergenceOf(rows, 0)
	if got.Rows != 3 || got.RightToWrong != 2 || got.WrongToRight != 2 || len(got.ByRound) != 3 {
		t.Fatalf("ConvergenceOf = %+v", got)
	}
	for i, w := range []struct {
		n    int
		mean float64
	}{{3, 5.0 / 9}, {3, 8.0 / 9}, {1, 1}} {
		r := got.ByRound[i]
		if r.Round != i || r.N != w.n || !near(r.Mean, w.mean, 1e-12) {
			t.Errorf("round %d = %+v, want n %d mean %v", i, r, w.n, w.mean)
		}
	}
	// Round 0 by question: q1 residual sum (2/3 + 1/3) − 2·5/9 = −1/9, q2
	// 2/3 − 5/9 = 1/9; Var = 2·(2/81)/9 = 4/729; interval t₁ = 12.706 wide,
	// clamped to [0, 1].
	if r := got.ByRound[0]; r.CI.Lo != 0 || r.CI.Hi != 1 {
		t.Errorf("round 0 CI = %v", r.CI)
	}
	if got.ByRound[2].CI.Defined() {
		t.Errorf("one question: CI %v should be undefined", got.ByRound[2].CI)
	}
}

// A lone agent agrees with nobody: single-agent rounds (cot, sc's samples
// are separate rows) add nothing to the agreement mean, which is undefined
// (N = 0, NaN, no interval) when no row has two agents; it was a
// zero-width 100% [100, 100] before.
func TestConvergenceLoneAgent(t *testing.T) {
	lone := []results.QuestionRow{
		{QuestionID: "q1", Rounds: []string{"A"}},
		{QuestionID: "q2", Rounds: []string{"B"}},
		{QuestionID: "q3", Rounds: []string{""}},
	}
	got := ConvergenceOf(lone, 0)
	if got.Rows != 3 || len(got.ByRound) != 1 {
		t.Fatalf("ConvergenceOf = %+v", got)
	}
	if r := got.ByRound[0]; r.N != 0 || !math.IsNaN(r.Mean) || r.CI.Defined() {
		t.Errorf("lone agents: round 0 = %+v, want N 0, NaN and no interval", r)
	}
	// Mixed: only the rows with two or more agents count.
	mixed := append(lone, results.QuestionRow{QuestionID: "q4", Rounds: []string{"A,B"}}, results.QuestionRow{QuestionID: "q5", Rounds: []string{"C,C"}})
	if r := ConvergenceOf(mixed, 0).ByRound[0]; r.N != 2 || !near(r.Mean, 0.75, 1e-12) {
		t.Errorf("mixed: round 0 = %+v, want N 2, mean 0.75", r)
	}
}

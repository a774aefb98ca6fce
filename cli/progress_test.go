package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medteam-bench/medteam/results"
)

// TestProgressCounts: the progress line and the bar's text after units
// committed before this invocation (a resume) and units of this one count
// every committed unit: done/total of the whole plan, accuracy, calls,
// tokens and errors over all of them, the eta at this invocation's pace.
func TestProgressCounts(t *testing.T) {
	row := func(correct bool, err string, calls int32, tokens int64) results.QuestionRow {
		return results.QuestionRow{Correct: correct, Error: err, Calls: calls, PromptTokens: tokens - tokens/10, CompletionTokens: tokens / 10}
	}
	right, wrong, failed := row(true, "", 10, 1000), row(false, "", 10, 1000), row(false, "timeout", 3, 200)
	rep := func(r results.QuestionRow, n int) []results.QuestionRow {
		out := make([]results.QuestionRow, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	for _, c := range []struct {
		name        string
		total       int
		before, now []results.QuestionRow
		elapsed     time.Duration
		line, bar   string
	}{
		{"fresh run", 10, nil, append(rep(right, 3), wrong), 4 * time.Second,
			"  4/10 (40%) in 4s, eta 6s: acc 75.0% · 40 calls · 4000 tokens (prompt+completion, all arms) · 0 errors",
			"acc 75.0% · 40 calls · 4000 tokens (prompt+completion, all arms) · 0 errors · eta 6s"},
		{"resume: before counts in every tally", 100, append(rep(right, 18), rep(wrong, 2)...), append(rep(wrong, 8), rep(failed, 2)...), 10 * time.Second,
			"  30/100 (30%, 20 done before) in 10s, eta 1m10s: acc 60.0% · 286 calls · 28400 tokens (prompt+completion, all arms) · 2 errors",
			"acc 60.0% · 286 calls · 28400 tokens (prompt+completion, all arms) · 2 errors · 20 done before · eta 1m10s"},
		{"resume to the end", 4, rep(right, 3), rep(wrong, 1), time.Second,
			"  4/4 (100%, 3 done before) in 1s: acc 75.0% · 40 calls · 4000 tokens (prompt+completion, all arms) · 0 errors",
			"acc 75.0% · 40 calls · 4000 tokens (prompt+completion, all arms) · 0 errors · 3 done before"},
		{"resume before its first unit", 10, rep(right, 5), nil, 0,
			"  5/10 (50%, 5 done before) in 0s: acc 100.0% · 50 calls · 5000 tokens (prompt+completion, all arms) · 0 errors",
			"acc 100.0% · 50 calls · 5000 tokens (prompt+completion, all arms) · 0 errors · 5 done before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := progressCounts{total: c.total}
			for i := range c.before {
				n.add(&c.before[i])
				n.before++
			}
			for i := range c.now {
				n.add(&c.now[i])
			}
			if got := n.line(c.elapsed); got != c.line {
				t.Errorf("line\n got %q\nwant %q", got, c.line)
			}
			if got := n.barText(c.elapsed); got != c.bar {
				t.Errorf("bar\n got %q\nwant %q", got, c.bar)
			}
		})
	}
}

// TestProgressAfterResume: the last progress line of a resumed run gives
// the accuracy of all its rows, as the summary table does (on main it
// divided this invocation's correct answers by every unit done: 56.0%
// beside a table of 70.0% and 76.0%).
func TestProgressAfterResume(t *testing.T) {
	out := t.TempDir()
	args := []string{"run", "--dataset", medqaSample, "--limit", "40", "--config", "base,full", "--agents", "3",
		"--out", out, "--run-name", "r", "--parallel", "1", "--no-report"}
	if code, so, se := runCLI(t, append(args, "--budget-tokens", "200000")...); code != exitBudget {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitBudget, so, se)
	}
	before := rowCount(t, filepath.Join(out, "r"))
	code, so, se := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, so, se)
	}
	rows, err := results.ReadQuestions(filepath.Join(out, "r", results.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for _, q := range rows {
		if q.Correct {
			correct++
		}
	}
	want := fmt.Sprintf("  80/80 (100%%, %d done before) in ", before)
	acc := fmt.Sprintf(": acc %.1f%% · ", 100*float64(correct)/float64(len(rows)))
	last := firstLine(se, "  80/80 ")
	if !strings.HasPrefix(last, want) || !strings.Contains(last, acc) {
		t.Errorf("last progress line %q, want it to start %q and say %q (all %d rows)\n%s", last, want, acc, len(rows), se)
	}
}

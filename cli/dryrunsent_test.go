package cli

import (
	"regexp"
	"strconv"
	"testing"
)

// TestSweepDryRunPredictsSent: the ablation sweep on 10 questions — the
// dry run's logical calls are the run's, and the calls it expects sent
// (logical less shared) are within 3% of what the run sends. Before, the
// dry run printed only logical calls (1,250 here; the run sends 757).
func TestSweepDryRunPredictsSent(t *testing.T) {
	args := []string{"sweep", "../configs/ablation.yaml", "--limit", "10", "--out", t.TempDir()}
	code, dry, se := runCLI(t, append(args, "--dry-run")...)
	if code != exitOK {
		t.Fatalf("dry run: exit %d\n%s", code, se)
	}
	code, so, se := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, se)
	}
	run := so + se
	num := func(text, pattern string) int64 {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q in\n%s", pattern, text)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	logical := num(dry, `total \(logical\)\s+\d+ units\s+(\d+)–\d+ calls`)
	shared := num(dry, `sent counts once the (\d+) logical calls`)
	runLogical := num(run, `(\d+) logical calls`)
	runSent := num(run, `(\d+) sent to the model endpoints`)
	t.Logf("dry run: %d logical, %d shared, %d sent; run: %d logical, %d sent", logical, shared, logical-shared, runLogical, runSent)
	if logical != runLogical {
		t.Errorf("logical calls: dry run %d, run %d", logical, runLogical)
	}
	if d := logical - shared - runSent; 100*max(d, -d) > 3*runSent {
		t.Errorf("calls sent: dry run %d, run %d", logical-shared, runSent)
	}
}

package cli

import (
	"strings"
	"testing"
)

// TestInterruptNotice: Ctrl-C speaks of resuming only for the commands
// that run units into a journal; view says nothing about a run (it prints
// "stopped" itself).
func TestInterruptNotice(t *testing.T) {
	for _, tt := range []struct {
		args         []string
		resume, stop bool // the first notice mentions resuming / stopping
	}{
		{[]string{"run", "--limit", "2"}, true, true},
		{[]string{"sweep", "x.yaml"}, true, true},
		{[]string{"view", "results/run-a"}, false, false},
		{[]string{"report", "results/run-a"}, false, true},
		{nil, false, true},
	} {
		first, again := interruptNotice(tt.args)
		if got := strings.Contains(first+again, "resume"); got != tt.resume {
			t.Errorf("%v: mentions resuming %v, want %v: %q %q", tt.args, got, tt.resume, first, again)
		}
		if got := strings.Contains(first, "stopping"); got != tt.stop {
			t.Errorf("%v: first notice %q", tt.args, first)
		}
		if !strings.Contains(again, "exiting at once") {
			t.Errorf("%v: second notice %q", tt.args, again)
		}
	}
}

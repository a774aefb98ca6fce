package runner

import (
	"context"
	"math"
	"testing"
)

func TestAgreement(t *testing.T) {
	tests := []struct {
		firsts []string
		share  float64
		top    string
	}{
		{[]string{"B", "B", "B"}, 1, "B"},
		{[]string{"B", "A", "B"}, 2.0 / 3, "B"},
		{[]string{"B", "A"}, 0.5, ""},         // tied plurality
		{[]string{"B", "", ""}, 1.0 / 3, "B"}, // abstentions disagree
		{[]string{"", ""}, 0, ""},
		{nil, 0, ""},
		{[]string{"A", "A", "B", "B", "C"}, 0.4, ""},
		{[]string{"A", "A", "B", "B", "B"}, 0.6, "B"},
	}
	for _, tt := range tests {
		share, top := Agreement(tt.firsts)
		if math.Abs(share-tt.share) > 1e-12 || top != tt.top {
			t.Errorf("Agreement(%q) = %v %q, want %v %q", tt.firsts, share, top, tt.share, tt.top)
		}
	}
}

// TestChanged: opinion changes count agents whose first choice differs
// between the rounds, both answered (the gold comparisons are the task's:
// choice.Changes).
func TestChanged(t *testing.T) {
	tests := []struct {
		initial, final []string
		want           int
	}{
		{[]string{"A", "B", "C"}, []string{"A", "B", "C"}, 0},
		{[]string{"A", "B", "C"}, []string{"B", "A", "A"}, 3},
		{[]string{"A", ""}, []string{"", "A"}, 0},
		{[]string{"B"}, []string{"C"}, 1},
		{[]string{"B", "C"}, []string{"C"}, 1},
	}
	for _, tt := range tests {
		if got := Changed(tt.initial, tt.final); got != tt.want {
			t.Errorf("Changed(%q→%q) = %d, want %d", tt.initial, tt.final, got, tt.want)
		}
	}
}

func TestStdDev(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{0.8}, 0}, {[]float64{0.4, 1.0}, 0.3}, {[]float64{2, 4, 4, 4, 5, 5, 7, 9}, 2}} {
		if got := StdDev(tt.xs); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("StdDev(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

// TestParseReasonsInCallRows: every call whose answer could not be read
// carries its abstention reason code in calls.parquet.
func TestParseReasonsInCallRows(t *testing.T) {
	plan, _ := simPlan(t, "noisy", []string{"base"}, 4)
	res, err := Run(context.Background(), plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	unread := 0
	reasons := map[string]int{}
	for _, c := range res.Calls {
		if c.ParseMethod != "none" || c.Kind == "assess" || c.Kind == "recruit" {
			continue
		}
		unread++
		if c.ParseReason == "" {
			t.Fatalf("call %s/%s seq %d: unreadable answer without a reason (%s)", c.QuestionID, c.Kind, c.Seq, c.ParseError)
		}
		reasons[c.ParseReason]++
	}
	t.Logf("%d unreadable answers by reason: %v", unread, reasons)
	if unread == 0 {
		t.Fatal("profile noisy produced no unreadable answer; the test proves nothing")
	}
}

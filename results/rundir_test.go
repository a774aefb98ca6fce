package results

import (
	"regexp"
	"slices"
	"testing"
	"time"
)

var runIDPattern = regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{6}$`)

func TestNewRunID(t *testing.T) {
	tests := []struct {
		name   string
		now    time.Time
		prefix string
	}{
		{"utc", time.Date(2026, 11, 22, 1, 47, 0, 999, time.UTC), "20261122T014700Z-"},
		{"converted to utc", time.Date(2026, 11, 21, 20, 47, 59, 0, time.FixedZone("EST", -5*3600)), "20261122T014759Z-"},
		{"year boundary", time.Date(2025, 12, 31, 23, 59, 59, 999999999, time.UTC), "20251231T235959Z-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := NewRunID(tt.now, 1)
			if !runIDPattern.MatchString(id) || id[:len(tt.prefix)] != tt.prefix {
				t.Errorf("NewRunID = %q, want %q followed by 6 hex digits", id, tt.prefix)
			}
		})
	}
}

func TestNewRunIDUniqueAndSortable(t *testing.T) {
	now := time.Date(2026, 11, 22, 1, 47, 0, 0, time.UTC)
	const n = 200
	seen := map[string]bool{}
	for range n {
		seen[NewRunID(now, 7)] = true // same second, same seed
	}
	// 24 random bits: a handful of collisions among 200 ids is already
	// vanishingly unlikely; a constant suffix would give 1 distinct id.
	if len(seen) < n-5 {
		t.Errorf("%d distinct ids out of %d in the same second", len(seen), n)
	}

	var ids []string
	for i := range 50 {
		ids = append(ids, NewRunID(now.Add(time.Duration(i)*time.Second), 0))
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids of increasing start times are not sorted: %v", ids)
	}
}

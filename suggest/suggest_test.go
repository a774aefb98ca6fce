package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3},
		{"confg", "config", 1}, {"config", "config", 0}, {"flaw", "lawn", 2},
		{"débat", "debat", 1}, // runes, not bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	flags := []string{"config", "dataset", "dry-run", "limit", "model", "repeats", "seed"}
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"confg", "config", true},
		{"CONFIG", "config", true},
		{"modle", "model", true},
		{"conf", "config", true}, // a prefix
		{"dryrun", "dry-run", true},
		{"repeat", "repeats", true},
		{"sed", "seed", true},
		{"banana", "", false},
		{"x", "", false},
		{"z", "", false}, // 1 from a one-letter name would still be no typo
		{"sd", "", false},
		{"", "", false},
	} {
		got, ok := Closest(c.word, flags)
		if got != c.want || ok != c.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("confg", "config")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b)
		if d < 0 || d > max(len([]rune(a)), len([]rune(b))) || d != Distance(b, a) || (string([]rune(a)) == string([]rune(b))) != (d == 0) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}

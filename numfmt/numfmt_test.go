package numfmt

import (
	"math"
	"testing"
)

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Pct(2.0 / 3), "66.7"}, {Pct(0.5625), "56.3"}, {Pct(1), "100.0"}, {Pct(math.NaN()), Dash},
		{Fnum(0.125, 2), "0.13"}, {Fnum(-0.125, 2), "-0.13"}, {Fnum(1234.5, 0), "1235"}, {Fnum(math.NaN(), 3), Dash},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

package teamwork

import (
	"strings"
	"testing"
)

func TestParseComponents(t *testing.T) {
	tests := []struct {
		spec               string
		name, combo        string
		smm, l, to, tr, mm bool
		wantErr            string
	}{
		{spec: "base", name: "base", combo: "base"},
		{spec: "c1", name: "c1", combo: "smm", smm: true},
		{spec: "c2", name: "c2", combo: "l", l: true},
		{spec: "c3", name: "c3", combo: "l+to", l: true, to: true},
		{spec: "c4", name: "c4", combo: "t", tr: true},
		{spec: "c5", name: "c5", combo: "l+t+mm", l: true, tr: true, mm: true},
		{spec: "c6", name: "c6", combo: "smm+l+to", smm: true, l: true, to: true},
		{spec: "c7", name: "c7", combo: "l+t+mm", l: true, tr: true, mm: true},
		{spec: "full", name: "full", combo: "smm+l+to+t+mm", smm: true, l: true, to: true, tr: true, mm: true},
		{spec: "ALL", name: "full", combo: "smm+l+to+t+mm", smm: true, l: true, to: true, tr: true, mm: true},
		{spec: "to+smm+l", name: "smm+l+to", combo: "smm+l+to", smm: true, l: true, to: true},
		{spec: "trust+leadership", name: "l+t", combo: "l+t", l: true, tr: true},
		{spec: "mm", wantErr: "mutual monitoring requires leadership"},
		{spec: "t+mm", wantErr: "mutual monitoring requires leadership"},
		{spec: "smm+x", wantErr: `unknown teamwork component "x"`},
		{spec: "", wantErr: "empty teamwork configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			c, err := ParseComponents(tt.spec, Default())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.name || c.Combo() != tt.combo {
				t.Errorf("name %q combo %q, want %q %q", c.Name, c.Combo(), tt.name, tt.combo)
			}
			if c.SMM != tt.smm || c.Leadership != tt.l || c.Orientation != tt.to || c.Trust != tt.tr || c.Monitoring != tt.mm {
				t.Errorf("flags = %+v", c)
			}
		})
	}
}

func TestValidateAndLabel(t *testing.T) {
	c := Default()
	c.Name = "base"
	if c.Label() != "base" {
		t.Fatalf("default label %q", c.Label())
	}
	c.Turns, c.Agents, c.Discussion, c.Structured = 3, 2, Parallel, false
	if got, want := c.Label(), "base/t3/n2/parallel/text"; got != want {
		t.Fatalf("label %q, want %q", got, want)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Turns = 1 },
		func(c *Config) { c.Turns = 4 },
		func(c *Config) { c.Agents = 1 },
		func(c *Config) { c.Agents = 5 },
		func(c *Config) { c.Discussion = "shouting" },
		func(c *Config) { c.AgentTemperature = -0.1 },
	} {
		c := Default()
		bad(&c)
		if c.Validate() == nil {
			t.Errorf("config %+v: want a validation error", c)
		}
	}
}

func TestExpectedCallsFormulas(t *testing.T) {
	// Closed forms from DESIGN §4: base = 2 + N + N·T; full = 3 + N + N·T + T + 3(T−1).
	for _, turns := range []int{2, 3} {
		for n := 2; n <= 4; n++ {
			base, _ := ParseComponents("base", Default())
			full, _ := ParseComponents("full", Default())
			base.Turns, full.Turns = turns, turns
			if got, want := ExpectedCalls(base, n, false).Total(), 2+n+n*turns; got != want {
				t.Errorf("base N=%d T=%d: %d, want %d", n, turns, got, want)
			}
			if got, want := ExpectedCalls(full, n, false).Total(), 3+n+n*turns+turns+3*(turns-1); got != want {
				t.Errorf("full N=%d T=%d: %d, want %d", n, turns, got, want)
			}
			if got, want := ExpectedCalls(full, n, true).Total(), 4+n+n*turns+turns+3*(turns-1); got != want {
				t.Errorf("full tie N=%d T=%d: %d, want %d", n, turns, got, want)
			}
			if ExpectedCalls(base, n, true) != ExpectedCalls(base, n, false) {
				t.Errorf("base has no tie-break call")
			}
		}
	}
	// c2 (L only): no synthesis call — nothing for it to do.
	c2, _ := ParseComponents("c2", Default())
	if got := ExpectedCalls(c2, 3, false); got.Prediction != 3 || got.Discussion != 3*2+2 {
		t.Errorf("c2 = %+v", got)
	}
}

package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocol"
	"github.com/medteam-bench/medteam/protocol/protocoltest"
)

func named(name string, presets ...string) *protocol.Protocol {
	p := &protocol.Protocol{Name: name, Presets: presets}
	p.Parse = func(spec string, _ protocol.Settings) (protocol.Arm, bool, error) {
		switch {
		case spec == name+":bad":
			return nil, true, errors.New("bad options")
		case strings.HasPrefix(spec, name):
			return protocoltest.AlwaysFirst.Parse("always-first", protocol.Settings{})
		}
		return nil, false, nil
	}
	return p
}

func TestRegistryParse(t *testing.T) {
	reg := protocol.Registry{named("x", "x1"), named("y", "y1", "y2")}
	for _, tc := range []struct{ spec, wantErr string }{
		{"x1", ""},
		{"y2", ""},
		{"y:bad", "bad options"},
		{"z", `unknown arm "z"; the protocols are x, y, and their presets x1, y1, y2`},
		{"q1", `unknown arm "q1" (did you mean "x1"?)`},
	} {
		_, err := reg.Parse(tc.spec, protocol.Settings{})
		if (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: err %v, want %q", tc.spec, err, tc.wantErr)
		}
	}
	if reg.Lookup("y") != reg[1] || reg.Lookup("w") != nil {
		t.Error("Lookup")
	}
}

func TestJoinSpecs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"base", "smm+l", "full"}, []string{"base", "smm+l", "full"}},
		{[]string{"debate:3", "2", "vote"}, []string{"debate:3,2", "vote"}},
		{[]string{"debate:n=3", "r=2", "sc:5", "base"}, []string{"debate:n=3,r=2", "sc:5", "base"}},
		{[]string{"vote:weighted", "n=5", "council:novelty", " n=4"}, []string{"vote:weighted,n=5", "council:novelty,n=4"}},
		{[]string{"3", "vote"}, []string{"3", "vote"}},                                             // nothing to continue
		{[]string{"vote", "n=5"}, []string{"vote", "n=5"}},                                         // "vote" has no options to continue
		{[]string{"sc:5", "weighted"}, []string{"sc:5", "weighted"}},                               // a word starts a new arm
		{[]string{"debate:3,2", "vote:weighted,n=5"}, []string{"debate:3,2", "vote:weighted,n=5"}}, // idempotent
	} {
		if got := protocol.JoinSpecs(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("JoinSpecs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

package teamwork

import (
	"strings"
	"testing"
)

// TestRolesColumnSaysHidden (issue 36 item 7): the roles column marks the
// recruited roles the agents never saw (no TO∧L: base, c1, c2, c4, c5, c7)
// with HiddenRole, and records shown roles (c3, c6, full) as named; the
// recruited names themselves are the same in every arm (paired recruitment).
func TestRolesColumnSaysHidden(t *testing.T) {
	qs := sampleQuestions(t, 1)
	model := simFor(t, "default", qs)
	var names string
	for _, spec := range []string{"base", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "full"} {
		c, err := ParseComponents(spec, Default())
		if err != nil {
			t.Fatal(err)
		}
		c.Agents = 3
		out, _ := runLogged(t, c, qs[0].Item(), model)
		shown := c.Orientation && c.Leadership
		bare := make([]string, len(out.Roles))
		for i, r := range out.Roles {
			if strings.HasSuffix(r, HiddenRole) == shown {
				t.Fatalf("%s: role %q; roles shown to the agents: %v", spec, r, shown)
			}
			bare[i] = strings.TrimSuffix(r, HiddenRole)
		}
		if got := strings.Join(bare, "|"); names == "" {
			names = got
		} else if got != names {
			t.Errorf("%s recruited %s, base %s", spec, got, names)
		}
	}
	if c, _ := ParseComponents("base", Default()); len(recordedRoles(c, []string{"Cardiologist", "Expert 2"})) != 2 ||
		recordedRoles(c, []string{"Cardiologist", "Expert 2"})[1] != "Expert 2" {
		t.Error("a generic Expert i filled in for a missing name must stay unmarked")
	}
}

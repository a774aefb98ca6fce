package kit

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestObjectDeclaredOrder: properties and required go out in declared order,
// not sorted (a Go map would put "answer" before "reasoning").
func TestObjectDeclaredOrder(t *testing.T) {
	s := Schema("t", P("reasoning", String), P("ranking", Strings), P("answer", String),
		P("nested", ArrayOf(Object{P("why", String), P("agent", Integer)})))
	got, err := PropertyOrder(s.Schema)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reasoning", "ranking", "answer", "nested"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("property order %v, want %v", got, want)
	}
	var v struct {
		Required   []string `json:"required"`
		Additional bool     `json:"additionalProperties"`
		Properties map[string]struct {
			Items struct {
				Properties json.RawMessage `json:"properties"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(s.Schema, &v); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, s.Schema)
	}
	if want := []string{"reasoning", "ranking", "answer", "nested"}; !reflect.DeepEqual(v.Required, want) || v.Additional {
		t.Fatalf("required %v additional %v", v.Required, v.Additional)
	}
	inner, err := PropertyOrder([]byte(`{"properties":` + string(v.Properties["nested"].Items.Properties) + `}`))
	if err != nil || !reflect.DeepEqual(inner, []string{"why", "agent"}) {
		t.Fatalf("nested order %v %v", inner, err)
	}
	if s.Name != "medteam_t" {
		t.Fatalf("name %q", s.Name)
	}
}

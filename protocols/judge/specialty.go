package judge

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/kit"
)

// withSpecialty appends the specialty request seed 003's algorithm needs
// (its agents' outputs carry a "specialty") to a first-answer call on a
// triage item that asks for a specialty (qa.Triage.AskSpecialty), in JSON
// mode: a "specialty" property, one of the item's specialties, after the
// first answer's own properties, and one sentence saying so. The item's stem
// already asks for it on a SPECIALTY line, so a text-mode call is sent as it
// is; so is every call on any other item — the shared first answer,
// byte-identical to the other protocols'.
func withSpecialty(s *kit.Session, c *kit.Call) {
	if !s.Structured || !s.Item.IsTriage() || !s.Item.Triage.AskSpecialty || c.Schema == nil {
		return
	}
	sp := s.Item.Triage.Specialties
	schema, err := appendProp(c.Schema, kit.P("specialty", map[string]any{"type": "string", "enum": sp}))
	if err != nil {
		return // a schema that is not kit's ordered object: leave the call as it is
	}
	c.Schema = schema
	c.User += "\nAlso give \"specialty\" in the JSON object: the specialty that should see the patient, one of: " + strings.Join(sp, ", ") + "."
}

// appendProp returns a copy of a kit.Schema object schema with p appended
// after its properties, which keep their declared order.
func appendProp(s *llm.Schema, p kit.Prop) (*llm.Schema, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(s.Schema, &top); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var props kit.Object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		props = append(props, kit.P(t.(string), v))
	}
	b, err := json.Marshal(append(props, p))
	if err != nil {
		return nil, err
	}
	return &llm.Schema{Name: s.Name, Schema: b}, nil
}

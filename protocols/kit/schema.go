package kit

import (
	"bytes"
	"encoding/json"

	"github.com/medteam-bench/medteam/llm"
)

// Prop is one property of an object schema: its name and its type (a
// json-marshalable schema value: String, Number, ArrayOf(…), an Object…).
type Prop struct {
	Name string
	Type any
}

// P is a property.
func P(name string, typ any) Prop { return Prop{Name: name, Type: typ} }

// Object is a strict object schema whose properties go out in the declared
// order — never Go map order. Structured-output backends generate fields in
// schema order, so an answer's "reasoning" is declared first and is written
// before the answer it supports (DESIGN §5 "Fidelity"). Every property is
// required, in the same order, and no others are allowed.
type Object []Prop

// MarshalJSON writes {"type":"object","properties":{…in order…},
// "required":[…in order…],"additionalProperties":false}.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.Type)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString(`},"required":[`)
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.Name)
		b.Write(k)
	}
	b.WriteString(`],"additionalProperties":false}`)
	return b.Bytes(), nil
}

// Names are the property names in declared order.
func (o Object) Names() []string {
	out := make([]string, len(o))
	for i, p := range o {
		out[i] = p.Name
	}
	return out
}

// Schema builds the named strict JSON schema of an answer object whose
// properties go out in the order given.
func Schema(name string, props ...Prop) *llm.Schema {
	b, err := json.Marshal(Object(props))
	if err != nil {
		panic(err)
	}
	return &llm.Schema{Name: "medteam_" + name, Schema: b}
}

// Schema property types.
var (
	String  = map[string]any{"type": "string"}
	Number  = map[string]any{"type": "number"}
	Integer = map[string]any{"type": "integer"}
	Boolean = map[string]any{"type": "boolean"}
	Strings = map[string]any{"type": "array", "items": String}
)

// ArrayOf is an array schema of items.
func ArrayOf(items any) map[string]any { return map[string]any{"type": "array", "items": items} }

// PropertyOrder returns the property names of a JSON object schema in the
// order they appear on the wire (nested objects are not descended into).
// Tests use it to assert that reasoning comes first.
func PropertyOrder(schema []byte) ([]string, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		names = append(names, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return names, nil
}

package answer

import (
	"encoding/json"
	"strings"
)

// The JSON object of a reply, and its values read tolerantly: the object a
// model writes may wrap its answer ({"answer": {...}}), spell its keys in
// any case or style, and give a number as a string ("80%") or a list as
// one string ("a; b").

// Object is a decoded JSON object with normalised keys (lower case, letters
// and digits only: "debated_point" and "debatedPoint" are both
// "debatedpoint").
type Object map[string]json.RawMessage

// normKey normalises a key (see Object).
func normKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c - 'A' + 'a')
		}
	}
	return b.String()
}

// unwrapObject decodes the object b, looks through up to maxUnwrap
// wrappers of one key ({"answer": {...}} is {...}) and normalises its keys;
// of two keys that normalise alike, the one already normal wins. It returns
// nil when b is not an object.
func unwrapObject(b []byte) Object {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil
	}
	for range maxUnwrap { // {"answer": {...}} → {...}
		if len(m) != 1 {
			break
		}
		var inner map[string]json.RawMessage
		for _, v := range m {
			if v := TrimRaw(v); len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &inner) != nil {
				inner = nil
			}
		}
		if inner == nil {
			break
		}
		m = inner
	}
	o := make(Object, len(m))
	for k, v := range m {
		nk := normKey(k)
		if _, dup := o[nk]; !dup || k == nk {
			o[nk] = v
		}
	}
	return o
}

// TrimRaw removes the white space before a JSON value.
func TrimRaw(v json.RawMessage) json.RawMessage {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t' || v[0] == '\n' || v[0] == '\r') {
		v = v[1:]
	}
	return v
}

// Get returns the value of the first of the keys (normalised, see Object)
// that is present and not null.
func (o Object) Get(keys ...string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := o[k]; ok {
			if v = TrimRaw(v); len(v) > 0 && string(v) != "null" {
				return v, true
			}
		}
	}
	return nil, false
}

// DecodeObject finds the JSON object in text: a decodable one (json or
// json_embedded) or, failing that, a cut-off one repaired (json_partial;
// keepOpen as in repairJSON).
func DecodeObject(text string, keepOpen bool) (Object, Method, bool) {
	if b, emb, ok := ExtractJSON(text); ok {
		if o := unwrapObject(b); o != nil {
			if emb {
				return o, MethodJSONEmbedded, true
			}
			return o, MethodJSON, true
		}
	}
	if b, ok := repairJSON(text, keepOpen); ok {
		if o := unwrapObject(b); len(o) > 0 {
			return o, MethodJSONPartial, true
		}
	}
	return nil, MethodNone, false
}

// RawString reads a string value; an array of strings is joined with
// newlines, a number or boolean is its literal.
func RawString(v json.RawMessage) (string, bool) {
	v = TrimRaw(v)
	if len(v) == 0 {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case '[':
		items := RawStrings(v)
		return strings.Join(items, "\n"), len(items) > 0
	case '{', 'n':
		return "", false
	}
	return strings.TrimSpace(string(v)), true
}

// RawStrings reads an array of strings (non-strings skipped) or one string
// split into items at ';' and new lines.
func RawStrings(v json.RawMessage) []string {
	v = TrimRaw(v)
	if len(v) == 0 {
		return nil
	}
	if v[0] == '"' {
		s, _ := RawString(v)
		return SplitItems(s)
	}
	if v[0] != '[' {
		return nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(v, &arr) != nil {
		return nil
	}
	var out []string
	for _, e := range arr {
		if e = TrimRaw(e); len(e) == 0 || e[0] != '"' {
			continue
		}
		var s string
		if json.Unmarshal(e, &s) == nil {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// RawNumber reads a number or a numeric string ("0.8", "80%", "7/10").
func RawNumber(v json.RawMessage) (x float64, kind NumKind, ok bool) {
	v = TrimRaw(v)
	if len(v) == 0 {
		return 0, 0, false
	}
	if v[0] == '"' {
		s, _ := RawString(v)
		return LeadNumber(s)
	}
	if json.Unmarshal(v, &x) != nil {
		return 0, 0, false
	}
	return x, NumPlain, true
}

// RawInt reads a whole number, from a number or a string ("agent 2", "three").
func RawInt(v json.RawMessage) (int, bool) {
	v = TrimRaw(v)
	if len(v) == 0 {
		return 0, false
	}
	if v[0] == '"' {
		s, _ := RawString(v)
		return IntFromText(s)
	}
	var x float64
	if json.Unmarshal(v, &x) != nil {
		return 0, false
	}
	return wholeInt(x)
}

// RawBool reads a boolean, from true or false or a string ("yes",
// "accepted", "no"; BoolFromText).
func RawBool(v json.RawMessage) (bool, bool) {
	v = TrimRaw(v)
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if len(v) > 0 && v[0] == '"' {
		s, _ := RawString(v)
		return BoolFromText(s)
	}
	return false, false
}

// DecodeFlat decodes an object (one level, without unwrapping) and
// normalises its keys; nil when v is not an object.
func DecodeFlat(v json.RawMessage) Object {
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return nil
	}
	o := make(Object, len(m))
	for k, x := range m {
		o[normKey(k)] = x
	}
	return o
}

// FirstString returns the value, read by RawString, of the first of the
// keys that holds one.
func (o Object) FirstString(keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := o.Get(k); ok {
			if s, ok := RawString(v); ok {
				return s, true
			}
		}
	}
	return "", false
}

// RawText is a JSON value as the model wrote it, a string without its quotes.
func RawText(v json.RawMessage) string {
	if s, ok := RawString(v); ok {
		return s
	}
	return string(TrimRaw(v))
}

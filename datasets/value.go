package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// record is one raw record of a dataset file, before it becomes a Question.
// Values come from JSON (json.RawMessage, decoded lazily so that each field is
// checked and reported on its own), from a CSV row (string) or from a parquet
// row (string, integers, floats, bool, []any, map[string]any or nil).
type record struct {
	json   map[string]json.RawMessage
	native map[string]any
	key    string // the record's key in a JSON object document (PubMedQA PMID)
	line   int    // 1-based line where the record starts; 0 if none
	row    int    // 1-based row (parquet) or record number
}

// get returns the value of a field, or nil when it is absent.
func (r *record) get(name string) any {
	if r.json != nil {
		if v, ok := r.json[name]; ok {
			return v
		}
		return nil
	}
	return r.native[name]
}

// has reports whether the field is present (even if null).
func (r *record) has(name string) bool {
	if r.json != nil {
		_, ok := r.json[name]
		return ok
	}
	_, ok := r.native[name]
	return ok
}

// path returns the value at a dotted path ("context.contexts"), descending
// into objects. A name that exists as is wins over its dotted reading.
func (r *record) path(p string) any {
	if r.has(p) || !strings.Contains(p, ".") {
		return r.get(p)
	}
	parts := strings.Split(p, ".")
	v := r.get(parts[0])
	for _, part := range parts[1:] {
		m, ok, err := valObject(v)
		if !ok || err != nil {
			return nil
		}
		v = m[part]
	}
	return v
}

// keys returns the field names of the record.
func (r *record) keys() []string {
	var out []string
	if r.json != nil {
		for k := range r.json {
			out = append(out, k)
		}
		return out
	}
	for k := range r.native {
		out = append(out, k)
	}
	return out
}

// isNullValue reports whether v is absent or JSON null.
func isNullValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case json.RawMessage:
		return isNull(x)
	}
	return false
}

// kindOf names the type of a value for error messages.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.RawMessage:
		return jsonKind(x)
	case string, []byte:
		return "a string"
	case bool:
		return "a boolean"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// valString returns a string value. ok is false when the value is absent or
// null; a value of another type is an error.
func valString(v any) (s string, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case json.RawMessage:
		return rawString(x)
	case string:
		return x, true, nil
	case []byte:
		return string(x), true, nil
	}
	return "", false, fmt.Errorf("must be a string, got %s", kindOf(v))
}

// valText is valString that also accepts an integer, returned in decimal
// (ids and years are strings in some exports and numbers in others).
func valText(v any) (string, bool, error) {
	if isNullValue(v) {
		return "", false, nil
	}
	if s, ok, err := valString(v); err == nil {
		return s, ok, nil
	}
	n, ok, err := valInt(v)
	if err != nil || !ok {
		return "", false, fmt.Errorf("must be a string or an integer, got %s", kindOf(v))
	}
	return strconv.FormatInt(n, 10), true, nil
}

// valInt returns an integer value: a JSON or parquet number without a
// fractional part, or (from CSV) a string of decimal digits.
func valInt(v any) (n int64, ok bool, err error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case json.RawMessage:
		return rawInt(x)
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("must be an integer, got %q", clip(x))
		}
		return i, true, nil
	case float32:
		return floatInt(float64(x))
	case float64:
		return floatInt(x)
	}
	if i, ok := nativeInt(v); ok {
		return i, true, nil
	}
	return 0, false, fmt.Errorf("must be an integer, got %s", kindOf(v))
}

// rawInt reads a JSON number without a fractional part (1e3 is 1000).
func rawInt(x json.RawMessage) (int64, bool, error) {
	t := bytes.TrimSpace(x)
	if isNull(t) {
		return 0, false, nil
	}
	if len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
		return 0, false, fmt.Errorf("must be an integer, got %s", kindOf(x))
	}
	if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
		return i, true, nil
	}
	if f, err := strconv.ParseFloat(string(t), 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f), true, nil
	}
	return 0, false, fmt.Errorf("must be an integer, got %s", t)
}

// floatInt reads a float without a fractional part, exact in a float64.
func floatInt(x float64) (int64, bool, error) {
	if x != math.Trunc(x) || math.Abs(x) >= 1<<53 {
		return 0, false, fmt.Errorf("must be an integer, got %v", x)
	}
	return int64(x), true, nil
}

// nativeInt converts the integer types parquet rows hold (not uint, nor a
// uint64 over math.MaxInt64).
func nativeInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

// valList returns an array value; from JSON its elements are json.RawMessage.
func valList(v any) ([]any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, false, nil
	case json.RawMessage:
		if isNull(x) {
			return nil, false, nil
		}
		var items []json.RawMessage
		if err := json.Unmarshal(x, &items); err != nil {
			return nil, false, fmt.Errorf("must be an array, got %s", jsonKind(x))
		}
		out := make([]any, len(items))
		for i, it := range items {
			out[i] = it
		}
		return out, true, nil
	case []any:
		return x, true, nil
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true, nil
	}
	return nil, false, fmt.Errorf("must be an array, got %s", kindOf(v))
}

// valObject returns an object value; from JSON its values are json.RawMessage.
func valObject(v any) (map[string]any, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, false, nil
	case json.RawMessage:
		if isNull(x) {
			return nil, false, nil
		}
		keys, vals, ok := splitObject(x)
		if !ok || !json.Valid(x) {
			return nil, false, fmt.Errorf("must be an object, got %s", jsonKind(x))
		}
		out := make(map[string]any, len(keys))
		for i, k := range keys {
			out[k] = vals[i]
		}
		return out, true, nil
	case map[string]any:
		return x, true, nil
	}
	return nil, false, fmt.Errorf("must be an object, got %s", kindOf(v))
}

// valStringList returns an array of strings.
func valStringList(v any) ([]string, bool, error) {
	items, ok, err := valList(v)
	if err != nil || !ok {
		return nil, ok, err
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok, err := valString(it)
		if err != nil || !ok {
			return nil, false, fmt.Errorf("element %d must be a string, got %s", i+1, kindOf(it))
		}
		out[i] = s
	}
	return out, true, nil
}

// rawObjectOrdered splits a JSON object into its keys and values in document
// order, keeping duplicate keys (which json.Unmarshal would silently merge).
func rawObjectOrdered(raw json.RawMessage) (keys []string, vals []json.RawMessage, err error) {
	if !json.Valid(raw) {
		return nil, nil, errors.New("invalid JSON")
	}
	keys, vals, ok := splitObject(raw)
	if !ok {
		return nil, nil, errors.New("not an object")
	}
	return keys, vals, nil
}

// rawString decodes a raw JSON value that must be a string. ok is false when
// the value is absent or null.
func rawString(raw json.RawMessage) (s string, ok bool, err error) {
	if isNull(raw) {
		return "", false, nil
	}
	// Values come from validated JSON: a string without escapes is its bytes.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 {
		return string(raw[1 : n-1]), true, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("must be a string, got %s", jsonKind(raw))
	}
	return s, true, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// jsonKind names the JSON type of a raw value for error messages.
func jsonKind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

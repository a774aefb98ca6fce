package datasets

import (
	"bytes"
	"encoding/json"
)

// These helpers take apart JSON that has already been validated (by
// json.Valid or by a json.Decoder), without copying: the values alias the
// input. On anything unexpected they report ok=false and callers fall back to
// encoding/json.

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just after the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(b); {
		k := bytes.IndexAny(b[j:], `"\`)
		if k < 0 {
			return -1
		}
		j += k
		if b[j] == '\\' {
			j += 2
			continue
		}
		return j + 1
	}
	return -1
}

// valueEnd returns the index just after the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		return compositeEnd(b, i)
	}
	return literalEnd(b, i)
}

// compositeEnd returns the index just after the object or array starting
// at b[i].
func compositeEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			e := stringEnd(b, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// literalEnd returns the index just after the number, true, false or null
// starting at b[i].
func literalEnd(b []byte, i int) int {
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// decodeKey decodes a JSON string token (with its quotes).
func decodeKey(tok []byte) (string, bool) {
	if len(tok) >= 2 && bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), true
	}
	var s string
	if json.Unmarshal(tok, &s) != nil {
		return "", false
	}
	return s, true
}

// splitObject splits a valid JSON object into its members in order,
// keeping duplicate keys.
func splitObject(b []byte) (keys []string, vals []json.RawMessage, ok bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil, nil, skipWS(b, i+1) == len(b)
	}
	for {
		i = skipWS(b, i)
		end := stringEnd(b, i)
		if end < 0 {
			return nil, nil, false
		}
		key, ok := decodeKey(b[i:end])
		if !ok {
			return nil, nil, false
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		i = skipWS(b, i+1)
		vend := valueEnd(b, i)
		if vend < 0 {
			return nil, nil, false
		}
		keys = append(keys, key)
		vals = append(vals, json.RawMessage(b[i:vend:vend]))
		i = skipWS(b, vend)
		if i >= len(b) {
			return nil, nil, false
		}
		switch b[i] {
		case ',':
			i++
			continue
		case '}':
			return keys, vals, skipWS(b, i+1) == len(b)
		}
		return nil, nil, false
	}
}

// objectMap splits a valid JSON object into a map; dup names a key that
// appears more than once (the last value is kept).
func objectMap(b []byte) (m map[string]json.RawMessage, dup string, ok bool) {
	keys, vals, ok := splitObject(b)
	if !ok {
		return nil, "", false
	}
	m = make(map[string]json.RawMessage, len(keys))
	for i, k := range keys {
		if _, seen := m[k]; seen && dup == "" {
			dup = k
		}
		m[k] = vals[i]
	}
	return m, dup, true
}

package answer

import (
	"encoding/json"
	"regexp"
	"strings"
)

// ---------------------------------------------------------------------------
// JSON

// ExtractJSON finds the JSON object in a model's text: the whole text, a
// ```json fenced block, or the first balanced {...} (string-aware brace
// matching) that decodes. embedded is false only when the whole text (white
// space trimmed) is the object. ok=false if no object decodes.
func ExtractJSON(text string) (obj []byte, embedded bool, ok bool) {
	t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "\ufeff"))
	if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
		if b := []byte(t); json.Valid(b) {
			return b, false, true
		}
	}
	if strings.Contains(t, "```") {
		for _, m := range reFence.FindAllStringSubmatch(t, 8) {
			inner := strings.TrimSpace(m[1])
			if strings.HasPrefix(inner, "{") {
				if b := []byte(inner); json.Valid(b) {
					return b, true, true
				}
			}
		}
	}
	tries := 0
	for i := 0; i < len(t) && tries < maxObjectTries; {
		j := strings.IndexByte(t[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		i = start + 1
		if !objectStart(t, start) {
			continue
		}
		tries++
		end := matchBrace(t, start)
		if end < 0 {
			// Never closed: every later '{' is inside this object (a cut-off
			// answer), so none of them is the answer's object.
			break
		}
		if b := []byte(t[start:end]); json.Valid(b) {
			return b, true, true
		}
	}
	return nil, false, false
}

var reFence = regexp.MustCompile("(?s)```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```")

// objectStart: '{' followed by optional white space and '"' or '}'.
func objectStart(t string, i int) bool {
	for k := i + 1; k < len(t); k++ {
		switch t[k] {
		case ' ', '\t', '\n', '\r':
			continue
		case '"', '}':
			return true
		default:
			return false
		}
	}
	return false
}

// matchBrace returns the end (exclusive) of the object opening at start, or -1.
func matchBrace(t string, start int) int {
	depth, inStr, esc := 0, false, false
	for k := start; k < len(t); k++ {
		c := t[k]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// repairJSON completes an object that was cut off: an incomplete key or
// value is dropped and open arrays and objects are closed. A value string cut
// mid-way is closed and kept when keepOpen (a cut reasoning is still
// reasoning, a cut "B) Tetrac" still names B) and dropped otherwise (a cut
// role name or fact is not one). It returns ok=false for an object that is
// complete (balanced) but invalid, and for anything the repair cannot make
// valid.
func repairJSON(text string, keepOpen bool) ([]byte, bool) {
	start := -1
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			return nil, false
		}
		if objectStart(text, i+j) {
			start = i + j
			break
		}
		i += j + 1
	}
	if start < 0 {
		return nil, false
	}
	s := text[start:]
	if k := strings.Index(s, "```"); k >= 0 {
		s = s[:k]
	}
	type frame struct{ obj, expectKey bool }
	var stack, safeStack []frame
	inStr, esc, strIsKey := false, false, false
	safe := -1
	markSafe := func(pos int) {
		safe = pos
		safeStack = append(safeStack[:0], stack...)
	}
	for k := 0; k < len(s); k++ {
		c := s[k]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if !strIsKey {
					markSafe(k + 1)
				}
			}
			continue
		}
		switch c {
		case '{', '[':
			if len(stack) >= maxRepairDepth {
				return nil, false
			}
			stack = append(stack, frame{obj: c == '{', expectKey: c == '{'})
			markSafe(k + 1)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1].obj != (c == '}') {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil, false // balanced: not a truncation
			}
			markSafe(k + 1)
		case '"':
			inStr = true
			top := stack[len(stack)-1]
			strIsKey = top.obj && top.expectKey
		case ':':
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = false
			}
		case ',':
			markSafe(k)
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = true
			}
		}
	}
	closers := func(st []frame) string {
		var b strings.Builder
		for i := len(st) - 1; i >= 0; i-- {
			if st[i].obj {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
		return b.String()
	}
	var cands []string
	if inStr && !strIsKey && keepOpen {
		cl := closers(stack)
		for cut := 0; cut <= 6 && cut < len(s); cut++ {
			cands = append(cands, s[:len(s)-cut]+`"`+cl)
		}
	} else if !inStr {
		cands = append(cands, strings.TrimRight(s, " \t\r\n")+closers(stack))
	}
	if safe > 0 {
		cands = append(cands, strings.TrimRight(s[:safe], " \t\r\n,")+closers(safeStack))
	}
	for _, c := range cands {
		if b := []byte(c); json.Valid(b) {
			return b, true
		}
	}
	return nil, false
}

// Object is a decoded object with normalised keys (lower case, letters and

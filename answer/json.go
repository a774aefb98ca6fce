package answer

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Finding the JSON object in a reply, and completing one that was cut off.

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
	start := firstObject(text)
	if start < 0 {
		return nil, false
	}
	s := text[start:]
	if k := strings.Index(s, "```"); k >= 0 {
		s = s[:k]
	}
	var sc cutScan
	if !sc.scan(s) {
		return nil, false
	}
	for _, c := range sc.candidates(s, keepOpen) {
		if b := []byte(c); json.Valid(b) {
			return b, true
		}
	}
	return nil, false
}

// firstObject is the position of the first '{' of text that opens an object
// (objectStart), or -1.
func firstObject(text string) int {
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			return -1
		}
		if objectStart(text, i+j) {
			return i + j
		}
		i += j + 1
	}
	return -1
}

// jsonFrame is an array or object left open.
type jsonFrame struct{ obj, expectKey bool }

// cutScan reads a JSON object that may be cut off: what is open at its end,
// and the last position where it could be closed (safe) with what was open
// there.
type cutScan struct {
	stack, safeStack     []jsonFrame
	inStr, esc, strIsKey bool
	safe                 int // -1 before the first such position
}

// scan reads s, which starts with '{'. It returns false when s cannot be a
// cut-off object: nested deeper than maxRepairDepth, closed by the wrong
// bracket, or complete (balanced).
func (sc *cutScan) scan(s string) bool {
	sc.safe = -1
	for k := 0; k < len(s); k++ {
		if sc.inStr {
			sc.stringByte(s[k], k)
		} else if !sc.structural(s[k], k) {
			return false
		}
	}
	return true
}

// markSafe records that the text could be closed at pos.
func (sc *cutScan) markSafe(pos int) {
	sc.safe = pos
	sc.safeStack = append(sc.safeStack[:0], sc.stack...)
}

// stringByte reads the byte c at k inside a string.
func (sc *cutScan) stringByte(c byte, k int) {
	switch {
	case sc.esc:
		sc.esc = false
	case c == '\\':
		sc.esc = true
	case c == '"':
		sc.inStr = false
		if !sc.strIsKey {
			sc.markSafe(k + 1)
		}
	}
}

// structural reads the byte c at k outside strings (false as for scan).
func (sc *cutScan) structural(c byte, k int) bool {
	switch c {
	case '{', '[':
		if len(sc.stack) >= maxRepairDepth {
			return false
		}
		sc.stack = append(sc.stack, jsonFrame{obj: c == '{', expectKey: c == '{'})
		sc.markSafe(k + 1)
	case '}', ']':
		if len(sc.stack) == 0 || sc.stack[len(sc.stack)-1].obj != (c == '}') {
			return false
		}
		sc.stack = sc.stack[:len(sc.stack)-1]
		if len(sc.stack) == 0 {
			return false // balanced: not a truncation
		}
		sc.markSafe(k + 1)
	case '"':
		sc.inStr = true
		top := sc.stack[len(sc.stack)-1]
		sc.strIsKey = top.obj && top.expectKey
	case ':':
		if top := &sc.stack[len(sc.stack)-1]; top.obj {
			top.expectKey = false
		}
	case ',':
		sc.markSafe(k)
		if top := &sc.stack[len(sc.stack)-1]; top.obj {
			top.expectKey = true
		}
	}
	return true
}

// candidates are the completions of the scanned s to try, in order: s
// closed where it ends (a value string cut mid-way only when keepOpen, and
// also with up to six bytes dropped, in case the cut split an escape
// sequence; never a cut key), then s closed at its last safe position.
func (sc *cutScan) candidates(s string, keepOpen bool) []string {
	var cands []string
	if sc.inStr && !sc.strIsKey && keepOpen {
		cl := closers(sc.stack)
		for cut := 0; cut <= 6 && cut < len(s); cut++ {
			cands = append(cands, s[:len(s)-cut]+`"`+cl)
		}
	} else if !sc.inStr {
		cands = append(cands, strings.TrimRight(s, " \t\r\n")+closers(sc.stack))
	}
	if sc.safe > 0 {
		cands = append(cands, strings.TrimRight(s[:sc.safe], " \t\r\n,")+closers(sc.safeStack))
	}
	return cands
}

// closers closes the open arrays and objects of st, innermost first.
func closers(st []jsonFrame) string {
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

// Object is a decoded object with normalised keys (lower case, letters and

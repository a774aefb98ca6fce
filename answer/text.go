package answer

import (
	"regexp"
	"strings"
)

// Text as models write it: line ends, full-width forms, thinking, labelled
// lines and lists.

// Prepare removes MarkCut's mark, normalises line ends and full-width forms
// (norm, the whole text)
// and, for reasoning models, keeps what follows the last </think> when
// anything does (body, the text an answer is read from; norm otherwise).
func Prepare(text string) (norm, body string) {
	norm = strings.ReplaceAll(unmarkCut(text), "\r\n", "\n")
	norm = strings.ReplaceAll(norm, "\r", "\n")
	norm = foldWidth(norm)
	body = norm
	if i := strings.LastIndex(norm, "</think>"); i >= 0 {
		if after := norm[i+len("</think>"):]; strings.TrimSpace(after) != "" {
			body = after
		}
	}
	return norm, body
}

// foldWidth maps the full-width ASCII forms (U+FF01–U+FF5E: "Ａ", "：", "（")
// and the ideographic space to ASCII, as CJK text writes option letters.
func foldWidth(s string) string {
	if strings.IndexByte(s, 0xEF) < 0 && strings.IndexByte(s, 0xE3) < 0 {
		return s
	}
	if !strings.Contains(s, "\xef\xbc") && !strings.Contains(s, "\xef\xbd") && !strings.Contains(s, "\u3000") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFF01 + '!'
		case r == 0x3000:
			return ' '
		}
		return r
	}, s)
}

// ContainsFold reports whether s contains w, a lower-case ASCII string,
// ignoring ASCII case.
func ContainsFold(s, w string) bool {
	n := len(w)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

// FirstLine is the first line of s that holds anything, trimmed.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// TrimValue trims white space and wrapping markup from a labelled value.
func TrimValue(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*_`"))
}

// reLabel is a labelled line: "LABEL: value", "**Label**: value",
// "- Label (note): value".
var reLabel = regexp.MustCompile(`^[\s>*_#•-]*([A-Za-z][A-Za-z _]{0,30}?)[\s*_]*(?:\([^)\n]*\))?[ \t*_]*[:：][ \t*_]*(.*)$`)

// Sections reads "LABEL: value" lines; a value runs on over the following
// lines until the next known label. canon maps a normalised label (upper
// case, single spaces) to its field name. The last occurrence wins.
func Sections(text string, canon map[string]string) map[string]string {
	out := map[string]string{}
	cur := ""
	var buf []string
	flush := func() {
		if cur != "" {
			out[cur] = strings.TrimSpace(strings.Join(buf, "\n"))
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, ":") && !strings.Contains(line, "：") {
			if cur != "" {
				buf = append(buf, line)
			}
			continue
		}
		if m := reLabel.FindStringSubmatch(line); m != nil {
			key := strings.ToUpper(strings.Join(strings.Fields(strings.ReplaceAll(m[1], "_", " ")), " "))
			if name, ok := canon[key]; ok {
				flush()
				cur, buf = name, append(buf[:0], m[2])
				continue
			}
		}
		if cur != "" {
			buf = append(buf, line)
		}
	}
	flush()
	return out
}

var reBullet = regexp.MustCompile(`^\s*(?:[-*•·+]|\d{1,2}[.)])\s+`)

// SplitItems splits a list value at ';' and new lines, dropping bullets.
func SplitItems(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = reBullet.ReplaceAllString(line, "")
		for _, it := range strings.Split(line, ";") {
			if it = TrimValue(it); it != "" {
				out = append(out, it)
			}
		}
	}
	return out
}

// TrimBullet removes a list bullet or number ("- ", "•", "2. ", "3) ") and
// the white space around it from the start of a line.
func TrimBullet(line string) string { return reBullet.ReplaceAllString(line, "") }

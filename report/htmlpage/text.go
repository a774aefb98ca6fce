package htmlpage

import (
	"strings"
	"unicode"
)

// block is a paragraph, a list or a preformatted code block.
type block struct {
	Kind  string   // "p", "ul" or "pre"
	Spans []span   // "p"
	Items [][]span // "ul"
	Code  string   // "pre"
}

// span is a run of text, in <code> when Code.
type span struct {
	Text string
	Code bool
}

// parseText splits plain text into blocks: blank lines end paragraphs and
// lists, "- " or "* " starts a list item, ``` fences enclose code.
func parseText(s string) []block {
	var out []block
	var para []string
	var items [][]span
	flush := func() {
		if len(para) > 0 {
			out = append(out, block{Kind: "p", Spans: spans(strings.Join(para, " "))})
			para = nil
		}
		if len(items) > 0 {
			out = append(out, block{Kind: "ul", Items: items})
			items = nil
		}
	}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRightFunc(lines[i], unicode.IsSpace)
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			code, next := fenced(lines, i+1)
			out = append(out, block{Kind: "pre", Code: code})
			i = next
		case trimmed == "":
			flush()
		case strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* "):
			if len(para) > 0 {
				flush()
			}
			items = append(items, spans(strings.TrimSpace(trimmed[2:])))
		case len(items) > 0 && line != trimmed:
			// an indented line continues the last list item
			last := items[len(items)-1]
			items[len(items)-1] = append(append(last, span{Text: " "}), spans(trimmed)...)
		default:
			if len(items) > 0 {
				flush()
			}
			para = append(para, trimmed)
		}
	}
	flush()
	return out
}

// fenced collects the lines of a code block from start up to its closing
// fence (or the end) and returns them with the closing fence's index.
func fenced(lines []string, start int) (string, int) {
	var code []string
	i := start
	for ; i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			break
		}
		code = append(code, strings.TrimRightFunc(lines[i], unicode.IsSpace))
	}
	return strings.Join(code, "\n"), i
}

// spans splits a line into text and `code` runs, Markdown-style. Outside
// code, a backslash before ASCII punctuation makes that character literal
// (\_ is _, and \` a backtick rather than a code delimiter) and the
// references &lt; and &amp; are < and & (what escape.Markdown writes);
// inside code, text is as is but for \| (how Markdown tables write |). An
// unpaired backtick is kept as text.
func spans(s string) []span {
	var out []span
	var cur strings.Builder
	emit := func(code bool) {
		if cur.Len() > 0 {
			t := cur.String()
			if code {
				t = strings.ReplaceAll(t, `\|`, "|")
			} else {
				t = refs.Replace(t)
			}
			out = append(out, span{Text: t, Code: code})
			cur.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && asciiPunct(s[i+1]):
			cur.WriteByte(s[i+1])
			i++
		case c == '`':
			end := strings.IndexByte(s[i+1:], '`')
			if end < 0 {
				cur.WriteByte(c) // unpaired
				continue
			}
			emit(false)
			cur.WriteString(s[i+1 : i+1+end])
			emit(true)
			i += end + 1
		default:
			cur.WriteByte(c)
		}
	}
	emit(false)
	return out
}

// refs decodes the character references escape.Markdown writes.
var refs = strings.NewReplacer("&lt;", "<", "&amp;", "&")

// asciiPunct reports whether c is ASCII punctuation, which Markdown lets a
// backslash escape.
func asciiPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// buildTable pads the rows to one width and works out each column's class.
func buildTable(t Table) tableView {
	cols := len(t.Header)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	class := make([]string, cols)
	for j := range class {
		class[j] = columnClass(t, j)
	}
	v := tableView{Caption: clean(t.Caption)}
	if len(t.Header) > 0 {
		for j := 0; j < cols; j++ {
			v.Header = append(v.Header, cellView{Text: at(t.Header, j), Class: class[j]})
		}
	}
	for _, r := range t.Rows {
		row := make([]cellView, cols)
		for j := range row {
			row[j] = cellView{Text: at(r, j), Class: class[j]}
			if class[j] == "r" {
				row[j].Runs = numberRuns(row[j].Text)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// numberRuns splits a numeric cell with spaces into the runs a line may
// not break inside: a value with its unit ("16.4 pp", "0 / 2") and each
// bracketed interval ("[+6.00, +6.00]", "(6052, 7385)"), breaking only
// before an interval. A cell without a space is nil (it cannot break).
func numberRuns(c string) []string {
	if !strings.Contains(c, " ") {
		return nil
	}
	var runs []string
	start := 0
	for i := 1; i < len(c); i++ {
		if c[i-1] == ' ' && (c[i] == '[' || c[i] == '(') {
			if run := strings.TrimSpace(c[start:i]); run != "" {
				runs = append(runs, run)
			}
			start = i
		}
	}
	return append(runs, strings.TrimSpace(c[start:]))
}

func at(s []string, i int) string {
	if i < len(s) {
		return clean(s[i])
	}
	return ""
}

func columnClass(t Table, j int) string {
	a := AlignAuto
	if j < len(t.Align) {
		a = t.Align[j]
	}
	switch a {
	case AlignLeft:
		return "l"
	case AlignRight:
		return "r"
	case AlignCenter:
		return "c"
	}
	numbers := 0
	for _, r := range t.Rows {
		c := strings.TrimSpace(at(r, j))
		switch {
		case placeholder(c):
		case numeric(c):
			numbers++
		default:
			return "l"
		}
	}
	if numbers > 0 {
		return "r"
	}
	return "l"
}

// placeholder is a cell that says nothing about its column's kind: empty,
// n/a, none, or dashes alone or with a dashed interval ("— [—]").
func placeholder(c string) bool {
	switch strings.ToLower(c) {
	case "", "n/a", "na", "nan", "?", "none":
		return true
	}
	return strings.Trim(c, "-–— []()") == ""
}

// numeric reads c as a number, maybe signed, with an interval or a unit:
// "61.2", "−3.1", "+0.4 [−1.2, 2.0]", "12%", "1,204", "3.2 s", "$0.004",
// "p = 0.03" is not (letters other than a short unit suffix make text).
func numeric(c string) bool {
	c = strings.TrimRightFunc(c, unicode.IsLetter) // a unit suffix such as s, ms, pp, k
	if len(c) == 0 {
		return false
	}
	digits := 0
	for _, r := range c {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune(" .,+-−–±%×$€£[]()/:~≈<>≤≥e", r):
		default:
			return false
		}
	}
	first := []rune(strings.TrimSpace(c))[0]
	return digits > 0 && (unicode.IsDigit(first) || strings.ContainsRune("+-−±.$€£<>≤≥~≈[(", first))
}

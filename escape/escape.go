// Package escape makes text that comes from data (a dataset's question,
// options, subject, topic and ids; names derived from them) safe for each
// place medteam writes it: a terminal, a Markdown document (report.md,
// check --markdown) and HTML. Each function is for one sink and keeps the
// text readable: what it cannot show it spells out (`\x1b`), never drops.
package escape

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// invisible reports whether r must not reach a terminal or a document as
// is: C0 and C1 control characters, DEL, and the Unicode bidirectional
// overrides and isolates (which reorder what a reader sees).
func invisible(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// spell is r (or an invalid byte b) as a visible escape: \x1b, \u202e.
func spell(r rune) string {
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Terminal is s for one cell or line of terminal output: every control
// character (ESC and its sequences, CR, BS, newline, tab), bidi override
// and invalid UTF-8 byte is spelled out as \xNN or \uNNNN, so the text can
// neither move the cursor, recolour or retitle the terminal, nor break the
// line or the table's alignment.
func Terminal(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(spell(rune(s[i])))
		case invisible(r):
			b.WriteString(spell(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// TerminalBlock is s for several lines of terminal output (a question's
// text): as Terminal, but newlines stay line breaks and tabs stay tabs.
func TerminalBlock(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = Terminal(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}

// clean reports whether s is valid UTF-8 without an invisible rune.
func clean(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || invisible(r) {
			return false
		}
	}
	return true
}

// Markdown is s as inline text of a Markdown document (a table cell, a
// list item, a heading): line breaks become spaces (a newline would end the
// table row), other control characters are spelled out as in Terminal, and
// the characters Markdown or the HTML it becomes would act on are escaped:
// \ | ` * _ as \-escapes, ] when a link would follow "](" or "][" (a lone
// bracket, as in an interval "[29.9, 70.1]", makes no link), < and & as entities when they could start a
// tag or an entity (so "<0.001" stays as it is).
func Markdown(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(spell(rune(s[i])))
		case invisible(r):
			b.WriteString(spell(r))
		case strings.ContainsRune("\\|`*_", r), r == ']' && (strings.HasPrefix(s[i+1:], "(") || strings.HasPrefix(s[i+1:], "[")):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '<' && startsTag(s[i+1:]):
			b.WriteString("&lt;")
		case r == '&' && startsEntity(s[i+1:]):
			b.WriteString("&amp;")
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Code is s inside a Markdown code span (`…`): there backslash escapes do
// not work and HTML is shown as text, so only what would end the span or
// the table row is replaced: a backtick by ', | by \| (GitHub tables split
// on it even in code), line breaks by spaces; control characters are
// spelled out.
func Code(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "`", "'", "|", `\|`).Replace(s)
	return Terminal(s)
}

// HTML is s as HTML text or an attribute value: the five special
// characters as entities, and control characters spelled out.
func HTML(s string) string { return html.EscapeString(Terminal(s)) }

// startsTag reports whether rest (what follows a '<') would make an HTML
// tag, comment or declaration of it.
func startsTag(rest string) bool {
	if rest == "" {
		return false
	}
	c := rest[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// startsEntity reports whether rest (what follows a '&') would make an
// entity or character reference of it.
func startsEntity(rest string) bool {
	if rest == "" {
		return false
	}
	c := rest[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '#'
}

package main

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Link is a relative or absolute link target found in a Markdown file.
type Link struct {
	Line   int    // 1-based
	Target string // as written: path, path#fragment or #fragment
}

// Heading is an ATX heading (# … ######) outside code blocks.
type Heading struct {
	Line  int
	Level int
	Text  string // the heading's text, markup as written
}

// Doc is what the checker needs of one Markdown file.
type Doc struct {
	Lines    int
	Headings []Heading
	Links    []Link
	Anchors  map[string]bool // GitHub anchors: heading slugs (duplicates numbered) and <a id|name>
}

var (
	atxHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	closingHash = regexp.MustCompile(`[ \t]+#+$`)
	htmlAnchor  = regexp.MustCompile(`<a\s+(?:[^>]*\s)?(?:id|name)\s*=\s*"([^"]+)"`)
	refDef      = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?`)
	inlineLink  = regexp.MustCompile(`!?\[([^\]]*)\]\(`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
)

// Parse reads a Markdown document: its headings, anchors and link targets,
// leaving out everything inside fenced code blocks and code spans.
func Parse(src string) Doc {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if src == "" {
		lines = nil
	}
	d := Doc{Lines: len(lines), Anchors: map[string]bool{}}
	seen := map[string]int{}
	var fence string // the open fence's marker, "" outside a code block
	for i, line := range lines {
		if marker, ok := fenceMarker(line); ok && (fence == "" || closes(marker, fence)) {
			if fence == "" {
				fence = marker
			} else {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		text := stripCodeSpans(line)
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			h := Heading{Line: i + 1, Level: len(m[1]), Text: closingHash.ReplaceAllString(m[2], "")}
			d.Headings = append(d.Headings, h)
			d.Anchors[uniqueSlug(Slug(h.Text), seen)] = true
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(text, -1) {
			d.Anchors[m[1]] = true
		}
		for _, t := range linkTargets(text) {
			d.Links = append(d.Links, Link{Line: i + 1, Target: t})
		}
	}
	return d
}

// fenceMarker reports whether line opens or closes a fenced code block
// (``` or ~~~, at any indentation: fences inside list items are indented),
// returning its run of fence characters.
func fenceMarker(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t")
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(t[n:], "`")) {
			return t[:n], true
		}
	}
	return "", false
}

// closes reports whether marker closes a block opened by open: the same
// character, at least as long.
func closes(marker, open string) bool {
	return marker[0] == open[0] && len(marker) >= len(open)
}

// stripCodeSpans blanks out `code spans` (any run of backticks up to the same
// run), so that link syntax inside them is not read as a link.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		tick := strings.Repeat("`", n)
		end := strings.Index(line[i+n:], tick)
		if end < 0 { // an unmatched run is literal text
			b.WriteString(tick)
			i += n
			continue
		}
		b.WriteString(strings.Repeat(" ", n+end+n))
		i += n + end + n
	}
	return b.String()
}

// linkTargets returns the targets of the inline links, images and reference
// definitions on one line (code spans already removed).
func linkTargets(text string) []string {
	var out []string
	if m := refDef.FindStringSubmatch(text); m != nil {
		out = append(out, m[1])
	}
	for _, loc := range inlineLink.FindAllStringIndex(text, -1) {
		if t, ok := destination(text[loc[1]:]); ok {
			out = append(out, t)
		}
	}
	return out
}

// destination reads a link destination after "(": <…>, or up to the
// whitespace before a title or the ")" that balances the parentheses.
func destination(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t")
	if strings.HasPrefix(s, "<") {
		end := strings.IndexByte(s, '>')
		return s[1:max(end, 1)], end > 0
	}
	depth := 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth == 0:
			return s[:i], i > 0
		case r == ')':
			depth--
		case unicode.IsSpace(r):
			return s[:i], i > 0
		}
	}
	return "", false
}

// Slug is GitHub's anchor for a heading's text: the rendered text (links
// reduced to their text, tags and inline markup dropped) in lower case, with
// everything but letters, marks, digits, "_", "-" and spaces removed and each
// space replaced by "-".
func Slug(heading string) string {
	text := linkDest.ReplaceAllString(heading, "$1")
	text = htmlTag.ReplaceAllString(text, "")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// linkDest reduces "[text](dest)" to "text" in a heading.
var linkDest = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// uniqueSlug numbers a repeated slug as GitHub does: "x", "x-1", "x-2", ….
func uniqueSlug(slug string, seen map[string]int) string {
	n, dup := seen[slug]
	seen[slug] = n + 1
	if !dup {
		return slug
	}
	return slug + "-" + strconv.Itoa(n)
}

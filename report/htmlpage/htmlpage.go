// Package htmlpage writes medteam's report as one self-contained, offline
// HTML file: no script, no web font, no stylesheet or image fetched from
// anywhere (a Content-Security-Policy in the page forbids it too), figures
// inlined as SVG from package report/plot with their font stated once.
//
// The markup is polyglot: valid HTML5 that is also well-formed XML, so a
// plain XML parser can check it.
package htmlpage

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// Page is a whole report.
type Page struct {
	Title    string
	Run      []KV // what was run: shown as a key/value list under the title
	Sections []Section
	Footer   string // optional line at the bottom, e.g. "medteam v0.3 · 2025-06-01"
}

// KV is one line of the run description.
type KV struct{ Key, Value string }

// Section is a heading followed by text, then tables, then figures.
type Section struct {
	Heading string
	// Text is plain text, escaped, in a small Markdown-like form:
	// paragraphs are separated by blank lines, lines starting with "- "
	// form a list, lines between ``` fences are preformatted code, and
	// `backticks` mark inline code. As in Markdown (report.md's text is
	// passed as is), a backslash before ASCII punctuation outside code makes
	// it literal (first\_prompt reads first_prompt) and &lt; and &amp; are
	// < and &.
	Text    string
	Tables  []Table
	Figures []Figure
}

// Table is a header and rows of cells. Align, when given, sets a column's
// alignment; columns without one are right-aligned when all their cells
// read as numbers, left-aligned otherwise.
type Table struct {
	Caption string
	Header  []string
	Rows    [][]string
	Align   []Align
}

// Align is a column's alignment.
type Align int

// Alignments; AlignAuto decides from the column's cells.
const (
	AlignAuto Align = iota
	AlignLeft
	AlignRight
	AlignCenter
)

// Figure is an SVG made by package report/plot, with a caption. Write
// rejects SVG of any other form (see checkSVG).
type Figure struct {
	SVG     []byte
	Caption string
}

//go:embed page.tmpl
var pageTmpl string

//go:embed style.css
var styleCSS string

var tmpl = template.Must(template.New("page").Parse(pageTmpl))

// Write renders p to w.
func Write(w io.Writer, p Page) error {
	v, err := build(p)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return fmt.Errorf("htmlpage: %w", err)
	}
	_, err = buf.WriteTo(w)
	return err
}

// The view the template renders.
type (
	pageView struct {
		Title    string
		Run      []KV
		Sections []sectionView
		Footer   string
		CSS      template.CSS
	}
	sectionView struct {
		ID, Heading string
		Blocks      []block
		Tables      []tableView
		Figures     []figureView
	}
	tableView struct {
		Caption string
		Header  []cellView
		Rows    [][]cellView
	}
	cellView struct {
		Text, Class string
		Runs        []string // when set, the text as runs kept on one line each
	}
	figureView struct {
		Kind    string
		Empty   bool
		SVG     template.HTML
		Caption string
	}
)

func build(p Page) (pageView, error) {
	v := pageView{Title: clean(p.Title), Footer: clean(p.Footer)}
	for _, kv := range p.Run {
		v.Run = append(v.Run, KV{Key: clean(kv.Key), Value: clean(kv.Value)})
	}
	if v.Title == "" {
		v.Title = "medteam report"
	}
	css := styleCSS
	fonts := false
	for i, s := range p.Sections {
		sv := sectionView{ID: "s" + strconv.Itoa(i+1), Heading: clean(s.Heading), Blocks: parseText(clean(s.Text))}
		for _, t := range s.Tables {
			sv.Tables = append(sv.Tables, buildTable(t))
		}
		for j, f := range s.Figures {
			fv, hadFont, err := buildFigure(f)
			if err != nil {
				return v, fmt.Errorf("htmlpage: section %d (%q), figure %d: %w", i+1, s.Heading, j+1, err)
			}
			fonts = fonts || hadFont
			sv.Figures = append(sv.Figures, fv)
		}
		v.Sections = append(v.Sections, sv)
	}
	if fonts {
		css = fontCSS() + "\n" + css
	}
	v.CSS = template.CSS(css)
	return v, nil
}

// clean makes caller text safe to put in the page: invalid UTF-8 becomes
// U+FFFD and control characters other than tab and newline are dropped
// (HTML and XML both forbid most of them). Escaping is html/template's.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return r
		case r == '\r':
			return '\n'
		case r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0xFFFE || r == 0xFFFF:
			return -1
		}
		return r
	}, s)
}

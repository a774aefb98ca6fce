// Command pdfheaders checks that a report printed to PDF kept every table
// column: each column header of report.html (every <th> in a <thead>) must
// appear in the PDF's text (from pdftotext): its words in order, each close
// after the previous (a header wrapped in its cell is still found). A table cut at the
// page's right edge loses its right-hand headers and fails the check.
//
//	pdftotext report.pdf report.txt
//	go run ./scripts/pdfheaders -html report.html -text report.txt
//
// It prints how many headers it found and exits 1 when one is missing.
package main

import (
	"flag"
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"unicode"
)

var (
	theadRE = regexp.MustCompile(`(?s)<thead>(.*?)</thead>`)
	thRE    = regexp.MustCompile(`(?s)<th[^>]*>(.*?)</th>`)
	tagRE   = regexp.MustCompile(`<[^>]*>`)
)

// headers is every column header of the page's tables, tags stripped and
// entities decoded.
func headers(page string) []string {
	var out []string
	for _, th := range theadRE.FindAllStringSubmatch(page, -1) {
		for _, h := range thRE.FindAllStringSubmatch(th[1], -1) {
			if s := strings.TrimSpace(html.UnescapeString(tagRE.ReplaceAllString(h[1], ""))); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// squash removes white space and soft hyphens.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '\u00ad' {
			return -1
		}
		return r
	}, s)
}

// window is how far (in runes of squashed text) a header's next word may
// follow its previous one: a header wrapped in its cell comes out of
// pdftotext with its neighbours' lines between its own.
const window = 200

// missing is the headers not found in text: found means its words appear
// in order, each within window of the previous one (white space ignored).
func missing(hs []string, text string) []string {
	t := squash(text)
	var out []string
	for _, h := range hs {
		if !inOrder(strings.Fields(h), t) {
			out = append(out, h)
		}
	}
	return out
}

// inOrder reports whether words occur in t in order, each starting within
// window bytes after the end of the previous one, trying every occurrence
// of the first word.
func inOrder(words []string, t string) bool {
	if len(words) == 0 {
		return true
	}
	for from := 0; ; {
		i := strings.Index(t[from:], words[0])
		if i < 0 {
			return false
		}
		at := from + i + len(words[0])
		ok := true
		for _, w := range words[1:] {
			end := min(len(t), at+window+len(w))
			j := strings.Index(t[at:end], w)
			if j < 0 {
				ok = false
				break
			}
			at += j + len(w)
		}
		if ok {
			return true
		}
		from += i + 1
	}
}

func main() {
	page := flag.String("html", "", "the report.html that was printed")
	text := flag.String("text", "", "pdftotext's output for the printed PDF")
	flag.Parse()
	if *page == "" || *text == "" {
		fmt.Fprintln(os.Stderr, "usage: pdfheaders -html report.html -text report.txt")
		os.Exit(2)
	}
	p, err := os.ReadFile(*page)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdfheaders:", err)
		os.Exit(2)
	}
	t, err := os.ReadFile(*text)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdfheaders:", err)
		os.Exit(2)
	}
	hs := headers(string(p))
	miss := missing(hs, string(t))
	fmt.Printf("pdfheaders: %d column headers in %d tables' heads, %d missing from the PDF\n", len(hs), len(theadRE.FindAllString(string(p), -1)), len(miss))
	for _, m := range miss {
		fmt.Printf("pdfheaders: MISSING %q\n", m)
	}
	if len(hs) == 0 || len(miss) > 0 {
		os.Exit(1)
	}
}

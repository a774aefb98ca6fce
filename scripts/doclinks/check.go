package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// MaxReadmeLines is the most lines README.md may have: it is the front door,
// the reference lives in docs/.
const MaxReadmeLines = 300

// scheme matches a link with a URL scheme (https:, mailto:), not checked.
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// Check checks README.md and docs/*.md under root — README.md's length,
// every relative link, and that README.md links every docs page and each
// page links back — and returns every problem as "file:line: what is wrong
// (what to do)", file by file, README.md first, then the missing links.
func Check(root string, maxReadme int) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	c := checker{root: root, docs: map[string]Doc{}, linked: map[string]map[string]bool{}}
	var problems []string
	for _, f := range files {
		d, err := c.doc(f)
		if err != nil {
			return nil, err
		}
		rel := c.rel(f)
		if rel == "README.md" && d.Lines > maxReadme {
			problems = append(problems, fmt.Sprintf("README.md:%d: %d lines, more than %d: move reference text to a page under docs/ and link it", d.Lines, d.Lines, maxReadme))
		}
		for _, l := range d.Links {
			if msg := c.link(f, l.Target); msg != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s", rel, l.Line, l.Target, msg))
			}
		}
	}
	return append(problems, c.unlinked(files[1:])...), nil
}

// unlinked reports the docs pages README.md does not link to, and those
// that do not link back to it.
func (c *checker) unlinked(pages []string) []string {
	var problems []string
	for _, p := range pages {
		rel := c.rel(p)
		if !c.linked["README.md"][rel] {
			problems = append(problems, fmt.Sprintf("README.md:1: no link to %s: add it to the Documentation table", rel))
		}
		if !c.linked[rel]["README.md"] {
			problems = append(problems, fmt.Sprintf("%s:1: no link back to the README: add [README](../README.md) under the title", rel))
		}
	}
	return problems
}

type checker struct {
	root   string
	docs   map[string]Doc             // parsed Markdown files by path
	linked map[string]map[string]bool // file → the files its links resolve to (both relative to root)
}

func (c *checker) rel(path string) string {
	r, err := filepath.Rel(c.root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(r)
}

func (c *checker) doc(path string) (Doc, error) {
	if d, ok := c.docs[path]; ok {
		return d, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Doc{}, err
	}
	d := Parse(string(b))
	c.docs[path] = d
	return d, nil
}

// link returns what is wrong with target, a link in file from, or "".
func (c *checker) link(from, target string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	pathPart, frag, _ := strings.Cut(target, "#")
	p, err := url.PathUnescape(pathPart)
	if err != nil {
		return fmt.Sprintf("bad escape in the path (%v)", err)
	}
	dest := from
	if p != "" {
		if strings.HasPrefix(p, "/") {
			return "an absolute path: write it relative to " + c.rel(filepath.Dir(from)) + "/"
		}
		dest = filepath.Join(filepath.Dir(from), filepath.FromSlash(p))
		if r := c.rel(dest); r == ".." || strings.HasPrefix(r, "../") {
			return "outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return fmt.Sprintf("no file %s (paths are relative to %s/)", c.rel(dest), c.rel(filepath.Dir(from)))
		}
		c.link1(from, dest)
	}
	if frag == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	d, err := c.doc(dest)
	if err != nil {
		return err.Error()
	}
	if !d.Anchors[frag] {
		return fmt.Sprintf("no heading with anchor #%s in %s (anchors: %s)", frag, c.rel(dest), nearest(d, frag))
	}
	return ""
}

// link1 records that from links to dest.
func (c *checker) link1(from, dest string) {
	f := c.rel(from)
	if c.linked[f] == nil {
		c.linked[f] = map[string]bool{}
	}
	c.linked[f][c.rel(dest)] = true
}

// nearest lists the anchors of d that share the longest prefix with the
// fragment (all of them when none shares 3 bytes), so that the message shows
// what to link to.
func nearest(d Doc, frag string) string {
	best, some := 0, []string(nil)
	for a := range d.Anchors {
		n := commonPrefix(a, frag)
		switch {
		case n > best:
			best, some = n, []string{a}
		case n == best:
			some = append(some, a)
		}
	}
	if best < 3 {
		some = some[:0]
		for a := range d.Anchors {
			some = append(some, a)
		}
	}
	sort.Strings(some)
	if len(some) > 8 {
		some = append(some[:8], "…")
	}
	return strings.Join(some, ", ")
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

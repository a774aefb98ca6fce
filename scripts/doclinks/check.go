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

// Check checks README.md and docs/*.md under root and returns every problem
// as "file:line: what is wrong (what to do)", file by file: README.md first.
func Check(root string, maxReadme int) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	c := checker{root: root, docs: map[string]Doc{}}
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
	return problems, nil
}

type checker struct {
	root string
	docs map[string]Doc // parsed Markdown files by path
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

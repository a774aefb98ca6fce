package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// problems collects the errors of one sweep file, so that all of them are
// reported at once, each as file:line.
type problems struct {
	path string
	list []problem
}

type problem struct {
	line int
	msg  string
}

// add records a problem at line (0: the file as a whole).
func (p *problems) add(line int, format string, a ...any) {
	p.list = append(p.list, problem{line, fmt.Sprintf(format, a...)})
}

// err is nil without problems, else an *InputError listing every problem
// in line order, one per line, each as path:line: what is wrong.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	slices.SortStableFunc(p.list, func(a, b problem) int { return a.line - b.line })
	lines := make([]string, len(p.list))
	for i, x := range p.list {
		lines[i] = p.path + ":" + fmt.Sprint(x.line) + ": " + x.msg
		if x.line == 0 {
			lines[i] = p.path + ": " + x.msg
		}
	}
	if len(lines) == 1 {
		return Inputf("%s", lines[0])
	}
	return Inputf("%s has %d problems; fix them all before running:\n  %s", p.path, len(lines), strings.Join(lines, "\n  "))
}

// maxScanLines bounds the files whose syntax error line is found by
// parsing each prefix (quadratic); a longer file gets yaml.v3's line.
const maxScanLines = 1000

var yamlErr = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// syntaxError is a YAML syntax error of the file as path:line. yaml.v3's
// own line is 0-based for some errors and missing on the first line, so
// the line is the first one at which the file so far fails with the same
// problem (the file is short: a parse per line is cheap).
func syntaxError(path string, b []byte, err error) error {
	problem := err.Error()
	if m := yamlErr.FindStringSubmatch(problem); m != nil {
		problem = m[2]
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > maxScanLines {
		if m := yamlErr.FindStringSubmatch(err.Error()); m != nil && m[1] != "" {
			return Inputf("%s:%s: not valid YAML: %s", path, m[1], problem) // yaml.v3's own line
		}
		lines = nil
	}
	for k := 1; k <= len(lines); k++ {
		var n yaml.Node
		e := yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n)
		if e == nil {
			continue
		}
		if m := yamlErr.FindStringSubmatch(e.Error()); m != nil && m[2] == problem {
			return Inputf("%s:%d: not valid YAML: %s", path, k, problem)
		}
	}
	return Inputf("%s: not valid YAML: %s", path, problem)
}

// Command testsum reads `go test -json` on standard input and prints what a
// plain `go test` run prints (a line per package, the output of each failing
// test, build errors), then every skipped test with its reason, and closes
// with one count line:
//
//	412 passed, 0 failed, 23 skipped
//
// It exits 1 when a test or a package failed, or when the input held no
// test event at all, so `make test` can count skips without hiding a failure:
//
//	go test -json ./... | go run ./scripts/testsum
//
// Lines that are not JSON (go's own errors before any test ran) are passed
// through and count as a failure.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one record of `go test -json` (cmd/test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
}

// tally is what the stream said, in order of arrival.
type tally struct {
	passed, failed int
	skipped        []skip
	failedPkgs     int             // packages that failed with no failing test (build, timeout, TestMain)
	failedIn       map[string]bool // packages with a failing test
	nonJSON        int
	events         int
	out            map[string][]string // test key → output lines, dropped when it passes
}

type skip struct{ name, reason string }

func main() {
	t, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	if !t.ok() {
		os.Exit(1)
	}
}

func (t *tally) ok() bool {
	return t.failed == 0 && t.failedPkgs == 0 && t.nonJSON == 0 && t.events > 0
}

// summarize reads the event stream from r and writes the report to w.
func summarize(r io.Reader, w io.Writer) (*tally, error) {
	t := &tally{out: map[string][]string{}, failedIn: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			t.nonJSON++
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		t.events++
		t.take(e, w)
	}
	if err := sc.Err(); err != nil {
		return t, err
	}
	t.closing(w)
	return t, nil
}

func key(e event) string { return e.Package + "\x00" + e.Test }

// take applies one event.
func (t *tally) take(e event, w io.Writer) {
	switch {
	case e.Action == "build-output":
		fmt.Fprint(w, e.Output)
	case e.Action == "build-fail":
		// the package's own fail event follows and counts it
	case e.Test == "":
		t.pkgEvent(e, w)
	case e.Action == "output":
		t.out[key(e)] = append(t.out[key(e)], e.Output)
	case e.Action == "pass":
		t.passed++
		delete(t.out, key(e))
	case e.Action == "skip":
		t.skipped = append(t.skipped, skip{e.Package + " " + e.Test, skipReason(t.out[key(e)])})
		delete(t.out, key(e))
	case e.Action == "fail":
		t.failed++
		t.failedIn[e.Package] = true
		fmt.Fprint(w, strings.Join(t.out[key(e)], ""))
		delete(t.out, key(e))
	}
}

// pkgEvent handles a package's own lines: its ok/FAIL line and output
// outside any test (a panic in TestMain, a timeout's stack).
func (t *tally) pkgEvent(e event, w io.Writer) {
	switch e.Action {
	case "output":
		s := e.Output
		if strings.HasPrefix(s, "PASS\n") || s == "PASS" {
			return
		}
		if strings.HasPrefix(s, "ok ") || strings.HasPrefix(s, "FAIL") || strings.HasPrefix(s, "?") ||
			!strings.HasPrefix(s, "=== ") {
			fmt.Fprint(w, s)
		}
	case "fail":
		if !t.failedIn[e.Package] {
			t.failedPkgs++
		}
	}
}

// skipReason is the test's skip message: the last output line that is not
// the "--- SKIP" header, trimmed of its file:line prefix's indentation.
func skipReason(lines []string) string {
	reason := ""
	for _, l := range lines {
		s := strings.TrimSpace(l)
		if s == "" || strings.HasPrefix(s, "=== ") || strings.HasPrefix(s, "--- SKIP") {
			continue
		}
		reason = s
	}
	return reason
}

// closing prints the skipped tests and the count line.
func (t *tally) closing(w io.Writer) {
	sort.SliceStable(t.skipped, func(i, j int) bool { return t.skipped[i].name < t.skipped[j].name })
	if len(t.skipped) > 0 {
		fmt.Fprintf(w, "\nskipped (%d):\n", len(t.skipped))
		for _, s := range t.skipped {
			fmt.Fprintf(w, "  %s: %s\n", s.name, s.reason)
		}
	}
	if t.events == 0 {
		fmt.Fprintln(w, "testsum: no test event read (was the input `go test -json`?)")
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", t.passed, t.failed+t.failedPkgs, len(t.skipped))
}

//go:build unix

package main

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The test binary doubles as the measured child: with PEAKRSS_CHILD_MB set
// it touches that many MB, writes a line and exits with PEAKRSS_CHILD_EXIT.
func TestMain(m *testing.M) {
	if v := os.Getenv("PEAKRSS_CHILD_MB"); v != "" {
		mb, _ := strconv.Atoi(v)
		buf := make([]byte, mb<<20)
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = 1
		}
		os.Stdout.WriteString("child says hi\n")
		code, _ := strconv.Atoi(os.Getenv("PEAKRSS_CHILD_EXIT"))
		if buf[len(buf)/2] != 1 { // keep buf alive until here
			code = 99
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

var peakLine = regexp.MustCompile(`(?m)^peak RSS: (\d+) MB$`)

func runChild(t *testing.T, mb, exit int, flags ...string) (code int, peak int, stdout string) {
	t.Helper()
	t.Setenv("PEAKRSS_CHILD_MB", strconv.Itoa(mb))
	t.Setenv("PEAKRSS_CHILD_EXIT", strconv.Itoa(exit))
	var out, errOut bytes.Buffer
	args := append(flags, "--", os.Args[0], "-test.run=^$")
	code = run(args, strings.NewReader(""), &out, &errOut)
	m := peakLine.FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("no peak line in stderr %q", errOut.String())
	}
	peak, _ = strconv.Atoi(m[1])
	return code, peak, out.String()
}

func TestPeakAndExitCode(t *testing.T) {
	code, peak, out := runChild(t, 96, 3)
	if code != 3 {
		t.Errorf("exit code %d, want the child's 3", code)
	}
	if out != "child says hi\n" {
		t.Errorf("child's stdout %q not passed through", out)
	}
	if peak < 96 || peak > 400 {
		t.Errorf("peak %d MB, want ≥ 96 (the child touched 96 MB) and plausible", peak)
	}
}

func TestMaxMB(t *testing.T) {
	if code, peak, _ := runChild(t, 64, 0, "-max-mb", "32"); code != 1 {
		t.Errorf("peak %d MB over -max-mb 32: exit %d, want 1", peak, code)
	}
	if code, peak, _ := runChild(t, 16, 0, "-max-mb", "2000"); code != 0 {
		t.Errorf("peak %d MB under -max-mb 2000: exit %d, want 0", peak, code)
	}
	// A failing child keeps its own code even over the limit.
	if code, _, _ := runChild(t, 64, 5, "-max-mb", "32"); code != 5 {
		t.Errorf("failing child over the limit: exit %d, want the child's 5", code)
	}
}

func TestUsageAndStartFailure(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, strings.NewReader(""), &out, &errOut); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
	if code := run([]string{"--", "/nonexistent/peakrss-test"}, strings.NewReader(""), &out, &errOut); code != 127 {
		t.Errorf("missing command: exit %d, want 127", code)
	}
}

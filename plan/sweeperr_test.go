package plan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSweepReportsEveryProblem: a sweep file's errors are reported all at
// once, in line order, each as file:line with what to do. Before, only the
// first (the unknown key at line 3) was.
func TestSweepReportsEveryProblem(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	text := "arms: [base, self-consistency, fulll]\nturns: 5\ncolour: red\nagents: 9\nlimit: many\n" +
		"temperature: {agent: 9, leeder: 1}\nturns: 2\ndiscussion: loud\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := defaultSpec()
	err := LoadSweep(path, &s)
	if err == nil || !IsInput(err) {
		t.Fatalf("want an input error, got %v", err)
	}
	want := []string{
		path + " has 10 problems; fix them all before running:",
		path + `:1: arm "self-consistency": unknown arm "self-consistency" (did you mean "sc:k=5"?)`,
		path + `:1: arm "fulll": unknown arm "fulll" (did you mean "full"?)`,
		path + ":2: turns: 5; the protocol defines 2 or 3 discussion turns",
		path + `:3: unknown key "colour"; the keys of a sweep file are datasets, models, arms,`,
		path + ":4: agents: 9; use 0 for a dynamic team",
		path + `:5: limit must be an integer; got "many"`,
		path + ":6: temperature.agent: 9; use a temperature from 0 to 2",
		path + `:6: unknown key "leeder" under temperature (did you mean "leader"?)`,
		path + `:7: key "turns" given twice (first at line 2); keep one`,
		path + `:8: discussion: "loud"; use round_robin or parallel`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q lacks %q", i+1, lines[i], w)
		}
	}
	// one problem is one line, as before
	if err := os.WriteFile(path, []byte("arms: [base]\nturns: 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := LoadSweep(path, &s); err == nil || err.Error() != path+":2: turns: 5; the protocol defines 2 or 3 discussion turns" {
		t.Errorf("one problem: %v", err)
	}
}

// TestSweepSyntaxErrorLine: a YAML syntax error names the line it is on.
// yaml.v3 numbers some from 0 ("- x" on line 2 said line 1) and leaves the
// first line out ("a: b: c" said no line).
func TestSweepSyntaxErrorLine(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
	}{
		{"a: b: c\n", 1},
		{"arms: [base]\n- x\n", 2},
		{"arms: [base\nturns: 2\n", 1},
		{"arms: base\n  turns: 2\n", 2},
		{"arms:\n\t- base\n", 2},
		{"arms: [base]\nturns: \"2\n", 2},
		{"# c\n# c\narms: [base]\nx: y: z\n", 4},
		{"arms: [base]\nturns: 2\n  agents: 3\n", 3},
		{"arms: [base]\nturns: 2\nseed: 'x\n", 3},
	} {
		path := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		s := defaultSpec()
		err := LoadSweep(path, &s)
		want := path + ":" + strconv.Itoa(tc.line) + ": not valid YAML: "
		if err == nil || !IsInput(err) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v; want it to begin %q", tc.text, err, want)
		}
	}
}

// FuzzLoadSweep: any file loads or fails with an input error naming the
// file (every problem line as file:line or file:), never a panic.
func FuzzLoadSweep(f *testing.F) {
	for _, seed := range []string{"arms: [base, full]\nturns: 2\n", "arms: [base\n", "a: b: c\n", "temperature: {agent: x}\n",
		"arms:\n  - sc:3\n  - debate:3,2\nagents: 3\n", "turns: 2\nturns: 3\n", "- x\n", ""} {
		f.Add(seed)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s := defaultSpec()
		err := LoadSweep(path, &s)
		if err == nil {
			return
		}
		if !IsInput(err) || !strings.HasPrefix(err.Error(), path) {
			t.Fatalf("%q: %v", text, err)
		}
		for _, l := range strings.Split(err.Error(), "\n")[1:] {
			if !strings.HasPrefix(strings.TrimSpace(l), path+":") {
				t.Fatalf("%q: problem line %q does not name the file and line", text, l)
			}
		}
	})
}

package runner

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/medteam-bench/medteam"

// moduleDeps are the packages of this module that pkg (a path inside the
// module) imports, directly or not, from its non-test files.
func moduleDeps(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		dir := filepath.Join("..", strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files in %s (%v)", p, dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, is := range af.Imports {
				ip, _ := strconv.Unquote(is.Path.Value)
				if (ip == module || strings.HasPrefix(ip, module+"/")) && !seen[ip] {
					seen[ip] = true
					walk(ip)
				}
			}
		}
	}
	walk(pkg)
	return seen
}

// TestRunnerKnowsNoTask: the runner reaches scoring only through the task
// contract; no package of a task (tasks/…, nor the triage scoring that was
// once the top-level triage package) is among its dependencies.
func TestRunnerKnowsNoTask(t *testing.T) {
	deps := moduleDeps(t, module+"/runner")
	for p := range deps {
		if p == module+"/tasks" || strings.HasPrefix(p, module+"/tasks/") || p == module+"/triage" {
			t.Errorf("runner depends on %s: a task's scoring; reach it through task.Registry (Plan.Tasks)", p)
		}
	}
	if !deps[module+"/task"] {
		t.Error("runner does not import the task contract")
	}
}

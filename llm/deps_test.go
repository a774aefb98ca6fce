package llm_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/teamwork"
)

const module = "github.com/medteam-bench/medteam"

// llmFiles are the non-test Go files of llm and the packages under it, by
// package directory (relative to the repository root).
func llmFiles(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dir := filepath.Join("llm", filepath.Dir(path))
			out[dir] = append(out[dir], path)
		}
		return nil
	})
	if err != nil || len(out) < 2 {
		t.Fatalf("walking llm/: %v (%d packages)", err, len(out))
	}
	return out
}

// moduleDeps are the module's packages that the files import, directly or
// not (non-test files only).
func moduleDeps(t *testing.T, files []string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var visit func([]string)
	visit = func(files []string) {
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, is := range af.Imports {
				ip, _ := strconv.Unquote(is.Path.Value)
				if !strings.HasPrefix(ip, module+"/") || seen[ip] {
					continue
				}
				seen[ip] = true
				dir := filepath.Join("..", strings.TrimPrefix(ip, module+"/"))
				all, _ := filepath.Glob(filepath.Join(dir, "*.go"))
				var src []string
				for _, g := range all {
					if !strings.HasSuffix(g, "_test.go") {
						src = append(src, g)
					}
				}
				visit(src)
			}
		}
	}
	visit(files) // paths relative to llm/, the test's directory
	return seen
}

// TestLLMKnowsNoProtocol: the model contract and everything under it (the
// simulator included) import no protocol, no protocol registry and no
// teamwork, and no string in their code is a call kind a protocol's
// simulated behaviour answers (Protocol.Sim) — teamwork's included, whose
// every kind its behaviour answers: a protocol's simulation lives beside
// the protocol, on the core's mechanisms.
func TestLLMKnowsNoProtocol(t *testing.T) {
	owned := map[string]string{}
	for _, p := range protocols.All() {
		if p.Sim == nil {
			continue
		}
		for k := range p.Sim.Kinds {
			owned[k] = p.Name
		}
	}
	if len(owned) == 0 {
		t.Fatal("no protocol carries a simulated behaviour")
	}
	// Teamwork's kinds too: its simulation is teamwork/sim.go, on the
	// core's mechanisms, and llm/sim names none of them.
	for _, k := range []string{
		teamwork.KindAssess, teamwork.KindRecruit, teamwork.KindPredict, teamwork.KindSynthesize,
		teamwork.KindDiscuss, teamwork.KindFinal, teamwork.KindMediate, teamwork.KindMonitorSelect,
		teamwork.KindMonitorRespond, teamwork.KindMonitorRate, teamwork.KindTieBreak,
	} {
		if owned[k] != "teamwork" {
			t.Errorf("teamwork's kind %q has no simulated behaviour of teamwork (teamwork.Protocol.Sim): the simulator answers it itself", k)
		}
	}
	for dir, files := range llmFiles(t) {
		for dep := range moduleDeps(t, files) {
			p := strings.TrimPrefix(dep, module+"/")
			if p == "protocol" || p == "protocols" || p == "teamwork" || strings.HasPrefix(p, "protocols/") || strings.HasPrefix(p, "teamwork/") {
				t.Errorf("%s depends on %s: the model contract knows no protocol", dir, dep)
			}
		}
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && owned[s] != "" {
						t.Errorf("llm/%s names %q, a call kind of %s: move its simulation to the protocol's sim.go", f, s, owned[s])
					}
				}
				return true
			})
		}
	}
}

package llm_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
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
// the protocol, on the core's mechanisms. Nor does a string of the
// simulator (llm/sim and under it) name teamwork's prompt lines, answer
// labels or JSON keys (teamworkVocabulary): teamwork reads and writes them
// itself.
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
			for _, s := range stringLiterals(t, f) {
				if owned[s] != "" {
					t.Errorf("llm/%s names %q, a call kind of %s: move its simulation to the protocol's sim.go", f, s, owned[s])
				}
			}
		}
	}
	vocab := teamworkVocabulary(t)
	t.Logf("teamwork's vocabulary: %q", vocab)
	for dir, files := range llmFiles(t) {
		if dir != filepath.Join("llm", "sim") && !strings.HasPrefix(dir, filepath.Join("llm", "sim")+string(filepath.Separator)) {
			continue // the simulator's core and its test kit
		}
		for _, f := range files {
			for _, s := range stringLiterals(t, f) {
				for _, w := range vocab {
					if strings.Contains(s, w) {
						t.Errorf("llm/%s (%s) names %s, teamwork's prompt or answer vocabulary, in %q: teamwork reads and writes it (teamwork/sim*.go); the core takes typed inputs", f, dir, w, s)
					}
				}
			}
		}
	}
}

// stringLiterals are the values of the string literals of the Go file f.
func stringLiterals(t *testing.T, f string) []string {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(af, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// teamworkVocabulary is what only teamwork's prompts and answers say, taken
// from teamwork itself: the prompt lines its simulated behaviour declares
// (teamwork.Sim.Markers), the labelled lines of its templates
// (teamwork/prompts/*.tmpl), and the JSON keys and labels of its kinds'
// answers (teamwork/FORMATS.md, the rows of the kinds teamwork.Sim
// answers) — as `LABEL:` and `"key"` — less the shared first answer's (the
// core's own kind: firstanswer's prompts and schema, and the facts a
// request may ask it for).
func teamworkVocabulary(t *testing.T) []string {
	t.Helper()
	label := regexp.MustCompile(`\b([A-Z][A-Z ]*[A-Z]):`)
	key := regexp.MustCompile(`"([a-z_]+)":`)
	words := map[string]bool{}
	for _, m := range teamwork.Sim.Markers {
		words[strings.TrimSpace(m.Prefix)] = true
	}
	tmpls, _ := filepath.Glob("../teamwork/prompts/*.tmpl")
	for _, f := range tmpls {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if m := label.FindStringSubmatch(strings.TrimSpace(line)); m != nil && strings.HasPrefix(strings.TrimSpace(line), m[0]) {
				words[m[0]] = true
			}
		}
	}
	formats, err := os.ReadFile("../teamwork/FORMATS.md")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, line := range strings.Split(string(formats), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			continue
		}
		ours := false
		for _, k := range strings.Split(cells[1], ",") {
			k = strings.Trim(strings.TrimSpace(k), "`")
			if _, ok := teamwork.Sim.Kinds[k]; ok {
				covered[k], ours = true, true
			}
		}
		if !ours {
			continue
		}
		for _, m := range key.FindAllStringSubmatch(line, -1) {
			words[`"`+m[1]+`"`] = true
		}
		for _, m := range label.FindAllString(cells[len(cells)-2], -1) {
			words[m] = true
		}
	}
	// Every kind has its row but predict, whose answer is the first answer's.
	if len(tmpls) == 0 || len(covered) < len(teamwork.Sim.Kinds)-1 {
		t.Fatalf("teamwork's vocabulary: %d templates, %d of its %d kinds in FORMATS.md's table (teamwork/prompts/*.tmpl, teamwork/FORMATS.md moved?)", len(tmpls), len(covered), len(teamwork.Sim.Kinds))
	}
	// The shared first answer's own words, which the core answers.
	shared := map[string]bool{`"facts"`: true, "FACTS:": true}
	for _, structured := range []bool{false, true} {
		system, user, schema, err := firstanswer.Prompt("QUESTION", structured, firstanswer.Extra{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range label.FindAllString(system+"\n"+user, -1) {
			shared[m] = true
		}
		var sc struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(schema.Schema, &sc); err != nil {
			t.Fatal(err)
		}
		for k := range sc.Properties {
			shared[`"`+k+`"`] = true
		}
	}
	var out []string
	for w := range words {
		if !shared[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

package llm_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/protocols"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/tasks"
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
// simulator (llm/sim and under it) name any registered protocol's prompt
// lines, answer labels or JSON keys (protocolVocabulary): each protocol
// reads and writes them itself; the core knows the shared first answer's
// fields and kit's POSITION lines only.
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
	// A task's model-graded calls too (task.Task.Sim: the triage task's
	// diagnosis judge): the core knows no task either.
	for _, tk := range tasks.All() {
		if tk.Sim != nil {
			for k := range tk.Sim.Kinds {
				owned[k] = "the " + tk.Name + " task"
			}
		}
	}
	if owned["diagnosis_judge"] == "" {
		t.Error("the triage task's diagnosis judge has no simulated behaviour of the task (task.Task.Sim): the simulator answers it itself")
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
			if p == "protocol" || p == "protocols" || p == "teamwork" || strings.HasPrefix(p, "protocols/") || strings.HasPrefix(p, "teamwork/") ||
				p == "task" || p == "tasks" || strings.HasPrefix(p, "tasks/") {
				t.Errorf("%s depends on %s: the model contract knows no protocol and no task", dir, dep)
			}
		}
		for _, f := range files {
			for _, s := range stringLiterals(t, f) {
				if owned[s] != "" {
					t.Errorf("llm/%s names %q, a call kind of %s: move its simulation beside its owner (its sim.go)", f, s, owned[s])
				}
			}
		}
	}
	vocab := protocolVocabulary(t)
	t.Logf("the protocols' vocabulary: %d words: %q", len(vocab), slices.Sorted(maps.Keys(vocab)))
	for dir, files := range llmFiles(t) {
		if dir != filepath.Join("llm", "sim") && !strings.HasPrefix(dir, filepath.Join("llm", "sim")+string(filepath.Separator)) {
			continue // the simulator's core and its test kit
		}
		for _, f := range files {
			for _, s := range stringLiterals(t, f) {
				for _, w := range slices.Sorted(maps.Keys(vocab)) {
					if strings.Contains(s, w) {
						t.Errorf("llm/%s names %s, %s's prompt or answer vocabulary, in %q: the protocol reads and writes it (its sim.go, a Behaviour's Markers or First fields); the core takes typed inputs", f, w, vocab[w], s)
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

// protocolVocabulary is what only the registered protocols' prompts and
// answers say (protocols.All(), teamwork included), each word with the
// protocols that say it, taken from the protocols themselves: the prompt
// lines their simulated behaviours declare (Sim.Markers, Sim.First), the
// labelled lines and JSON keys of their templates (prompts/*.tmpl of the
// protocol's package), and the JSON keys and labels of their kinds'
// answers in the FORMATS.md beside them (the package's own, else its
// parent's: the table rows of the kinds its Sim answers) — as `LABEL:`
// and `"key"` — less the shared first answer's own words (firstanswer's
// prompts and schema, which the core answers) and kit's POSITION lines.
func protocolVocabulary(t *testing.T) map[string]string {
	t.Helper()
	words := map[string]map[string]bool{}
	add := func(w, p string) {
		if words[w] == nil {
			words[w] = map[string]bool{}
		}
		words[w][p] = true
	}
	for _, p := range protocols.All() {
		dir := protocolDir(t, p.Parse)
		if p.Sim != nil {
			for _, m := range p.Sim.Markers {
				add(strings.TrimSpace(m.Prefix), p.Name)
			}
			for _, f := range p.Sim.First {
				add(`"`+f.Name+`"`, p.Name)
				add(f.Label+":", p.Name)
			}
		}
		tmpls, _ := filepath.Glob(filepath.Join(dir, "prompts", "*.tmpl"))
		if len(tmpls) == 0 {
			t.Fatalf("%s: no prompt templates in %s/prompts (moved?)", p.Name, dir)
		}
		for _, f := range tmpls {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range templateWords(string(b)) {
				add(w, p.Name)
			}
		}
		if p.Sim != nil {
			for _, w := range formatsWords(t, dir, p.Name, p.Sim.Kinds) {
				add(w, p.Name)
			}
		}
	}
	out := map[string]string{}
	shared := sharedWords(t)
	for w, ps := range words {
		if !shared[w] {
			out[w] = strings.Join(slices.Sorted(maps.Keys(ps)), ", ")
		}
	}
	if len(out) < 50 {
		t.Fatalf("the protocols' vocabulary has %d words: templates or FORMATS.md moved?", len(out))
	}
	return out
}

var (
	labelRE = regexp.MustCompile(`\b([A-Z][A-Z ]*[A-Z]):`)
	keyRE   = regexp.MustCompile(`"([a-z_]+)":`)
)

// templateWords are the labelled lines (a line that starts with `LABEL:`)
// and the JSON keys (`"key":`) of a template file.
func templateWords(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if m := labelRE.FindString(line); m != "" && strings.HasPrefix(line, m) {
			out = append(out, m)
		}
		for _, m := range keyRE.FindAllStringSubmatch(line, -1) {
			out = append(out, `"`+m[1]+`"`)
		}
	}
	return out
}

// formatsWords are the JSON keys and the labels of the answers of kinds in
// the FORMATS.md table of dir (else of its parent): the rows whose first
// cell names one of them.
func formatsWords(t *testing.T, dir, name string, kinds map[string]uint64) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "FORMATS.md"))
	if err != nil {
		b, err = os.ReadFile(filepath.Join(dir, "..", "FORMATS.md"))
	}
	if err != nil {
		t.Fatalf("%s: no FORMATS.md in %s or its parent: %v", name, dir, err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			continue
		}
		ours := false
		for _, k := range strings.Split(cells[1], ",") {
			_, ok := kinds[strings.Trim(strings.TrimSpace(k), "`")]
			ours = ours || ok
		}
		if !ours {
			continue
		}
		for _, m := range keyRE.FindAllStringSubmatch(line, -1) {
			out = append(out, `"`+m[1]+`"`)
		}
		out = append(out, labelRE.FindAllString(cells[len(cells)-2], -1)...)
	}
	return out
}

// protocolDir is the directory (relative to llm/) of the package that
// defines fn, a protocol's Parse.
func protocolDir(t *testing.T, fn any) string {
	t.Helper()
	name := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	pkg := name[:strings.LastIndex(name, "/")+1] + strings.SplitN(name[strings.LastIndex(name, "/")+1:], ".", 2)[0]
	rel, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		t.Fatalf("Parse %s is not the module's", name)
	}
	return filepath.Join("..", filepath.FromSlash(rel))
}

// sharedWords are the shared first answer's own words, which the core
// answers (firstanswer's prompts and schema), and kit's POSITION lines.
func sharedWords(t *testing.T) map[string]bool {
	t.Helper()
	shared := map[string]bool{"POSITION": true}
	for _, structured := range []bool{false, true} {
		system, user, schema, err := firstanswer.Prompt("QUESTION", structured, firstanswer.Extra{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range templateWords(system + "\n" + user) {
			shared[w] = true
		}
		for _, m := range labelRE.FindAllString(system+"\n"+user, -1) {
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
	return shared
}

package teamwork

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/template"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/protocols/firstanswer"
	"github.com/medteam-bench/medteam/protocols/kit"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts is parsed once; templates are immutable after parsing and safe for
// concurrent execution.
var prompts = template.Must(template.New("medteam").Option("missingkey=error").ParseFS(promptFS, "prompts/*.tmpl"))

// PromptSetHash identifies the prompt set (sha256 over the template files in
// name order, then the hash of the shared first answer's prompts, which the
// initial prediction renders); it goes into the run manifest so results
// name their prompts.
func PromptSetHash() string {
	h := sha256.New()
	names, _ := fs.Glob(promptFS, "prompts/*.tmpl")
	sort.Strings(names)
	for _, n := range names {
		b, _ := promptFS.ReadFile(n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	h.Write([]byte(firstanswer.Prompts.Hash()))
	return hex.EncodeToString(h.Sum(nil))
}

// promptData is everything a template may show. Fields a configuration does
// not switch on stay empty, so the template omits their block.
type promptData struct {
	Question string // the question block (kit.QuestionBlock), rendered once per question
	JSON     bool
	N        int
	AgentNum int    // 1-based
	Role     string // shown only with team orientation
	Focus    string

	Analysis  string
	Facts     []string
	Debated   []string
	Report    string
	Trust     []string
	Positions string // "POSITION …" lines
	Experts   string // what the leader sees of each expert (FORMATS.md)
	History   string // one statement per line

	Turn, Turns int
	Final       bool
	AskFacts    bool
	AskReport   bool
	AskQuality  bool
	ShowLeaning bool // the mediation's leaning is shown to the agents

	// SharedLayout renders the call shared-prefix-first (Config.SharedLayout),
	// with System, the caller's system text, after the shared block.
	SharedLayout bool
	System       string

	Tied     string
	Target   int
	Concern  string
	Response string
}

// Stable is d with only what every call after the initial prediction shows
// alike (the analysis, the facts, the report): the shared block's fields.
func (d *promptData) Stable() *promptData {
	v := *d
	v.Role, v.Focus, v.Debated, v.Trust = "", "", nil, nil
	return &v
}

// Varying is d without the shared block's fields: the caller's role, the
// debated points and trust, which change from call to call.
func (d *promptData) Varying() *promptData {
	v := *d
	v.Analysis, v.Facts, v.Report = "", nil, ""
	return &v
}

func render(name string, d *promptData) (string, error) {
	var sb strings.Builder
	sb.Grow(len(d.Question) + len(d.History) + 2048)
	if err := prompts.ExecuteTemplate(&sb, name, d); err != nil {
		return "", fmt.Errorf("rendering prompt %q: %w", name, err)
	}
	return sb.String(), nil
}

// Output schemas per kind (JSON Schema, strict objects).
var schemas = map[string]*llm.Schema{}

func init() {
	P, S, N, I, B := kit.P, kit.String, kit.Number, kit.Integer, kit.Boolean
	strs := kit.Strings
	// Reasoning first (DESIGN §5 "Fidelity"): properties go out in this order.
	// The initial prediction is the shared first answer (first.go), whose
	// schema is firstanswer's.
	answer := kit.Object{P("reasoning", S), P("ranking", strs), P("confidence", N)}
	defs := map[string]kit.Object{
		KindAssess:         {P("analysis", S), P("agents", I)},
		KindRecruit:        {P("roles", kit.ArrayOf(kit.Object{P("name", S), P("focus", S)}))},
		KindSynthesize:     {P("facts", strs), P("report", S), P("quality", kit.ArrayOf(kit.Object{P("agent", I), P("score", N)}))},
		KindDiscuss:        answer,
		KindFinal:          answer,
		KindMediate:        {P("summary", S), P("leaning", S)},
		KindMonitorSelect:  {P("concern", S), P("agent", I)},
		KindMonitorRespond: {P("response", S), P("accepts", B), P("ranking", strs), P("confidence", N)},
		KindMonitorRate:    {P("debated_point", S), P("quality", N)},
		KindTieBreak:       {P("reasoning", S), P("answer", S)},
	}
	for k, v := range defs {
		schemas[k] = kit.Schema(string(k), v...)
	}
}

package teamwork

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/template"

	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/qa"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

// prompts is parsed once; templates are immutable after parsing and safe for
// concurrent execution.
var prompts = template.Must(template.New("medteam").Option("missingkey=error").ParseFS(promptFS, "prompts/*.tmpl"))

// PromptSetHash identifies the prompt set (sha256 over the template files in
// name order); it goes into the run manifest so results name their prompts.
func PromptSetHash() string {
	h := sha256.New()
	names, _ := fs.Glob(promptFS, "prompts/*.tmpl")
	sort.Strings(names)
	for _, n := range names {
		b, _ := promptFS.ReadFile(n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// promptData is everything a template may show. Fields a configuration does
// not switch on stay empty, so the template omits their block.
type promptData struct {
	Item     qa.Item
	Question string // the question block, rendered once per question
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

	Tied     string
	Target   int
	Concern  string
	Response string
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
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "number"}
	strs := map[string]any{"type": "array", "items": str}
	obj := func(props map[string]any) map[string]any {
		req := make([]string, 0, len(props))
		for k := range props {
			req = append(req, k)
		}
		sort.Strings(req)
		return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
	}
	answer := obj(map[string]any{"reasoning": str, "ranking": strs, "confidence": num, "facts": strs})
	defs := map[string]map[string]any{
		KindAssess:         obj(map[string]any{"agents": map[string]any{"type": "integer"}, "analysis": str}),
		KindRecruit:        obj(map[string]any{"roles": map[string]any{"type": "array", "items": obj(map[string]any{"name": str, "focus": str})}}),
		KindPredict:        answer,
		KindSynthesize:     obj(map[string]any{"facts": strs, "report": str, "quality": map[string]any{"type": "array", "items": obj(map[string]any{"agent": map[string]any{"type": "integer"}, "score": num})}}),
		KindDiscuss:        answer,
		KindFinal:          answer,
		KindMediate:        obj(map[string]any{"summary": str, "leaning": str}),
		KindMonitorSelect:  obj(map[string]any{"agent": map[string]any{"type": "integer"}, "concern": str}),
		KindMonitorRespond: obj(map[string]any{"response": str, "accepts": map[string]any{"type": "boolean"}, "ranking": strs, "confidence": num}),
		KindMonitorRate:    obj(map[string]any{"quality": num, "debated_point": str}),
		KindTieBreak:       obj(map[string]any{"answer": str, "reasoning": str}),
	}
	for k, v := range defs {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		schemas[k] = &llm.Schema{Name: "medteam_" + string(k), Schema: b}
	}
}

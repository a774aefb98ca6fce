package kit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/medteam-bench/medteam/answer"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/qa"
)

// QuestionBlock renders the question as every prompt shows it: the stem, the
// context passages, the options (the same block as teamwork's).
func QuestionBlock(it qa.Item) string {
	var sb strings.Builder
	sb.WriteString("QUESTION:\n")
	sb.WriteString(it.Stem)
	sb.WriteString("\n")
	if len(it.Context) > 0 {
		sb.WriteString("\nCONTEXT:\n")
		for _, c := range it.Context {
			sb.WriteString(c)
			sb.WriteString("\n")
		}
	}
	sb.WriteString("\nOPTIONS:\n")
	for _, o := range it.Options {
		sb.WriteString(o.Letter)
		sb.WriteString(") ")
		sb.WriteString(o.Text)
		sb.WriteString("\n")
	}
	return sb.String()
}

// PositionLine renders an answer in the grammar of teamwork/FORMATS.md:
// "POSITION who: B > A > C > D (confidence 0.70)", or
// "POSITION who: (no readable answer)".
func PositionLine(who string, a answer.Answer) string {
	if len(a.Ranking) == 0 {
		return "POSITION " + who + ": (no readable answer)\n"
	}
	s := "POSITION " + who + ": " + strings.Join(a.Ranking, " > ")
	if a.Confidence >= 0 {
		s += " (confidence " + strconv.FormatFloat(a.Confidence, 'f', 2, 64) + ")"
	}
	return s + "\n"
}

// ReasoningLine renders "REASONING who: …" — the reasoning as Bound shows
// it with peerChars — or "" when there is no reasoning.
func ReasoningLine(who string, a answer.Answer, peerChars int) string {
	r := Bound(a.Reasoning, peerChars)
	if len(a.Ranking) == 0 || r == "" {
		return ""
	}
	return "REASONING " + who + ": " + r + "\n"
}

// Bound is how a prompt shows a piece of another agent's text: white space
// joined (so it stays on its line of the prompt's grammar) and, when
// peerChars > 0, cut to at most peerChars bytes with "…" marking the cut
// (Truncate). peerChars is protocol.Settings.PeerChars (--peer-chars, the
// one documented bound on such text); 0 shows the full text — reasoning
// itself is bounded by --max-tokens only.
func Bound(s string, peerChars int) string {
	if peerChars <= 0 {
		return strings.Join(strings.Fields(s), " ")
	}
	return Truncate(s, peerChars)
}

// Truncate joins white space and cuts s to at most n bytes (never inside a
// UTF-8 sequence), marking a cut with "…".
func Truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Prompts is an embedded prompt set: text/template files parsed once (safe
// for concurrent use) and the hash that names them.
type Prompts struct {
	t    *template.Template
	hash string
}

// MustPrompts parses the templates of fsys matching pattern; it panics on a
// template error (a build-time mistake).
func MustPrompts(fsys fs.FS, pattern string) *Prompts {
	t := template.Must(template.New("").Option("missingkey=error").ParseFS(fsys, pattern))
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		panic(err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(b))
		h.Write(b)
	}
	return &Prompts{t: t, hash: hex.EncodeToString(h.Sum(nil))}
}

// Render executes template name with data.
func (p *Prompts) Render(name string, data any) (string, error) {
	var sb strings.Builder
	if err := p.t.ExecuteTemplate(&sb, name, data); err != nil {
		return "", fmt.Errorf("rendering prompt %q: %w", name, err)
	}
	return sb.String(), nil
}

// Hash names the prompt set (sha256 over the files in name order).
func (p *Prompts) Hash() string { return p.hash }

// HashOf combines the hashes of the prompt sets a protocol renders from.
func HashOf(sets ...*Prompts) func() string {
	return func() string {
		h := sha256.New()
		for _, s := range sets {
			h.Write([]byte(s.hash))
		}
		return hex.EncodeToString(h.Sum(nil))
	}
}

// PromptHash names a prompt: the system and user messages and the answer
// schema (name and body), not the sampling temperature or seed — so a
// greedy cot request and sc's sampled ones share it. 16 hex digits.
func PromptHash(system, user string, schema *llm.Schema) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s%d\x00%s", len(system), system, len(user), user)
	if schema != nil {
		fmt.Fprintf(h, "%d\x00%s%d\x00%s", len(schema.Name), schema.Name, len(schema.Schema), schema.Schema)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

package cli

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestCommandsDocumented: every command registered on the root has a section
// in docs/commands.md — a "## " heading naming `medteam NAME` (or
// `medteam NAME SUB`) — and every
// subcommand (`medteam slurm merge`, `medteam datasets show`, …) is named in
// its command's section.
func TestCommandsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := docSections(string(b))
	for _, c := range newRoot(nil, io.Discard, io.Discard).Commands() {
		name := "medteam " + c.Name()
		body, ok := "", false
		for heading, text := range sections {
			if strings.Contains(heading, "`"+name+"`") || strings.Contains(heading, "`"+name+" ") {
				body, ok = text, true
			}
		}
		if !ok {
			t.Errorf("docs/commands.md: no section for %s: add a heading \"## `%s`\" with an example", name, name)
			continue
		}
		for _, sub := range c.Commands() {
			if full := name + " " + sub.Name(); !strings.Contains(body, full) {
				t.Errorf("docs/commands.md: section `%s` never names %s: add an example", name, full)
			}
		}
	}
}

// docSections splits Markdown at its "## " headings (outside code blocks):
// heading line → the text up to the next one.
func docSections(md string) map[string]string {
	out := map[string]string{}
	heading, fenced := "", false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "## ") {
			heading = line
		}
		out[heading] += line + "\n"
	}
	return out
}

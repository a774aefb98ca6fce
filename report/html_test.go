package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteHTML: the page of a report holds every plot the data supports
// (each with content), the sections of report.md, no Markdown bold, no
// Markdown escape (report.md's "first\_prompt" reads "first_prompt") and no
// external reference.
func TestWriteHTML(t *testing.T) {
	rows := synthRows(presetArms(), 120, 1, 7, "sim/default")
	for i := range rows {
		rows[i].Subject = []string{"step1", "step2&3"}[i%2]
		rows[i].FirstPrompt = "p1"
		if rows[i].Arm == "full" {
			rows[i].FirstPrompt = "p2" // a note names the column first_prompt
		}
	}
	r, err := Build(rows, Options{Seed: 1, Reps: 200})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, kind := range []string{"forest", "frontier", "reliability", "risk-coverage", "agreement", "subjects"} {
		if !strings.Contains(s, `<figure data-plot="`+kind+`">`) {
			t.Errorf("no non-empty %s figure", kind)
		}
	}
	for _, sec := range Sections(r) {
		if !strings.Contains(s, ">"+htmlEscape(sec.Heading)+"<") {
			t.Errorf("section %q missing", sec.Heading)
		}
	}
	if !strings.Contains(s, "(column first_prompt)") {
		t.Error("the note on first prompts is missing or escaped")
	}
	for _, bad := range []string{"**", "<script", "http://", "https://", "src=\"http", `\_`, `\*`, `\|`, "&amp;lt;", "&amp;amp;"} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

package main

import (
	"context"
	"strings"

	"github.com/medteam-bench/medteam/llm"
)

// filler is neutral clinical prose: no option letter, no marker line, no
// word the simulator or a parser reads, so a padded reply is read as the
// reply it pads.
const filler = "considering the presentation step by step the history and the examination findings are weighed together " +
	"with the most likely mechanism and the usual course of such cases while each alternative is checked against the " +
	"details that would support or weaken it before settling on the reading that fits best overall "

// padder lengthens each reply's first prose field by about words words of
// filler, so that later prompts carry replies of a realistic length.
type padder struct {
	next  llm.Client
	words int
}

func (p padder) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := p.next.Chat(ctx, req)
	if err != nil || p.words <= 0 {
		return resp, err
	}
	resp.Text = padText(req.Meta.Kind, resp.Text, fillerWords(p.words))
	return resp, nil
}

// fillerWords is n words of filler.
func fillerWords(n int) string {
	w := strings.Fields(filler)
	var sb strings.Builder
	for i := range n {
		sb.WriteString(w[i%len(w)])
		sb.WriteByte(' ')
	}
	return sb.String()
}

// proseKeys are the reply fields padding goes into (JSON keys, or labelled
// lines in upper case), the first of them a reply has being padded: where a
// model reasons at length. Teamwork's assessment (one or two sentences by
// its prompt) and the short fields (a concern, a debated point, a label) are
// left as they are.
var proseKeys = []string{"reasoning", "total_analysis", "strengths", "analysis", "summary", "report", "response", "investigation", "revisions"}

// padText puts pad at the start of text's first prose field; a reply
// without one is returned as it is.
func padText(kind, text, pad string) string {
	if kind == "assess" {
		return text
	}
	for _, k := range proseKeys {
		for _, pat := range []string{`"` + k + `":"`, `"` + k + `": "`, strings.ToUpper(k) + ": "} {
			if i := strings.Index(text, pat); i >= 0 {
				i += len(pat)
				return text[:i] + pad + text[i:]
			}
		}
	}
	return text
}

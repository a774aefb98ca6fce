package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/medteam-bench/medteam/llm"
)

// KindRow is what one call kind of an arm sends and what each rule caches of
// it: its calls, their prompt tokens (sum, smallest, largest), the tokens
// they share with an earlier prompt (sum) and the cached tokens under each
// rule (sums).
type KindRow struct {
	Kind                   string
	Calls                  int
	Prompt, MinTok, MaxTok int
	Shared, OpenAI, VLLM   int
	first                  int // the order the kind was first sent in
}

// ByKind tallies reqs (in the order sent) per call kind, in the order each
// kind was first sent.
func ByKind(reqs []llm.Request) []KindRow {
	rows := map[string]*KindRow{}
	for i, c := range costs(messages(reqs)) {
		k := reqs[i].Meta.Kind
		r, ok := rows[k]
		if !ok {
			r = &KindRow{Kind: k, MinTok: c.tokens, first: i}
			rows[k] = r
		}
		t := c.tally()
		r.Calls++
		r.Prompt, r.Shared, r.OpenAI, r.VLLM = r.Prompt+c.tokens, r.Shared+c.shared, r.OpenAI+t.OpenAI, r.VLLM+t.VLLM
		r.MinTok, r.MaxTok = min(r.MinTok, c.tokens), max(r.MaxTok, c.tokens)
	}
	out := make([]KindRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].first < out[j].first })
	return out
}

// writeKinds prints an arm's kinds over n questions: calls per question,
// the mean prompt tokens per call (smallest–largest), the mean tokens a call
// shares with an earlier prompt, and the share of the kind's prompt tokens
// each rule caches.
func writeKinds(w io.Writer, spec string, rows []KindRow, n int) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "%s kind\tcalls/q\tprompt tokens/call (min–max)\tshared with an earlier prompt/call\tOpenAI rule cached\tvLLM rule cached\n", spec)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\t%.2f\t%d (%d–%d)\t%d\t%s\t%s\n", r.Kind, float64(r.Calls)/float64(n), r.Prompt/r.Calls, r.MinTok, r.MaxTok,
			r.Shared/r.Calls, pct(r.OpenAI, r.Prompt), pct(r.VLLM, r.Prompt))
	}
	return tw.Flush()
}

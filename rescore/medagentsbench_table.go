package rescore

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// mabMethodOrder is the order of MedAgentsBench's Table 1; other methods
// follow by name.
var mabMethodOrder = []string{"zero_shot", "few_shot", "cot", "cot_sc-5", "multipersona-2", "self_refine-3",
	"medprompt-3", "medagents", "mdagents", "spo", "aflow"}

func methodRank(m string) int {
	if i := slices.Index(mabMethodOrder, m); i >= 0 {
		return i
	}
	return len(mabMethodOrder)
}

// SortMAB orders summaries by task, method (Table 1's order) and model.
func SortMAB(sums []MABSummary) {
	slices.SortStableFunc(sums, func(a, b MABSummary) int {
		if c := strings.Compare(a.Task, b.Task); c != 0 {
			return c
		}
		if ra, rb := methodRank(a.Method), methodRank(b.Method); ra != rb {
			return ra - rb
		}
		if c := strings.Compare(a.Method, b.Method); c != 0 {
			return c
		}
		return strings.Compare(a.Model, b.Model)
	})
}

// WriteMABTable writes one line per file: the publishers' accuracy
// (predicted_answer == answer_idx over the records kept after dropping
// repeated realidx), what was dropped, the records without a usable
// prediction, and the means of tokens and time per question. Task, model
// and method, from the files, go through cell.
func WriteMABTable(w io.Writer, sums []MABSummary, cell Cell) {
	fmt.Fprintln(w, "| task | model | method (arm) | questions | repeated realidx dropped | correct | accuracy | no prediction | not an option letter | prompt tok/q | completion tok/q | own cost | time/q (s) |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range sums {
		n := float64(max(s.N, 1))
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %.1f%% | %d | %d | %.0f | %.0f | %d | %.1f |\n", cell(s.Task), cell(s.Model), cell(s.Method), s.N, s.Dropped,
			s.Correct, pct(s.Correct, s.N), s.NoPrediction, s.NotALetter, float64(s.PromptTokens)/n, float64(s.CompletionTokens)/n, s.Costed, s.Seconds/n)
	}
}

// WriteMABMatrix writes each task's accuracies as MedAgentsBench's Table 1
// lays them out: a row per method, a column per model (% to one decimal).
// Task, model and method names go through cell.
func WriteMABMatrix(w io.Writer, sums []MABSummary, cell Cell) {
	var tasks []string
	for _, s := range sums {
		if !slices.Contains(tasks, s.Task) {
			tasks = append(tasks, s.Task)
		}
	}
	for _, t := range tasks {
		var models, methods []string
		byCell := map[[2]string]MABSummary{}
		for _, s := range sums {
			if s.Task != t {
				continue
			}
			if !slices.Contains(models, s.Model) {
				models = append(models, s.Model)
			}
			if !slices.Contains(methods, s.Method) {
				methods = append(methods, s.Method)
			}
			byCell[[2]string{s.Method, s.Model}] = s
		}
		slices.Sort(models)
		heads := make([]string, len(models))
		for i, m := range models {
			heads[i] = cell(m)
		}
		fmt.Fprintf(w, "\n%s (accuracy %%, the publishers' rules):\n\n| method | %s |\n|---|%s\n", cell(t), strings.Join(heads, " | "), strings.Repeat("---:|", len(models)))
		for _, m := range methods {
			fmt.Fprintf(w, "| %s |", cell(m))
			for _, mo := range models {
				if s, ok := byCell[[2]string{m, mo}]; ok {
					fmt.Fprintf(w, " %.1f |", pct(s.Correct, s.N))
				} else {
					fmt.Fprint(w, " — |")
				}
			}
			fmt.Fprintln(w)
		}
	}
}

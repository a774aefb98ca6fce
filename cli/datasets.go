package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/escape"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/qa"
)

type datasetFlags struct {
	format, mapping, dataDir, split string
	skipInvalid                     bool
	maxItemBytes                    int
}

func (d *datasetFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&d.format, "format", "", "format instead of detection from content")
	cmd.Flags().StringVar(&d.mapping, "map", "", "field mapping for generic files, e.g. question=stem,answer=label,options=choices")
	cmd.Flags().StringVar(&d.dataDir, "data-dir", "", dataDirUsage)
	cmd.Flags().StringVar(&d.split, "split", "", "the split to read (test, dev, train, validation; '*' = all); a folder holding several splits needs it")
	cmd.Flags().IntVar(&d.maxItemBytes, "max-item-bytes", datasets.DefaultMaxItemBytes, "cap in bytes on one item's text (stem, context, options); a longer item is a problem at its file:line")
}

func (d *datasetFlags) source(spec string) (datasets.Source, error) {
	if d.maxItemBytes < 0 {
		return datasets.Source{}, usagef("--max-item-bytes %d: give a cap in bytes ≥ 1", d.maxItemBytes)
	}
	src, err := plan.Source(spec, d.format, d.mapping, d.dataDir)
	src.MaxItemBytes = d.maxItemBytes
	if err == nil && d.split != "" {
		src.Split = d.split
	}
	return src, err
}

func newDatasetsCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{Use: "datasets", Short: "List, get, show, validate and convert datasets"}
	root.AddCommand(newDatasetsListCmd(), NewCmdDatasetsGet(f, nil), newDatasetsShowCmd(), newDatasetsValidateCmd(), newDatasetsConvertCmd())
	return root
}

func newDatasetsShowCmd() *cobra.Command {
	var show datasetFlags
	var n int
	showCmd := &cobra.Command{
		Use: "show DATASET", Short: "Show the first items of a dataset as the protocol sees them (plus the gold)", Args: cobra.ExactArgs(1),
		Example: "  medteam datasets show ../shared/datasets/pubmedqa/ori_pqal.json -n 2",
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := show.source(args[0])
			if err != nil {
				return err
			}
			res, err := datasets.Load(src, datasets.LoadOptions{SkipInvalid: true})
			if err != nil {
				return err
			}
			for i, q := range res.Questions {
				if i >= n {
					break
				}
				writeQuestion(cmd.OutOrStdout(), q)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n", res.Summary())
			return nil
		},
	}
	show.register(showCmd)
	showCmd.Flags().IntVarP(&n, "n", "n", 3, "items to show")
	return showCmd
}

func newDatasetsValidateCmd() *cobra.Command {
	var val datasetFlags
	validate := &cobra.Command{
		Use: "validate DATASET", Short: "Validate a dataset; exit code 1 with a report of every problem (file:line, field)", Args: cobra.ExactArgs(1),
		Example: "  medteam datasets validate ../shared/datasets/medmcqa/test.jsonl",
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := val.source(args[0])
			if err != nil {
				return err
			}
			st, err := datasets.Check(src, datasets.LoadOptions{SkipInvalid: true, MaxProblems: -1})
			var inv *datasets.InvalidError
			if err != nil && !errors.As(err, &inv) {
				return err // not read at all (missing, unrecognised)
			}
			fmt.Fprint(cmd.OutOrStdout(), st.Summary()) // lists every problem, once
			if inv != nil {
				return fmt.Errorf("%s cannot be read to its end (the last problem above); %d problem(s) found", args[0], st.TotalProblems)
			}
			if st.TotalProblems > 0 {
				return fmt.Errorf("%s: %d problem(s)", args[0], st.TotalProblems)
			}
			return nil
		},
	}
	val.register(validate)
	return validate
}

func newDatasetsConvertCmd() *cobra.Command {
	var conv datasetFlags
	convert := &cobra.Command{
		Use: "convert DATASET OUT.{jsonl,parquet}", Short: "Convert any supported dataset to canonical JSONL or parquet", Args: cobra.ExactArgs(2),
		Example: "  medteam datasets convert ../shared/datasets/mmlu_medical mmlu_medical.parquet",
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := conv.source(args[0])
			if err != nil {
				return err
			}
			st, err := datasets.Convert(src, args[1], datasets.LoadOptions{SkipInvalid: conv.skipInvalid})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s\n", args[1], st.Summary())
			return nil
		},
	}
	conv.register(convert)
	convert.Flags().BoolVar(&conv.skipInvalid, "skip-invalid", false, "convert the valid items and skip the rest")
	return convert
}

// writeQuestion prints q for a terminal: every field is the dataset's
// text, so control characters (escape sequences, carriage returns) are
// spelled out (escape.Terminal); the stem keeps its line breaks.
func writeQuestion(w io.Writer, q qa.Question) {
	t := escape.Terminal
	fmt.Fprintf(w, "── %s (%s/%s)\n%s\n", t(q.ID), t(q.Dataset), t(q.Split), escape.TerminalBlock(q.Stem))
	for _, c := range q.Context {
		fmt.Fprintf(w, "  context: %s\n", t(truncateText(c, 200)))
	}
	for _, o := range q.Options {
		fmt.Fprintf(w, "  %s) %s\n", t(o.Letter), t(o.Text))
	}
	var meta []string
	for k, v := range q.Meta {
		meta = append(meta, t(k)+"="+t(v))
	}
	sort.Strings(meta)
	if g := q.TriageGold; g != nil {
		fmt.Fprintf(w, "  gold diagnosis: %q   gold specialty: %q\n", g.Diagnosis, g.Specialty)
	}
	fmt.Fprintf(w, "  gold: %s   %s\n\n", t(q.Gold), strings.Join(meta, " "))
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

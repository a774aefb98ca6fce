package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/llm"
	"github.com/medteam-bench/medteam/llm/batch"
	"github.com/medteam-bench/medteam/plan"
	"github.com/medteam-bench/medteam/runner/batchmode"
)

// BatchesOptions are the settings of 'medteam batches list|cancel'.
type BatchesOptions struct {
	Action      string // "list" or "cancel"
	Dir         string // the run directory
	BaseURL     string // overrides the recorded endpoint
	APIKey      string
	MaxResponse int64
}

// NewCmdBatches builds 'medteam batches'; runF as for NewCmdRun.
func NewCmdBatches(f *Factory, runF func(context.Context, *BatchesOptions) error) *cobra.Command {
	opts := &BatchesOptions{}
	cmd := &cobra.Command{
		Use:   "batches list|cancel RUN",
		Short: "The provider batches a --batch run submitted: their state, or cancel those in flight",
		Long: `A run with --batch journals every batch it submits (batch id, input file, the requests'
custom ids) before polling it. 'batches list RUN' asks the provider for the state of each
(validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled) and its
request counts. 'batches cancel RUN' cancels those not finished: the provider stops them and
keeps the answers produced so far; rerunning the run reads those and resubmits the rest.

The endpoint is the run's recorded --base-url (or $OPENAI_BASE_URL, or OpenAI's API); the key
comes from --api-key or $OPENAI_API_KEY.`,
		Example: `  medteam batches list results/run-3f2a9c1b0d4e
  medteam batches cancel results/run-3f2a9c1b0d4e`,
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"list", "cancel"},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Action, opts.Dir = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runBatches(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.BaseURL, "base-url", "", "OpenAI-compatible base URL (default: the run's, else $OPENAI_BASE_URL or the OpenAI API)")
	fl.StringVar(&opts.APIKey, "api-key", "", "API key (default $OPENAI_API_KEY); never written anywhere")
	fl.Int64Var(&opts.MaxResponse, "max-response-bytes", llm.DefaultMaxResponseBytes, "cap in bytes on one response body")
	return cmd
}

func runBatches(ctx context.Context, f *Factory, o *BatchesOptions) error {
	if o.Action != "list" && o.Action != "cancel" {
		return usagef("batches %q: give list or cancel, then the run directory", o.Action)
	}
	spec, err := plan.Recorded(o.Dir)
	if err != nil {
		return err
	}
	j, err := journal.OpenExisting(o.Dir)
	if err != nil {
		return err
	}
	bs, err := j.Batches()
	if err != nil {
		j.Close()
		return err
	}
	pending := 0
	err = j.LoadPending(func(string, string, []string) { pending++ })
	_, planHash, herr := j.PlanBody()
	j.Close()
	if err = errors.Join(err, herr); err != nil {
		return err
	}
	if len(bs) == 0 && pending == 0 {
		fmt.Fprintf(f.Out, "%s: no batches journaled (the run did not use --batch)\n", o.Dir)
		return nil
	}
	prov, err := batcher(firstNonEmpty(o.BaseURL, spec.BaseURL), o.APIKey, o.MaxResponse, llm.DefaultPerCallTimeout)
	if err != nil {
		return err
	}
	unjournaled, err := unjournaledBatches(ctx, prov, bs, batchmode.TagPrefix(planHash))
	if err != nil {
		return err
	}
	return listBatches(ctx, f.Out, prov, bs, unjournaled, o.Action == "cancel")
}

// unjournaledBatches are the batches the provider has with the run's tag
// prefix in their metadata that the journal lacks: created by a run killed
// before it journaled them (its rerun adopts them).
func unjournaledBatches(ctx context.Context, prov batch.Provider, bs []journal.Batch, prefix string) ([]batch.Status, error) {
	known := map[string]bool{}
	for _, b := range bs {
		known[b.ID] = true
	}
	list, err := prov.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the provider's batches (for those of the run the journal lacks): %w", err)
	}
	var out []batch.Status
	for _, st := range list {
		if strings.HasPrefix(st.Metadata[batch.MetaTag], prefix) && !known[st.ID] {
			out = append(out, st)
		}
	}
	return out, nil
}

// listBatches prints each journaled batch with its state at the provider,
// cancelling those not finished when cancel is set.
func listBatches(ctx context.Context, w io.Writer, prov batch.Provider, bs []journal.Batch, unjournaled []batch.Status, cancel bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tCREATED\tREQUESTS\tSTATE\tCOMPLETED\tFAILED")
	inFlight, cancelled := 0, 0
	for _, b := range bs {
		st, err := prov.Status(ctx, b.ID)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%d\t? (%v)\t\t\n", b.ID, b.Created.Format("2006-01-02 15:04"), len(b.CustomIDs), err)
			continue
		}
		if !st.State.Terminal() {
			inFlight++
			if cancel {
				if st, err = prov.Cancel(ctx, b.ID); err != nil {
					return fmt.Errorf("cancelling batch %s: %w", b.ID, err)
				}
				cancelled++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\n", b.ID, b.Created.Format("2006-01-02 15:04"), len(b.CustomIDs), st.State, st.Counts.Completed, st.Counts.Failed)
	}
	for _, st := range unjournaled {
		if !st.State.Terminal() {
			inFlight++
			if cancel {
				var err error
				if st, err = prov.Cancel(ctx, st.ID); err != nil {
					return fmt.Errorf("cancelling batch %s: %w", st.ID, err)
				}
				cancelled++
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s, not journaled\t%d\t%d\n", st.ID, st.CreatedAt.Format("2006-01-02 15:04"), st.Counts.Total, st.State, st.Counts.Completed, st.Counts.Failed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d batches journaled, %d in flight", len(bs), inFlight)
	if len(unjournaled) > 0 {
		fmt.Fprintf(w, "; %d more of this run at the provider not journaled (created by a run killed before journaling them: its rerun adopts them)", len(unjournaled))
	}
	if cancel {
		fmt.Fprintf(w, ", %d cancelled (rerun the run to read their answers and resubmit the rest)", cancelled)
	}
	fmt.Fprintln(w)
	return nil
}

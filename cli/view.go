package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/view"
)

// ViewOptions are the settings of 'medteam view'.
type ViewOptions struct {
	Runs   []string
	Addr   string // loopback HOST:PORT; port 0 picks a free one
	Export string // write a static copy here instead of serving
}

// NewCmdView builds 'medteam view'.
func NewCmdView(f *Factory) *cobra.Command {
	opts := &ViewOptions{}
	cmd := &cobra.Command{
		Use:   "view RUN [RUN...]",
		Short: "Read what the agents said: a local, read-only page with the questions × arms grid, each question's calls, votes and aggregation, two arms side by side",
		Long: `Serves a read-only page on loopback (127.0.0.1, a free port, printed) for one or more run
directories: a grid of questions × arms with filters (correct, wrong, abstained, error, arms
disagree, subject, phase); a question's deliberation in order — every call's phase, agent, role,
parse notes, tokens and latency, and its prompt and reply when the run was made with
--transcripts (the page says so when they are absent); the question row's votes and aggregation
(rounds, scores, decision rule, tie, protocol_json); two arms side by side.

--addr sets the address; it must be a loopback one (127.0.0.0/8, [::1], localhost): the
viewer never listens on a network interface. --export DIR writes a static copy instead
(index.html, its assets and the data as script files) that opens from disk.
Stop the server with Ctrl-C.`,
		Example: `  medteam view results/run-3f2a9c1b0d4e
  medteam view results/run-a results/run-b --addr 127.0.0.1:8080
  medteam view results/run-3f2a9c1b0d4e --export /tmp/run-view   # then open /tmp/run-view/index.html`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("view: give at least one run directory, e.g. medteam view results/run-3f2a9c1b0d4e")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Runs = args
			return runView(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to serve on (HOST:PORT; port 0 = a free port)")
	cmd.Flags().StringVar(&opts.Export, "export", "", "write a static copy into this directory (opens from disk) instead of serving")
	return cmd
}

func runView(ctx context.Context, f *Factory, opts *ViewOptions) error {
	if opts.Export == "" {
		if _, err := view.CheckAddr(opts.Addr); err != nil {
			return usageError{err}
		}
	}
	var runs []*view.Run
	for _, p := range opts.Runs {
		r, err := view.OpenRun(p)
		if err != nil {
			return usagef("view: %v", err)
		}
		runs = append(runs, r)
	}
	d := view.NewData(runs)
	if opts.Export != "" {
		n, err := view.Export(d, opts.Export)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.Out, "wrote %s: %d files (%d questions × repeats, %d arms); open %s/index.html\n", opts.Export, n, len(d.Lines), len(d.Arms), opts.Export)
		return nil
	}
	ln, err := view.Listen(opts.Addr)
	if err != nil {
		return usageError{err}
	}
	srv := &http.Server{Handler: view.Handler(d), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(f.Out, "medteam view: %d questions × repeats, %d arms from %d run(s)\nserving http://%s/ (loopback only, read-only; Ctrl-C stops)\n",
		len(d.Lines), len(d.Arms), len(runs), ln.Addr())
	// Index calls.parquet now, while the reader looks at the first page.
	go func() { _, _ = d.Phases() }()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if ctx == nil {
		ctx = context.Background()
	}
	select {
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-f.Stop:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	fmt.Fprintln(f.Out, "medteam view: stopped")
	return nil
}

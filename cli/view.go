package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/medteam-bench/medteam/journal"
	"github.com/medteam-bench/medteam/results"
	"github.com/medteam-bench/medteam/view"
)

// ViewOptions are the settings of 'medteam view'.
type ViewOptions struct {
	Runs   []string
	Addr   string // loopback HOST:PORT; port 0 picks a free one
	Export string // write a static copy here instead of serving
	Force  bool   // --export into a non-empty directory
}

// NewCmdView builds 'medteam view'.
func NewCmdView(f *Factory) *cobra.Command {
	opts := &ViewOptions{}
	cmd := &cobra.Command{
		Use:   "view RUN [RUN...] | view FOLDER",
		Short: "Read what the agents said: a local, read-only page with the questions × arms grid, each question's calls, votes and aggregation, two arms side by side",
		Long: `Serves a read-only page on loopback (127.0.0.1, a free port, printed) for one or more run
directories: a grid of questions × arms with filters (correct, wrong, abstained, error, arms
disagree, subject, phase), each line with the start of its stem and a colour legend; a question's
text — stem, options with the gold marked — and every arm's answer per repeat, right or wrong
(from items.parquet; a run made before medteam kept it says so); its deliberation in order — every call's phase, agent, role,
parse notes, tokens and latency, and its prompt and reply when the run was made with
--transcripts (the page says so when they are absent); the question row's votes and aggregation
(rounds, scores, decision rule, tie, protocol_json); two arms side by side.

--addr sets the address; it must be a loopback one (127.0.0.0/8, [::1], localhost): the
viewer never listens on a network interface. --export DIR writes a static copy instead
(index.html, its assets and the data as script files) that opens from disk; a non-empty
DIR is refused unless --force, and no file is written through a symbolic link (DIR itself,
a folder or a file in it).

Given a FOLDER that holds run directories (e.g. results/), it lists them — name, status,
questions, arms — in the terminal and on the page, each linking to its view.
Stop the server with Ctrl-C.`,
		Example: `  medteam view results/run-3f2a9c1b0d4e
  medteam view results/run-a results/run-b --addr 127.0.0.1:8080
  medteam view results                                            # list the runs in results/
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
	cmd.Flags().BoolVar(&opts.Force, "force", false, "with --export: write into a non-empty directory, replacing the export's files there")
	return cmd
}

func runView(ctx context.Context, f *Factory, opts *ViewOptions) error {
	if opts.Export == "" {
		if _, err := view.CheckAddr(opts.Addr); err != nil {
			return usageError{err}
		}
	}
	if len(opts.Runs) == 1 {
		if entries := folderOfRuns(opts.Runs[0]); entries != nil {
			return viewFolder(ctx, f, opts, entries)
		}
	}
	var runs []*view.Run
	for _, p := range opts.Runs {
		r, err := view.OpenRun(p)
		if err != nil {
			for _, o := range runs {
				_ = o.Close()
			}
			return usagef("view: %v", err)
		}
		runs = append(runs, r)
	}
	d := view.NewData(runs)
	defer d.Close()
	if opts.Export != "" {
		if err := view.CheckExportDir(opts.Export, opts.Force); err != nil {
			return usageError{err}
		}
		n, err := view.Export(d, opts.Export)
		if err != nil {
			return err
		}
		fmt.Fprintf(f.Out, "wrote %s: %d files (%d questions × repeats, %d arms); open %s/index.html\n", opts.Export, n, len(d.Lines), len(d.Arms), opts.Export)
		return nil
	}
	// Index calls.parquet now, while the reader looks at the first page.
	go func() { _, _ = d.Phases() }()
	banner := fmt.Sprintf("medteam view: %d questions × repeats, %d arms from %d run(s)", len(d.Lines), len(d.Arms), len(runs))
	return serveView(ctx, f, opts.Addr, view.Handler(d), banner)
}

// folderOfRuns lists the run directories inside path when path is a
// directory that is not itself a run (no questions.parquet, manifest or
// journal) and holds some; else nil.
func folderOfRuns(path string) []view.Entry {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return nil
	}
	for _, name := range []string{results.QuestionsFile, results.ManifestFile, journal.FileName} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			return nil
		}
	}
	entries, err := view.ListRuns(path)
	if err != nil || len(entries) == 0 {
		return nil
	}
	return entries
}

// viewFolder serves a folder of runs: their list, each linking to its view.
func viewFolder(ctx context.Context, f *Factory, opts *ViewOptions, entries []view.Entry) error {
	if opts.Export != "" {
		return usagef("view --export: %s is a folder of %d runs; give one run directory, e.g. medteam view --export %s %s", opts.Runs[0], len(entries), opts.Export, entries[0].Dir)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "medteam view: %d run(s) in %s\n", len(entries), opts.Runs[0])
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  run\tstatus\tquestions\tarms")
	for _, e := range entries {
		q := "–"
		if e.Questions >= 0 {
			q = strconv.Itoa(e.Questions)
		}
		status := e.Status
		if !e.Viewable {
			status += "; " + e.Note
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", e.Name, status, q, strings.Join(e.Arms, ","))
	}
	tw.Flush()
	c := &view.Catalog{Folder: opts.Runs[0], Entries: entries, Open: view.OpenData}
	return serveView(ctx, f, opts.Addr, c.Handler(), strings.TrimRight(b.String(), "\n"))
}

// serveView serves h on the loopback address addr until Ctrl-C (or ctx
// ends), after printing banner and the address.
func serveView(ctx context.Context, f *Factory, addr string, h http.Handler, banner string) error {
	ln, err := view.Listen(addr)
	if err != nil {
		return usageError{err}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(f.Out, "%s\nserving http://%s/ (loopback only, read-only; Ctrl-C stops)\n", banner, ln.Addr())
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

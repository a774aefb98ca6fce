package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/medteam-bench/medteam/datasets"
	"github.com/medteam-bench/medteam/fetch"
)

// dataDirUsage is the help of every --data-dir flag.
const dataDirUsage = "folder holding registry datasets (default $MEDTEAM_DATA, else the user cache dir's medteam/datasets, where 'datasets get' writes)"

// DatasetsGetOptions are the settings of 'medteam datasets get'.
type DatasetsGetOptions struct {
	Names   []string // registry names
	DataDir string   // --data-dir ("" = $MEDTEAM_DATA, else the user cache dir)
	From    string   // --from: a mirror folder or http(s) base URL
	List    bool     // print the pinned files instead of getting them
	JSON    bool     // --list as JSON
}

// NewCmdDatasetsGet builds 'medteam datasets get'; runF as for NewCmdRun.
func NewCmdDatasetsGet(f *Factory, runF func(context.Context, *DatasetsGetOptions) error) *cobra.Command {
	opts := &DatasetsGetOptions{}
	cmd := &cobra.Command{
		Use:   "get NAME...",
		Short: "Download registry datasets' official files (pinned size and sha256) into the data directory",
		Long: `Downloads each named dataset's files from their pinned public sources into the data
directory (--data-dir, else $MEDTEAM_DATA, else the user cache dir's medteam/datasets), after
which --dataset NAME finds them. Each file is verified (size and sha256) before it is put in
place; a file that does not verify is removed, never used. An interrupted download is kept as
NAME.part and continued by the next run. --from DIR|URL takes the same relative paths from a
mirror instead (an air-gapped lab). --list prints the pinned files (--json as data).`,
		Example: "  medteam datasets get medmcqa pubmedqa\n  medteam datasets get mmlu-medical --from /mnt/mirror/datasets\n  medteam datasets get --list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			if len(args) == 0 && !opts.List {
				return usagef("datasets get: name the datasets to get (%s), or --list", strings.Join(datasets.Names(), ", "))
			}
			if opts.JSON && !opts.List {
				return usagef("--json goes with --list")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runDatasetsGet(cmd.Context(), f, opts, datasets.Registry(), http.DefaultClient)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.DataDir, "data-dir", "", dataDirUsage)
	fl.StringVar(&opts.From, "from", "", "take the files from a mirror: a folder or an http(s) base URL holding the same relative paths")
	fl.BoolVar(&opts.List, "list", false, "print the pinned files (path, size, sha256, URL) instead of getting them")
	fl.BoolVar(&opts.JSON, "json", false, "with --list: as JSON")
	return cmd
}

// runDatasetsGet gets (or lists) the named entries of reg.
func runDatasetsGet(ctx context.Context, f *Factory, o *DatasetsGetOptions, reg []datasets.Entry, client *http.Client) error {
	entries, err := pickEntries(reg, o.Names)
	if err != nil {
		return err
	}
	dir := datasets.DataDir(o.DataDir)
	if o.List {
		return listDownloads(f.Out, dir, entries, o.JSON)
	}
	if dir == "" {
		return usagef("datasets get: no data directory: pass --data-dir or set %s", datasets.DataDirEnv)
	}
	x := &fetch.Fetcher{Dir: dir, Mirror: o.From, Client: client, NewBar: newFetchBar(f.Err)}
	var failed []string
	for _, e := range entries {
		if err := getEntry(ctx, f.Out, x, e); err != nil {
			fmt.Fprintf(f.Err, "%s: %v\n", e.Name, err)
			failed = append(failed, e.Name)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("datasets get: %d of %d dataset(s) not ready under %s: %s (see above)", len(failed), len(entries), dir, strings.Join(failed, ", "))
	}
	return nil
}

// pickEntries returns the entries of reg named (all of them for none).
func pickEntries(reg []datasets.Entry, names []string) ([]datasets.Entry, error) {
	if len(names) == 0 {
		return reg, nil
	}
	var out []datasets.Entry
	for _, n := range names {
		found := false
		for _, e := range reg {
			if strings.EqualFold(e.Name, n) {
				out, found = append(out, e), true
				break
			}
		}
		if !found {
			var all []string
			for _, e := range reg {
				all = append(all, e.Name)
			}
			return nil, usagef("datasets get: %q is not a registry dataset (%s)", n, strings.Join(all, ", "))
		}
	}
	return out, nil
}

// getEntry gets one entry's files, or says why it cannot.
func getEntry(ctx context.Context, w io.Writer, x *fetch.Fetcher, e datasets.Entry) error {
	if e.Embedded {
		fmt.Fprintf(w, "%s: embedded in the binary, nothing to get\n", e.Name)
		return nil
	}
	if len(e.Downloads) == 0 {
		return fmt.Errorf("no pinned public files (no verifiable size and sha256): place them by hand: %s; put them at %s", e.Manual, handPaths(x.Dir, e))
	}
	for _, d := range e.Downloads {
		file := fetch.File(d)
		out, err := x.Get(ctx, file)
		if errors.Is(err, fetch.ErrNoSource) {
			return fmt.Errorf("%w; %s; put it at %s, or pass --from DIR|URL with a mirror holding %s (it is then verified)",
				err, e.Manual, x.Dest(file), d.Path)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %s %s (%d bytes, sha256 verified)\n", e.Name, d.Path, out, d.Size)
	}
	fmt.Fprintf(w, "%s: ready under %s (--dataset %s)\n", e.Name, x.Dir, e.Name)
	return nil
}

// handPaths is where an entry's files go when placed by hand (first layout).
func handPaths(dir string, e datasets.Entry) string {
	var ps []string
	for _, f := range e.Layouts[0].Files {
		ps = append(ps, filepath.Join(dir, filepath.FromSlash(f)))
	}
	return strings.Join(ps, ", ")
}

// downloadList is the JSON of --list --json.
type downloadList struct {
	DataDir  string         `json:"data_dir"`
	Datasets []downloadSpec `json:"datasets"`
}

type downloadSpec struct {
	Name   string       `json:"name"`
	Files  []fetch.File `json:"files"`
	Manual string       `json:"manual,omitempty"`
}

// listDownloads prints the pinned files of entries (embedded ones left out).
func listDownloads(w io.Writer, dir string, entries []datasets.Entry, asJSON bool) error {
	l := downloadList{DataDir: dir, Datasets: []downloadSpec{}}
	for _, e := range entries {
		if e.Embedded {
			continue
		}
		s := downloadSpec{Name: e.Name, Files: []fetch.File{}, Manual: e.Manual}
		for _, d := range e.Downloads {
			s.Files = append(s.Files, fetch.File(d))
		}
		l.Datasets = append(l.Datasets, s)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(l)
	}
	fmt.Fprintf(w, "data directory: %s\n", dir)
	for _, s := range l.Datasets {
		fmt.Fprintf(w, "\n%s\n", s.Name)
		for _, f := range s.Files {
			fmt.Fprintf(w, "  %s  %d bytes\n    sha256 %s\n", f.Path, f.Size, f.SHA256)
			if f.URL != "" {
				fmt.Fprintf(w, "    url    %s\n", f.URL)
			}
		}
		if s.Manual != "" {
			writeWrapped(w, "  by hand: ", s.Manual, listWidth)
		}
	}
	return nil
}

// plainFetch is the progress of one transfer off a terminal: the line
// newFetchBar printed at its start is all.
type plainFetch struct{}

func (plainFetch) Write(b []byte) (int, error) { return len(b), nil }
func (plainFetch) Done()                       {}

// newFetchBar returns the progress of transfers: a bar when w is a
// terminal, one plain line per transfer otherwise.
func newFetchBar(w io.Writer) func(fetch.File, string, int64) fetch.Bar {
	return func(f fetch.File, src string, start int64) fetch.Bar {
		if file, ok := w.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
			return newTermBar(w, f, start)
		}
		resume := ""
		if start > 0 {
			resume = fmt.Sprintf(", resuming at byte %d", start)
		}
		fmt.Fprintf(w, "fetching %s (%d bytes) from %s%s\n", f.Path, f.Size, src, resume)
		return plainFetch{}
	}
}

// termBar is the progress bar of one transfer on a terminal.
type termBar struct{ bar *progressbar.ProgressBar }

func newTermBar(w io.Writer, f fetch.File, start int64) termBar {
	bar := progressbar.NewOptions64(f.Size,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(f.Path),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	bar.Set64(start)
	return termBar{bar}
}

func (t termBar) Write(b []byte) (int, error) { return t.bar.Write(b) }
func (t termBar) Done() {
	if !t.bar.IsFinished() {
		t.bar.Exit()
	}
}

// Command rowdump prints the rows of a run's parquet files as canonical JSON
// lines, one file per table, without the columns that measure time. Two runs
// of the same plan give identical output when the harness behaves the same:
// it is the check that a refactor changed nothing.
//
//	go run ./scripts/rowdump results/run-abc > before.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

// timing columns differ between any two runs.
var timing = map[string]bool{
	"call_latency_ms": true, "wall_ms": true, "latency_ms": true,
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: rowdump RUN_DIR")
		os.Exit(2)
	}
	for _, name := range []string{"questions.parquet", "calls.parquet"} {
		if err := dump(os.Stdout, filepath.Join(os.Args[1], name)); err != nil {
			fmt.Fprintln(os.Stderr, "rowdump:", err)
			os.Exit(1)
		}
	}
}

func dump(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	r := parquet.NewGenericReader[map[string]any](f, pf.Schema())
	defer r.Close()
	var lines []string
	buf := make([]map[string]any, 64)
	for {
		for i := range buf {
			buf[i] = map[string]any{}
		}
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			for k := range timing {
				delete(row, k)
			}
			b, jerr := json.Marshal(row) // map keys are sorted
			if jerr != nil {
				return jerr
			}
			lines = append(lines, string(b))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	fmt.Fprintf(w, "# %s %d rows\n", filepath.Base(path), len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

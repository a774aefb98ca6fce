package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Export writes a static copy of the viewer into dir: index.html, its
// assets, and the data as script files data/NAME.js, each one call
// medteamData("NAME", JSON) — a browser blocks fetch() of file:// URLs, so
// the JSON is wrapped to load with a <script> from disk. data/grid.js holds
// every line (the page filters it itself) and data/q/ID.js each question's
// record with every arm and call. It returns the number of files written.
func Export(d *Data, dir string) (int, error) {
	if err := os.MkdirAll(filepath.Join(dir, "data", "q"), 0o755); err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	n := 0
	write := func(rel string, b []byte) error {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		n++
		return nil
	}
	var page bytes.Buffer
	if err := pageTmpl.Execute(&page, pageFor(d, true)); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	if err := write("index.html", page.Bytes()); err != nil {
		return n, err
	}
	err := fs.WalkDir(staticFS, "static", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || path == "static/index.html" {
			return err
		}
		b, err := staticFS.ReadFile(path)
		if err != nil {
			return err
		}
		return write(path, b)
	})
	if err != nil {
		return n, err
	}
	err = exportData(d, write)
	return n, err
}

// exportData writes the data files through write.
func exportData(d *Data, write func(rel string, b []byte) error) error {
	ph, err := d.Phases()
	if err != nil {
		return err
	}
	without, err := d.Transcripts()
	if err != nil {
		return err
	}
	data := func(name string, v any) error {
		js, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("export %s: %w", name, err)
		}
		var b bytes.Buffer
		b.WriteString("medteamData(")
		nm, _ := json.Marshal(name)
		b.Write(nm)
		b.WriteString(",")
		b.Write(js) // encoding/json escapes <, >, &, U+2028 and U+2029: safe inside a script
		b.WriteString(");\n")
		return write(filepath.Join("data", name+".js"), b.Bytes())
	}
	if err := data("meta", meta(d)); err != nil {
		return err
	}
	if err := data("phases", map[string]any{"phases": orEmpty(ph), "no_transcripts": orEmpty(without)}); err != nil {
		return err
	}
	if err := data("grid", d.Select(Filter{Arm: -1}, 0, len(d.Lines))); err != nil {
		return err
	}
	for i := range d.Lines {
		q, err := d.Question(i, nil)
		if err != nil {
			return err
		}
		if err := data("q/"+strconv.Itoa(i), q); err != nil {
			return err
		}
	}
	return nil
}

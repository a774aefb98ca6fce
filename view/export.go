package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Export writes a static copy of the viewer into dir: index.html, its
// assets, and the data as script files data/NAME.js, each one call
// medteamData("NAME", JSON) — a browser blocks fetch() of file:// URLs, so
// the JSON is wrapped to load with a <script> from disk. data/grid.js holds
// every line (the page filters it itself) and data/q/ID.js each question's
// record with every arm and call. It returns the number of files written.
// It never writes through a symbolic link: dir, a folder in it or a file it
// would replace being one is an error (see CheckExportDir for the checks
// made before).
func Export(d *Data, dir string) (int, error) {
	if err := mkdirNoLink(dir, filepath.Join("data", "q")); err != nil {
		return 0, err
	}
	n := 0
	write := func(rel string, b []byte) error {
		if err := mkdirNoLink(dir, filepath.Dir(rel)); err != nil {
			return err
		}
		if err := writeNoLink(filepath.Join(dir, rel), b); err != nil {
			return err
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

// CheckExportDir says whether dir may receive an export: a new or empty
// directory, or with force a non-empty one (its files of the same names are
// replaced). dir being a symbolic link or not a directory is refused even
// with force: the export never writes through a link.
func CheckExportDir(dir string, force bool) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("view --export %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("view --export %s: is a symbolic link, and the export never writes through one; give the directory it points to, or a new one", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("view --export %s: is a file, not a directory; give a new or empty directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("view --export %s: %w", dir, err)
	}
	if len(entries) > 0 && !force {
		return fmt.Errorf("view --export %s: the directory is not empty (%d entries, e.g. %s); give a new or empty one, or --force to replace the files of the export in it", dir, len(entries), entries[0].Name())
	}
	return linkInside(dir)
}

// linkInside refuses a symbolic link anywhere in dir (WalkDir does not
// follow them), so that a forced export stops before writing anything.
func linkInside(dir string) error {
	return fs.WalkDir(os.DirFS(dir), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("view --export %s: %w", dir, err)
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("view --export %s: %s is a symbolic link, and the export never writes through one; remove it or give a new directory", dir, filepath.Join(dir, p))
		}
		return nil
	})
}

// mkdirNoLink makes dir/rel and every folder on the way, refusing any of
// them (dir included) that is a symbolic link or not a directory.
func mkdirNoLink(dir, rel string) error {
	p := dir
	parts := []string{""}
	if rel != "." && rel != "" {
		parts = append(parts, strings.Split(filepath.ToSlash(rel), "/")...)
	}
	for _, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(p, 0o755); err != nil {
				return fmt.Errorf("export: %w", err)
			}
		case err != nil:
			return fmt.Errorf("export: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("export: %s is a symbolic link: refusing to write through it; remove it or give another directory", p)
		case !fi.IsDir():
			return fmt.Errorf("export: %s is not a directory; remove it or give another directory", p)
		}
	}
	return nil
}

// writeNoLink writes b to path as a new file: a regular file there is
// removed first, a symbolic link or anything else is refused, and the file
// is created exclusively (O_EXCL), so a link put there meanwhile is not
// followed either.
func writeNoLink(path string, b []byte) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("export: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("export: %s is not a regular file (a symbolic link?): refusing to write through it; remove it or give another directory", path)
	default:
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("export: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// Package fetch downloads pinned files (known size and sha256) into a
// directory: resumable over HTTP (a NAME.part file continued with a Range
// request), from a public URL or from a mirror (a folder or an HTTP base URL
// holding the same relative paths), and verified before it is renamed into
// place. A file whose size or checksum differs is removed, never used.
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// File is one pinned file.
type File struct {
	Path   string `json:"path"`          // slash-separated, relative to the data directory and to a mirror
	URL    string `json:"url,omitempty"` // public source; "" = none known (a mirror or a manual copy only)
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Bar shows the progress of one transfer.
type Bar interface {
	io.Writer // bytes received
	Done()    // the transfer ended (finished or not)
}

// Outcome says how Get made a file available.
type Outcome string

// The outcomes of Get.
const (
	Present    Outcome = "present"    // already in place with the pinned checksum
	Downloaded Outcome = "downloaded" // fetched over HTTP(S)
	Copied     Outcome = "copied"     // copied from a mirror folder
)

// ErrNoSource is returned (wrapped) for a file with no URL when no mirror is set.
var ErrNoSource = errors.New("no public download URL is pinned for this file")

// Fetcher gets files into Dir.
type Fetcher struct {
	Dir      string       // destination: the data directory
	Mirror   string       // "" (each file's URL), a folder, or an http(s):// base URL
	Client   *http.Client // nil: http.DefaultClient
	Attempts int          // tries per file over HTTP, resuming the part file (≤0: 3)
	// NewBar starts the progress of one transfer of file f from src,
	// resuming at byte start; nil: no progress shown.
	NewBar func(f File, src string, start int64) Bar
}

// Dest is where f goes under the data directory.
func (x *Fetcher) Dest(f File) string { return filepath.Join(x.Dir, filepath.FromSlash(f.Path)) }

// Source is where f is taken from: the mirror's copy, else f.URL ("" when
// there is none).
func (x *Fetcher) Source(f File) string {
	switch {
	case x.Mirror == "":
		return f.URL
	case isURL(x.Mirror):
		return strings.TrimSuffix(x.Mirror, "/") + "/" + f.Path
	default:
		return filepath.Join(x.Mirror, filepath.FromSlash(f.Path))
	}
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Get makes f available at Dest(f): an existing file with the pinned size
// and checksum is kept; otherwise f is fetched into Dest(f)+".part",
// verified and renamed into place. An existing file that differs is an
// error (it is the user's file: it is not overwritten).
func (x *Fetcher) Get(ctx context.Context, f File) (Outcome, error) {
	dst := x.Dest(f)
	if _, err := os.Stat(dst); err == nil {
		if err := Verify(dst, f); err != nil {
			return "", fmt.Errorf("%s is already there but is not the pinned file (%w); move it away and run again", dst, err)
		}
		return Present, nil
	}
	src := x.Source(f)
	if src == "" {
		return "", fmt.Errorf("%s: %w", f.Path, ErrNoSource)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	part := dst + ".part"
	outcome := Downloaded
	var err error
	if isURL(src) {
		err = x.download(ctx, f, src, part)
	} else {
		outcome = Copied
		err = x.copyFile(f, src, part)
	}
	if err != nil {
		return "", err
	}
	if err := Verify(part, f); err != nil {
		os.Remove(part)
		return "", fmt.Errorf("%s from %s refused and removed: %w", f.Path, src, err)
	}
	return outcome, os.Rename(part, dst)
}

// Verify checks that the file at path has f's size and sha256.
func Verify(path string, f File) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() != f.Size {
		return fmt.Errorf("size: expected %d bytes, got %d", f.Size, st.Size())
	}
	got, err := SHA256File(path)
	if err != nil {
		return err
	}
	if !strings.EqualFold(got, f.SHA256) {
		return fmt.Errorf("sha256: expected %s, got %s", f.SHA256, got)
	}
	return nil
}

// SHA256File returns the hex sha256 of the file at path.
func SHA256File(path string) (string, error) {
	in, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer in.Close()
	h := sha256.New()
	if _, err := io.Copy(h, in); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// copyFile copies a mirror folder's file to part (from the start: a local
// copy does not need resuming).
func (x *Fetcher) copyFile(f File, src, part string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%s: not in the mirror folder %s: %w", f.Path, x.Mirror, err)
	}
	defer in.Close()
	out, err := os.Create(part)
	if err != nil {
		return err
	}
	w := io.Writer(out)
	if x.NewBar != nil {
		bar := x.NewBar(f, src, 0)
		defer bar.Done()
		w = io.MultiWriter(out, bar)
	}
	// One byte more than pinned is enough to refuse an oversized file.
	_, err = io.Copy(w, io.LimitReader(in, f.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

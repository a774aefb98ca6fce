package view

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportNeverWritesThroughALink: the writer under Export refuses a
// folder or a file that is a symbolic link (the target is left as it was),
// replaces a regular file, and CheckExportDir refuses a non-empty DIR
// without force, a linked DIR even with it, and a link inside DIR.
func TestExportNeverWritesThroughALink(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.js")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(dir, "grid.js")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(t.TempDir(), linked); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"file link", "symbolic link", writeNoLink(filepath.Join(dir, "grid.js"), []byte("x"))},
		{"folder link", "symbolic link", mkdirNoLink(dir, filepath.Join("data", "q"))},
		{"regular file", "", writeNoLink(filepath.Join(dir, "index.html"), []byte("new"))},
		{"non-empty, no force", "--force", CheckExportDir(dir, false)},
		{"non-empty, link inside", "symbolic link", CheckExportDir(dir, true)},
		{"linked DIR, force", "symbolic link", CheckExportDir(linked, true)},
		{"new DIR", "", CheckExportDir(filepath.Join(t.TempDir(), "new"), false)},
	} {
		if (tc.err == nil) != (tc.want == "") || tc.err != nil && !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.name, tc.err, tc.want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("written through the link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "q")); err == nil {
		t.Error("made data/q through the linked folder")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "index.html")); string(b) != "new" {
		t.Errorf("index.html %q; want it replaced", b)
	}
}

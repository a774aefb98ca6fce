package fetch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// content is a file body of n bytes that is not all one byte.
func content(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}

func pin(path string, body []byte) File {
	sum := sha256.Sum256(body)
	return File{Path: path, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
}

// server serves body at every path, misbehaving as told: cut the first
// response after cut bytes (Content-Length still announcing the rest),
// ignore Range headers, or serve other bytes.
type server struct {
	body        []byte
	cut         int  // >0: the first response stops after cut bytes
	ignoreRange bool // answer every request with 200 and the whole body
	mu          sync.Mutex
	requests    []string // the Range header of each request
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Header.Get("Range"))
	first := len(s.requests) == 1
	s.mu.Unlock()
	if s.cut > 0 && first {
		w.Header().Set("Content-Length", itoa(len(s.body)))
		w.WriteHeader(http.StatusOK)
		w.Write(s.body[:s.cut])
		return // the connection is closed with bytes missing
	}
	if s.ignoreRange {
		w.Write(s.body)
		return
	}
	http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(s.body))
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestGetOverHTTP(t *testing.T) {
	good := content(100_000)
	f := pin("sub/data.jsonl", good)
	short := good[:60_000]
	bad := bytes.Clone(good)
	bad[500] ^= 1
	tests := []struct {
		name     string
		srv      *server
		part     []byte // a part file left by an earlier run
		wantErr  string // "" = success
		wantPart bool   // the part file is kept after an error
		ranges   []string
	}{
		{name: "plain", srv: &server{body: good}, ranges: []string{""}},
		{name: "truncated body is refused and removed", srv: &server{body: short}, wantErr: "size: expected 100000 bytes, got 60000"},
		{name: "wrong checksum is refused and removed", srv: &server{body: bad}, wantErr: "sha256: expected " + f.SHA256},
		{name: "interrupted transfer resumes with Range", srv: &server{body: good, cut: 30_000}, ranges: []string{"", "bytes=30000-"}},
		{name: "part file of an earlier run is continued", srv: &server{body: good}, part: good[:40_000], ranges: []string{"bytes=40000-"}},
		{name: "server ignoring Range: restarted", srv: &server{body: good, ignoreRange: true}, part: good[:40_000], ranges: []string{"bytes=40000-"}},
		{name: "oversized part file: restarted", srv: &server{body: good}, part: content(100_001), ranges: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(tt.srv)
			defer ts.Close()
			dir := t.TempDir()
			x := &Fetcher{Dir: dir, Client: ts.Client()}
			ff := f
			ff.URL = ts.URL + "/data.jsonl"
			dst := x.Dest(ff)
			if tt.part != nil {
				os.MkdirAll(filepath.Dir(dst), 0o755)
				os.WriteFile(dst+".part", tt.part, 0o644)
			}
			out, err := x.Get(context.Background(), ff)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				for _, p := range []string{dst, dst + ".part"} {
					if _, serr := os.Stat(p); serr == nil {
						t.Errorf("%s left behind after a refused file", p)
					}
				}
				return
			}
			if err != nil || out != Downloaded {
				t.Fatalf("Get = %q, %v", out, err)
			}
			if got, _ := os.ReadFile(dst); !bytes.Equal(got, good) {
				t.Fatalf("%s: %d bytes, not the pinned file", dst, len(got))
			}
			if _, err := os.Stat(dst + ".part"); err == nil {
				t.Error("part file left behind")
			}
			if strings.Join(tt.srv.requests, "|") != strings.Join(tt.ranges, "|") {
				t.Errorf("Range headers %q, want %q", tt.srv.requests, tt.ranges)
			}
			if out, err := x.Get(context.Background(), ff); err != nil || out != Present {
				t.Errorf("second Get = %q, %v; want present", out, err)
			}
		})
	}
}

// TestGetKeepsPartAcrossRuns: a transfer that keeps failing leaves the part
// file and says so; the next run continues it.
func TestGetKeepsPartAcrossRuns(t *testing.T) {
	good := content(50_000)
	srv := &server{body: good, cut: 20_000}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	f := pin("x.csv", good)
	f.URL = ts.URL + "/x.csv"
	x := &Fetcher{Dir: t.TempDir(), Client: ts.Client(), Attempts: 1}
	_, err := x.Get(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "transfer interrupted after 20000 of 50000 bytes") || !strings.Contains(err.Error(), "run the command again to resume") {
		t.Fatalf("err = %v", err)
	}
	if n := fileSize(x.Dest(f) + ".part"); n != 20_000 {
		t.Fatalf("part file has %d bytes, want 20000", n)
	}
	if out, err := x.Get(context.Background(), f); err != nil || out != Downloaded {
		t.Fatalf("second run: %q, %v", out, err)
	}
	if srv.requests[1] != "bytes=20000-" {
		t.Errorf("second run asked %q, want bytes=20000-", srv.requests[1])
	}
}

func TestGetFromMirror(t *testing.T) {
	good := content(3000)
	f := pin("pubmedqa/ori_pqal.json", good)
	f.URL = "http://192.0.2.1/never-asked" // the mirror is used instead
	mirror := t.TempDir()
	os.MkdirAll(filepath.Join(mirror, "pubmedqa"), 0o755)
	os.WriteFile(filepath.Join(mirror, "pubmedqa", "ori_pqal.json"), good, 0o644)
	ts := httptest.NewServer(http.FileServer(http.Dir(mirror)))
	defer ts.Close()
	for _, m := range []struct {
		name, mirror string
		want         Outcome
	}{{"folder", mirror, Copied}, {"URL", ts.URL + "/", Downloaded}} {
		t.Run(m.name, func(t *testing.T) {
			x := &Fetcher{Dir: t.TempDir(), Mirror: m.mirror, Client: ts.Client()}
			out, err := x.Get(context.Background(), f)
			if err != nil || out != m.want {
				t.Fatalf("Get = %q, %v; want %q", out, err, m.want)
			}
			if err := Verify(filepath.Join(x.Dir, "pubmedqa", "ori_pqal.json"), f); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("missing from the folder", func(t *testing.T) {
		x := &Fetcher{Dir: t.TempDir(), Mirror: t.TempDir()}
		if _, err := x.Get(context.Background(), f); err == nil || !strings.Contains(err.Error(), "not in the mirror folder") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestGetRefusesWhatItCannotVerify(t *testing.T) {
	good := content(1000)
	f := pin("a/b.jsonl", good)
	x := &Fetcher{Dir: t.TempDir()}
	if _, err := x.Get(context.Background(), f); err == nil || !strings.Contains(err.Error(), ErrNoSource.Error()) {
		t.Fatalf("no URL, no mirror: err = %v", err)
	}
	// A different file already in place is the user's: kept, and an error.
	dst := x.Dest(f)
	os.MkdirAll(filepath.Dir(dst), 0o755)
	os.WriteFile(dst, content(999), 0o644)
	if _, err := x.Get(context.Background(), f); err == nil || !strings.Contains(err.Error(), "is not the pinned file") {
		t.Fatalf("existing different file: err = %v", err)
	}
	if fileSize(dst) != 999 {
		t.Error("the user's file was touched")
	}
}

func TestRangeStart(t *testing.T) {
	for h, want := range map[string]int64{"bytes 100-199/200": 100, "bytes 0-9/*": 0, "": -1, "items 1-2/3": -1, "bytes x-1/2": -1, "bytes 5": -1} {
		if got := rangeStart(h); got != want {
			t.Errorf("rangeStart(%q) = %d, want %d", h, got, want)
		}
	}
}

// FuzzRangeStart: any header is read without panicking, and a well-formed
// "bytes N-M/T" gives N back.
func FuzzRangeStart(f *testing.F) {
	for _, s := range []string{"bytes 100-199/200", "bytes 0-0/*", "", "bytes -5/9", "bytes 99999999999999999999-1/2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		n := rangeStart(h)
		if n < -1 {
			t.Fatalf("rangeStart(%q) = %d", h, n)
		}
		if n >= 0 {
			if again := rangeStart("bytes " + strconv.FormatInt(n, 10) + "-1/2"); again != n {
				t.Fatalf("round trip %d → %d", n, again)
			}
		}
	})
}

// Package view serves a read-only page on loopback for reading runs: a
// questions × arms grid with filters, a question's deliberation call by call
// (phase, agent, role, prompt, reply, parse notes, tokens, latency), its
// votes and aggregation, and two arms side by side (docs: DESIGN.md §11;
// docs/commands.md#medteam-view). It can also write a static copy
// that opens from disk (Export).
//
// Question rows are held in memory; calls.parquet is indexed by unit
// without its texts and a question's calls are read from the file when the
// question is opened, so memory does not grow with the transcripts.
package view

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
)

//go:embed static
var staticFS embed.FS

var pageTmpl = template.Must(template.ParseFS(staticFS, "static/index.html"))

// pageData fills static/index.html.
type pageData struct {
	Title  string
	Runs   []string
	Static bool   // the exported copy: data from data/*.js, not the API
	Base   string // prefix of the static assets
}

// LimitMax bounds the lines one grid request returns.
const LimitMax = 1000

// Handler serves the viewer for d: the page, its assets and a JSON API
// (GET and HEAD only; other methods get 405).
func Handler(d *Data) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/static/", staticHandler())
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := pageTmpl.Execute(w, pageFor(d, false)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/api/meta", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, meta(d)) })
	mux.HandleFunc("/api/phases", func(w http.ResponseWriter, r *http.Request) {
		ph, err := d.Phases()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		without, err := d.Transcripts()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, map[string]any{"phases": ph, "no_transcripts": orEmpty(without)})
	})
	mux.HandleFunc("/api/grid", func(w http.ResponseWriter, r *http.Request) {
		f, offset, limit, err := parseGrid(r, len(d.Arms))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if f.Phase != "" {
			if _, err := d.Phases(); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
		}
		writeJSON(w, d.Select(f, offset, limit))
	})
	mux.HandleFunc("/api/question", questionHandler(d))
	return guard(mux)
}

// staticHandler serves the page's assets under /static/.
func staticHandler() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	return http.StripPrefix("/static/", http.FileServerFS(sub))
}

// questionHandler serves /api/question?id=LINE[&arms=C1,C2].
func questionHandler(d *Data) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.URL.Query().Get("id"))
		if err != nil {
			http.Error(w, "id: want a grid line number, e.g. /api/question?id=0", http.StatusBadRequest)
			return
		}
		var arms []int
		if s := r.URL.Query().Get("arms"); s != "" {
			for _, p := range strings.Split(s, ",") {
				c, err := strconv.Atoi(p)
				if err != nil {
					http.Error(w, fmt.Sprintf("arms: %q is not an arm column number", p), http.StatusBadRequest)
					return
				}
				arms = append(arms, c)
			}
		}
		q, err := d.Question(id, arms)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, q)
	}
}

// guard makes the server read-only and loopback-only at the HTTP level:
// only GET and HEAD, and only Host headers naming a loopback address (a
// page elsewhere that rebinds its DNS name to 127.0.0.1 is refused). Every
// response forbids loading anything from another origin.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the viewer is read-only", http.StatusMethodNotAllowed)
			return
		}
		if !loopbackHost(r.Host) {
			http.Error(w, "the viewer answers only requests addressed to a loopback host", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header (host or host:port) names
// localhost or a loopback IP.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckAddr validates a --addr value: HOST:PORT where HOST is localhost or
// a loopback IP (127.0.0.0/8, ::1); PORT 0 or empty picks a free port. It
// returns the address to listen on (localhost becomes 127.0.0.1).
func CheckAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: want HOST:PORT on loopback, e.g. 127.0.0.1:8080 (%v)", addr, err)
	}
	if port == "" {
		port = "0"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("--addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		what := host
		if host == "" {
			what = "every interface"
		}
		return "", fmt.Errorf("--addr %q: %s is not a loopback address; the viewer serves only this machine (use 127.0.0.1:PORT or [::1]:PORT; to read a run elsewhere, copy it with 'medteam view --export DIR')", addr, what)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// Listen opens a listener on a loopback address checked by CheckAddr.
func Listen(addr string) (net.Listener, error) {
	a, err := CheckAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", a)
	if err != nil {
		return nil, fmt.Errorf("--addr %s: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		ln.Close()
		return nil, errors.New("the listener is not on a loopback address")
	}
	return ln, nil
}

func pageFor(d *Data, static bool) pageData {
	p := pageData{Title: "medteam view", Static: static, Base: "static/"}
	for _, r := range d.Runs {
		p.Runs = append(p.Runs, r.Name)
	}
	if len(p.Runs) > 0 {
		p.Title = strings.Join(p.Runs, ", ") + " — medteam view"
	}
	return p
}

// metaData is what the page needs before the grid.
type metaData struct {
	Runs     []runMeta `json:"runs"`
	Arms     []Arm     `json:"arms"`
	Subjects []string  `json:"subjects"`
	Lines    int       `json:"lines"`
}

type runMeta struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	Rows int    `json:"rows"`
}

func meta(d *Data) metaData {
	m := metaData{Arms: d.Arms, Subjects: orEmpty(d.Subjects), Lines: len(d.Lines)}
	for _, r := range d.Runs {
		m.Runs = append(m.Runs, runMeta{Name: r.Name, Dir: r.Dir, Rows: len(r.Rows)})
	}
	return m
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// parseGrid reads a grid request's filter and page.
func parseGrid(r *http.Request, arms int) (f Filter, offset, limit int, err error) {
	q := r.URL.Query()
	f = Filter{Status: q.Get("status"), Arm: -1, Subject: q.Get("subject"), Phase: q.Get("phase"), Query: q.Get("q")}
	switch f.Status {
	case "", StatusCorrect, StatusWrong, StatusAbstained, StatusError:
	default:
		return f, 0, 0, fmt.Errorf("status %q: want correct, wrong, abstained or error", f.Status)
	}
	f.Disagree = q.Get("disagree") == "1" || q.Get("disagree") == "true"
	num := func(name string, def, lo, hi int) (int, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s %q: want a whole number from %d to %d", name, s, lo, hi)
		}
		return n, nil
	}
	if f.Arm, err = num("arm", -1, -1, arms-1); err != nil {
		return
	}
	if offset, err = num("offset", 0, 0, 1<<31-1); err != nil {
		return
	}
	limit, err = num("limit", 100, 1, LimitMax)
	return
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

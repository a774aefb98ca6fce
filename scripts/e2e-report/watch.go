package main

import (
	"github.com/medteam-bench/medteam/scripts/internal/cdp"

	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// watch collects what the page does: requests, console and log entries,
// exceptions, and its load event.
type watch struct {
	pageURL string

	mu       sync.Mutex
	requests []string // URLs other than data:
	failed   []string // loads that failed
	errors   []string // console errors, exceptions, error log entries
	warnings []string
	loaded   chan struct{}
	once     *sync.Once
}

func newWatch(pageURL string) *watch {
	return &watch{pageURL: pageURL, loaded: make(chan struct{}), once: &sync.Once{}}
}

// armLoad forgets any earlier load event (about:blank's).
func (w *watch) armLoad() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.loaded, w.once = make(chan struct{}), &sync.Once{}
}

func (w *watch) waitLoad(ctx context.Context) error {
	w.mu.Lock()
	ch := w.loaded
	w.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// event is called for every DevTools event.
func (w *watch) event(m cdp.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Method {
	case "Page.loadEventFired":
		ch, once := w.loaded, w.once
		once.Do(func() { close(ch) })
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &p) == nil && !strings.HasPrefix(p.Request.URL, "data:") {
			w.requests = append(w.requests, p.Request.URL)
		}
	case "Network.loadingFailed":
		w.failed = append(w.failed, strings.TrimSpace(field(m.Params, "errorText")+" "+field(m.Params, "blockedReason")))
	case "Runtime.exceptionThrown":
		w.errors = append(w.errors, "exception: "+string(m.Params))
	case "Runtime.consoleAPICalled":
		w.console(m.Params)
	case "Log.entryAdded":
		w.logEntry(m.Params)
	}
}

func (w *watch) console(params json.RawMessage) {
	var p struct {
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var parts []string
	for _, a := range p.Args {
		parts = append(parts, fmt.Sprint(a.Value)+a.Description)
	}
	msg := "console." + p.Type + ": " + strings.Join(parts, " ")
	switch p.Type {
	case "error", "assert":
		w.errors = append(w.errors, msg)
	case "warning":
		w.warnings = append(w.warnings, msg)
	}
}

func (w *watch) logEntry(params json.RawMessage) {
	var p struct {
		Entry struct {
			Level, Source, Text, URL string
		} `json:"entry"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	e := p.Entry
	msg := fmt.Sprintf("log %s (%s): %s %s", e.Level, e.Source, e.Text, e.URL)
	switch e.Level {
	case "error":
		w.errors = append(w.errors, msg)
	case "warning":
		w.warnings = append(w.warnings, msg)
	}
}

func field(raw json.RawMessage, name string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m[name] == nil {
		return ""
	}
	return fmt.Sprint(m[name])
}

// report prints what the page did and returns the failed checks.
func (w *watch) report() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var problems []string
	self := 0
	for _, u := range w.requests {
		if strings.SplitN(u, "#", 2)[0] == w.pageURL {
			self++
			continue
		}
		problems = append(problems, "request to "+u)
	}
	fmt.Printf("e2e-report: requests: %d for the page itself, %d other\n", self, len(w.requests)-self)
	if self == 0 {
		problems = append(problems, "the browser never requested the page")
	}
	for _, f := range w.failed {
		problems = append(problems, "a load failed: "+f)
	}
	fmt.Printf("e2e-report: console and log: %d errors, %d warnings\n", len(w.errors), len(w.warnings))
	for _, m := range w.warnings {
		fmt.Printf("  warning: %.300s\n", m)
	}
	for _, m := range w.errors {
		problems = append(problems, fmt.Sprintf("%.300s", m))
	}
	return problems
}

// seen is what inspectJS reports.
type seen struct {
	Title   string
	Figures []struct {
		Kind          string
		Empty, SVG    bool
		Width, Height float64
		Paths, Texts  int
		Inked         int
		Overlaps      []string // pairs of texts whose boxes intersect
	}
	SVGs    int
	Fonts   []string
	Scripts int
	Wide    bool
	Height  float64
}

// check prints the figures and returns the failed checks.
func (v seen) check(o options) []string {
	var problems []string
	fmt.Printf("e2e-report: %d figures, %d <svg> elements, page %.0f px tall\n", len(v.Figures), v.SVGs, v.Height)
	good := v.drawn()
	for _, k := range o.kinds {
		if good[k] == 0 {
			problems = append(problems, fmt.Sprintf("no non-empty %q figure", k))
		}
	}
	if o.figures >= 0 && (len(v.Figures) != o.figures || v.SVGs != o.figures) {
		problems = append(problems, fmt.Sprintf("%d figures and %d <svg> elements, want %d", len(v.Figures), v.SVGs, o.figures))
	}
	fmt.Printf("e2e-report: fonts loaded: %s\n", strings.Join(v.Fonts, ", "))
	if !containsStr(v.Fonts, "Liberation Sans loaded") && len(v.Figures) > 0 {
		problems = append(problems, "the figures' font (Liberation Sans) did not load from the page")
	}
	overlaps := 0
	for _, f := range v.Figures {
		for _, o := range f.Overlaps {
			problems = append(problems, fmt.Sprintf("%s figure: labels overlap: %s", f.Kind, o))
		}
		overlaps += len(f.Overlaps)
	}
	fmt.Printf("e2e-report: label overlaps (text boxes intersecting) in %d figures: %d\n", len(v.Figures), overlaps)
	if v.Scripts > 0 {
		problems = append(problems, fmt.Sprintf("%d <script> elements", v.Scripts))
	}
	if v.Wide {
		problems = append(problems, "the page is wider than the window (horizontal scrolling)")
	}
	return problems
}

// drawn prints every figure and counts, per kind, those that drew
// something: not the "no data" figure, an SVG with a size, paths and text.
func (v seen) drawn() map[string]int {
	good := map[string]int{}
	for _, f := range v.Figures {
		fmt.Printf("  %-14s %4.0f×%-5.0f px  %4d paths  %3d texts (%d rendered)%s\n",
			f.Kind, f.Width, f.Height, f.Paths, f.Texts, f.Inked, map[bool]string{true: "  [no data]"}[f.Empty])
		if !f.Empty && f.SVG && f.Width > 50 && f.Height > 20 && f.Paths > 0 && f.Inked > 0 {
			good[f.Kind]++
		}
	}
	return good
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Command e2e-view checks `medteam view` in headless Chromium, driven over
// the DevTools protocol (--remote-debugging-pipe; standard library only):
//
//   - on a run made with --transcripts: starts `medteam view`, loads the
//     page, filters the grid (status, arms disagree, phase), opens a
//     question (calls with their prompts and replies), compares two arms
//     side by side;
//   - on a question: its stem, options with one gold marked and every arm's
//     answer marked right or wrong; on the grid, the colour legend;
//   - the same on the static copy written by `medteam view --export`,
//     opened from disk;
//   - `medteam view FOLDER` on the folder holding the run: the list of runs,
//     and a link to one opening its grid;
//   - on a large run (-big): the time from starting `medteam view` to the
//     first grid rows on the page (Chromium already running), and the
//     server's peak RSS after opening a question;
//
// and fails on any console error or uncaught exception, and on any request
// that leaves loopback (every Network.requestWillBeSent must be for the
// server's own origin, or file:// under the export; every host name
// resolves to nothing besides).
//
//	go run ./scripts/e2e-view -medteam bin/medteam -run RUN [-big RUN] [-max-first 2s] [-max-rss-mb 200] [-shots DIR]
//
// Exit 1 when a check fails, 2 on a usage error.
package main

import (
	"github.com/medteam-bench/medteam/scripts/internal/cdp"

	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	timeoutClose = 5 * time.Second
	timeoutStep  = 30 * time.Second
)

type options struct {
	chromium, medteam, run, big string
	maxFirst                    time.Duration
	maxRSSMB                    int
	shots                       string
}

func main() {
	var o options
	flag.StringVar(&o.chromium, "chromium", "/usr/bin/chromium", "Chromium binary")
	flag.StringVar(&o.medteam, "medteam", "bin/medteam", "medteam binary")
	flag.StringVar(&o.run, "run", "", "a run directory made with --transcripts and at least two arms (required)")
	flag.StringVar(&o.big, "big", "", "a large run directory to time (optional)")
	flag.DurationVar(&o.maxFirst, "max-first", 2*time.Second, "the longest allowed time from starting medteam view to the first rows")
	flag.IntVar(&o.maxRSSMB, "max-rss-mb", 200, "the largest allowed peak RSS of the server, MB")
	flag.StringVar(&o.shots, "shots", "", "save screenshots of the question page and the folder list here")
	flag.Parse()
	if o.run == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: e2e-view -medteam BIN -run RUN [-big RUN] [-max-first 2s] [-max-rss-mb 200]")
		os.Exit(2)
	}
	problems := run(o)
	for _, p := range problems {
		fmt.Printf("e2e-view: FAIL: %s\n", p)
	}
	if len(problems) > 0 {
		os.Exit(1)
	}
	fmt.Println("e2e-view: OK")
}

// watch records every request, console error and exception of the page.
type watch struct {
	mu       sync.Mutex
	requests []string
	errors   []string
}

func (w *watch) event(m cdp.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m.Method {
	case "Network.requestWillBeSent":
		var p struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &p) == nil && !strings.HasPrefix(p.Request.URL, "data:") {
			w.requests = append(w.requests, p.Request.URL)
		}
	case "Runtime.exceptionThrown":
		w.errors = append(w.errors, "exception: "+string(m.Params))
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
			w.errors = append(w.errors, "console."+p.Type+": "+string(m.Params))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Text, URL string } `json:"entry"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.Entry.Level == "error" {
			w.errors = append(w.errors, "log: "+p.Entry.Text+" "+p.Entry.URL)
		}
	}
}

// drain returns and forgets what was recorded.
func (w *watch) drain() (reqs, errs []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	reqs, errs, w.requests, w.errors = w.requests, w.errors, nil, nil
	return
}

type tab struct {
	b     *cdp.Browser
	s     string
	shots string // the directory screenshots are saved to ("" none; -shots)
}

// chromiumArgs: headless, nothing fetched in the background, a throwaway
// profile, and every host name but 127.0.0.1 resolving to nothing.
func chromiumArgs(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
		"--disable-dev-shm-usage", "--mute-audio",
		"--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1280,900", "about:blank",
	}
}

func run(o options) []string {
	profile, err := os.MkdirTemp("", "e2e-view-profile-")
	if err != nil {
		return []string{err.Error()}
	}
	defer os.RemoveAll(profile)
	w := &watch{}
	b, err := cdp.Start(o.chromium, chromiumArgs(profile), w.event)
	if err != nil {
		return []string{fmt.Sprintf("starting %s: %v", o.chromium, err)}
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t, err := newTab(ctx, b)
	if err != nil {
		return []string{err.Error()}
	}
	t.shots = o.shots
	var problems []string
	fail := func(where string, err error) {
		problems = append(problems, where+": "+err.Error())
		fmt.Fprintf(os.Stderr, "e2e-view: chromium's stderr (tail):\n%s\n", b.StderrTail(2000))
	}

	// 1. The server, on the run with transcripts.
	srv, err := startView(o.medteam, o.run)
	if err != nil {
		return append(problems, err.Error())
	}
	if err := t.walkthrough(ctx, srv.url, true); err != nil {
		fail("server", err)
	}
	srv.stop()
	problems = append(problems, checkWatch(w, "server", func(u string) bool { return strings.HasPrefix(u, srv.url) })...)
	// 2. The static copy, from disk.
	problems = append(problems, t.staticCopy(ctx, w, o, fail)...)

	// 3. The folder holding the run: its list of runs.
	problems = append(problems, t.folderList(ctx, o.medteam, filepath.Dir(o.run), fail)...)
	problems = append(problems, checkWatch(w, "folder", func(u string) bool { return strings.HasPrefix(u, "http://127.0.0.1:") })...)

	// 4. Timings on the large run.
	if o.big != "" {
		problems = append(problems, t.timeBig(ctx, w, o, fail)...)
	}
	return problems
}

// staticCopy walks through the static copy written by view --export,
// opened from disk.
func (t tab) staticCopy(ctx context.Context, w *watch, o options, fail func(string, error)) []string {
	var problems []string
	exp, err := os.MkdirTemp("", "e2e-view-export-")
	if err != nil {
		return append(problems, err.Error())
	}
	defer os.RemoveAll(exp)
	if out, err := exec.Command(o.medteam, "view", "--export", exp, o.run).CombinedOutput(); err != nil {
		return append(problems, fmt.Sprintf("medteam view --export: %v\n%s", err, out))
	}
	base := (&url.URL{Scheme: "file", Path: exp + "/"}).String()
	if err := t.walkthrough(ctx, base+"index.html", false); err != nil {
		fail("export", err)
	}
	return append(problems, checkWatch(w, "export", func(u string) bool { return strings.HasPrefix(u, base) })...)
}

// timeBig times the first rows of the large run, a filter and opening a
// question, and reads the server's peak RSS.
func (t tab) timeBig(ctx context.Context, w *watch, o options, fail func(string, error)) []string {
	var problems []string
	if err := t.navigate(ctx, "about:blank"); err != nil {
		return append(problems, err.Error())
	}
	w.drain()
	start := time.Now()
	srv, err := startView(o.medteam, o.big)
	if err != nil {
		return append(problems, err.Error())
	}
	listening := time.Since(start)
	if err := t.navigate(ctx, srv.url); err != nil {
		fail("big", err)
	}
	rows, err := t.waitFor(ctx, `document.querySelectorAll('#grid tbody tr').length`, func(v string) bool { return v != "0" })
	first := time.Since(start)
	if err != nil {
		fail("big: first rows", err)
	}
	total, _ := t.eval(ctx, `document.getElementById('count').textContent`)
	fmt.Printf("e2e-view: 10,000-row timing: %s — listening after %v, first %s rows on the page after %v (Chromium already running)\n",
		unquote(total), listening.Round(time.Millisecond), rows, first.Round(time.Millisecond))
	if first > o.maxFirst {
		problems = append(problems, fmt.Sprintf("first rows after %v, more than %v", first, o.maxFirst))
	}
	if _, err := t.waitFor(ctx, `document.body.dataset.phasesReady || ''`, func(v string) bool { return v == `"1"` }); err != nil {
		fail("big: phases", err)
	}
	// Open the last question on the first page, then a filtered page.
	if _, err := t.eval(ctx, `location.hash = 'status=wrong&arm=1'; 1`); err != nil {
		fail("big: filter", err)
	}
	fs := time.Now()
	if _, err := t.waitFor(ctx, `(document.getElementById('count').textContent.match(/^\d+ of/) && location.hash.includes('wrong') && document.querySelectorAll('#grid tbody td.cell.wrong').length > 0) ? 'y' : ''`, func(v string) bool { return v == `"y"` }); err != nil {
		fail("big: filtered rows", err)
	}
	filtered := time.Since(fs)
	qs := time.Now()
	if _, err := t.eval(ctx, `document.querySelector('#grid tbody tr:last-child').click(); 1`); err != nil {
		fail("big: open", err)
	}
	if _, err := t.waitFor(ctx, `document.querySelectorAll('#panes .pane ol.calls li').length`, func(v string) bool { return v != "0" }); err != nil {
		fail("big: question", err)
	}
	opened := time.Since(qs)
	rss := peakRSS(srv.cmd.Process.Pid)
	fmt.Printf("e2e-view: 10,000-row timing: filter to wrong in arm 1 %v, open a question with its calls %v; server peak RSS %d MB\n",
		filtered.Round(time.Millisecond), opened.Round(time.Millisecond), rss/1024)
	if rss/1024 > int64(o.maxRSSMB) {
		problems = append(problems, fmt.Sprintf("server peak RSS %d MB, more than %d MB", rss/1024, o.maxRSSMB))
	}
	srv.stop()
	problems = append(problems, checkWatch(w, "big", func(u string) bool { return strings.HasPrefix(u, srv.url) || u == "about:blank" })...)
	return problems
}

func checkWatch(w *watch, where string, own func(string) bool) []string {
	reqs, errs := w.drain()
	var problems []string
	n := 0
	for _, u := range reqs {
		if own(u) {
			n++
			continue
		}
		problems = append(problems, where+": a request left loopback/the page's own origin: "+u)
	}
	fmt.Printf("e2e-view: %s: %d requests, all to the page's own origin: %v; %d console errors\n", where, len(reqs), n == len(reqs), len(errs))
	if n == 0 {
		problems = append(problems, where+": no request seen (the network watch is broken)")
	}
	for _, e := range errs {
		problems = append(problems, fmt.Sprintf("%s: %.400s", where, e))
	}
	return problems
}

// walkthrough loads the page and uses it as a reader would.
func (t tab) walkthrough(ctx context.Context, page string, transcripts bool) error {
	if err := t.navigate(ctx, page); err != nil {
		return err
	}
	rows, err := t.waitFor(ctx, `document.querySelectorAll('#grid tbody tr').length`, func(v string) bool { return v != "0" })
	if err != nil {
		return fmt.Errorf("no grid rows: %w", err)
	}
	arms, _ := t.eval(ctx, `document.querySelectorAll('#grid thead th.arm').length`)
	if _, err := t.waitFor(ctx, `document.body.dataset.phasesReady || ''`, func(v string) bool { return v == `"1"` }); err != nil {
		return fmt.Errorf("phases: %w", err)
	}
	fmt.Printf("e2e-view: %s: %s rows on the first page, %s arms\n", page, rows, arms)
	if err := t.screenshot(ctx, "grid"); err != nil {
		return err
	}
	for _, st := range readerSteps() {
		if _, err := t.eval(ctx, st.do); err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
		if _, err := t.waitFor(ctx, st.check, func(v string) bool { return v == `"y"` }); err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
		fmt.Printf("e2e-view:   %s: ok\n", st.what)
	}
	if err := t.checkItem(ctx); err != nil {
		return err
	}
	// The texts: a prompt and a reply when the run kept them.
	texts, err := t.eval(ctx, `(() => { const d = document.querySelector('#panes details.call'); d.open = true; const pr = d.querySelector('pre.prompt'), re = d.querySelector('pre.reply'); return JSON.stringify({prompt: pr ? pr.textContent.length : -1, reply: re ? re.textContent.length : -1, note: !!document.querySelector('.notranscripts'), panes: [...document.querySelectorAll('#panes .pane h3')].map(h => h.textContent)}); })()`)
	if err != nil {
		return err
	}
	var v struct {
		Prompt, Reply int
		Note          bool
		Panes         []string
	}
	if err := json.Unmarshal([]byte(unquote(texts)), &v); err != nil {
		return fmt.Errorf("texts: %v (%s)", err, texts)
	}
	fmt.Printf("e2e-view:   side by side: %s; first call: prompt %d chars, reply %d chars\n", strings.Join(v.Panes, " | "), v.Prompt, v.Reply)
	if transcripts && (v.Prompt <= 0 || v.Reply <= 0 || v.Note) {
		return fmt.Errorf("a run with --transcripts shows no prompt/reply (%+v)", v)
	}
	return nil
}

// checkItem checks, on the grid, the legend and the stem excerpts and, on
// the open question, what `inspect view` shows first: the stem, the
// options with exactly one marked gold, and every arm's answer marked right
// or wrong; it saves a screenshot of the question when -shots is set.
func (t tab) checkItem(ctx context.Context) error {
	got, err := t.eval(ctx, `(() => {
	  const q = document.getElementById('q-item');
	  return JSON.stringify({
	    legend: [...document.querySelectorAll('#legend .cell')].map(c => c.className),
	    stem: (q.querySelector('p.stem') || {}).textContent || '',
	    options: q.querySelectorAll('ol.options li').length,
	    gold: [...q.querySelectorAll('ol.options li.gold')].map(li => li.dataset.letter),
	    answers: [...q.querySelectorAll('table.answers tbody tr')].map(r => r.cells[0].textContent + ' ' + r.cells[2].textContent + ' ' + r.cells[3].textContent),
	    arms: document.querySelectorAll('#arm-a option').length,
	  }); })()`)
	if err != nil {
		return fmt.Errorf("question text: %w", err)
	}
	var v struct {
		Legend  []string
		Stem    string
		Options int
		Gold    []string
		Answers []string
		Arms    int
	}
	if err := json.Unmarshal([]byte(unquote(got)), &v); err != nil {
		return fmt.Errorf("question text: %v (%s)", err, got)
	}
	fmt.Printf("e2e-view:   question: stem %q…, %d options, gold %v; answers %s; legend %d colours\n",
		trunc(v.Stem, 50), v.Options, v.Gold, strings.Join(v.Answers, " | "), len(v.Legend))
	switch {
	case len(v.Legend) < 4:
		return fmt.Errorf("the grid has no colour legend (%v)", v.Legend)
	case v.Stem == "" || v.Options < 2 || len(v.Gold) != 1:
		return fmt.Errorf("the question page lacks its stem, options or one gold (%+v)", v)
	case len(v.Answers) < v.Arms:
		return fmt.Errorf("the question page lists %d answers for %d arms", len(v.Answers), v.Arms)
	}
	for _, a := range v.Answers {
		if !strings.HasSuffix(a, " right") && !strings.HasSuffix(a, " wrong") && !strings.HasSuffix(a, "abstained") && !strings.HasSuffix(a, "error") {
			return fmt.Errorf("an answer not marked right or wrong: %q", a)
		}
	}
	return t.screenshot(ctx, "question")
}

func trunc(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// screenshot saves the page as shots/NAME-N.png.
func (t tab) screenshot(ctx context.Context, name string) error {
	if t.shots == "" {
		return nil
	}
	var res struct {
		Data []byte `json:"data"`
	}
	if err := t.b.Call(ctx, t.s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &res); err != nil {
		return fmt.Errorf("screenshot: %w", err)
	}
	for i := 0; ; i++ {
		p := filepath.Join(t.shots, fmt.Sprintf("%s-%d.png", name, i))
		if _, err := os.Stat(p); os.IsNotExist(err) {
			fmt.Printf("e2e-view:   screenshot %s\n", p)
			return os.WriteFile(p, res.Data, 0o644)
		}
	}
}

// folderList starts `medteam view` on the folder holding the runs, checks
// the list links every run and that a link opens its grid.
func (t tab) folderList(ctx context.Context, medteamBin, folder string, fail func(string, error)) []string {
	srv, err := startView(medteamBin, folder)
	if err != nil {
		return []string{err.Error()}
	}
	defer srv.stop()
	if err := t.navigate(ctx, srv.url); err != nil {
		fail("folder", err)
	}
	links, err := t.waitFor(ctx, `[...document.querySelectorAll('#runs-list a')].map(a => a.textContent).join(',')`, func(v string) bool { return v != `""` })
	if err != nil {
		fail("folder: list", err)
		return nil
	}
	fmt.Printf("e2e-view: folder %s lists %s\n", folder, links)
	if err := t.screenshot(ctx, "folder"); err != nil {
		fail("folder", err)
	}
	if _, err := t.eval(ctx, `document.querySelector('#runs-list a').click(); 1`); err != nil {
		fail("folder: open", err)
	}
	if _, err := t.waitFor(ctx, `document.querySelectorAll('#grid tbody tr').length`, func(v string) bool { return v != "0" }); err != nil {
		fail("folder: a run's grid", err)
	}
	return nil
}

// step is one thing a reader does on the page (do) and what it must
// show after (check, evaluating to "y").
type step struct{ what, do, check string }

// readerSteps: filter on status correct through the select, as a user
// does; on arms disagree; on a phase; open a question; compare two arms.
func readerSteps() []step {
	return []step{
		{"filter status=correct",
			`(() => { const s = document.getElementById('f-status'); s.value = 'correct'; s.dispatchEvent(new Event('change')); return 1; })()`,
			`(() => { const rows = [...document.querySelectorAll('#grid tbody tr')]; return location.hash.includes('status=correct') && rows.length > 0 && rows.every(r => r.querySelector('td.cell.correct')) ? 'y' : ''; })()`},
		{"filter arms disagree",
			`(() => { document.getElementById('f-status').value = ''; const c = document.getElementById('f-disagree'); c.checked = true; c.dispatchEvent(new Event('change')); return 1; })()`,
			`(() => { const rows = [...document.querySelectorAll('#grid tbody tr')]; return location.hash === '#disagree=1' && document.getElementById('count').textContent.match(/^\d+ of/) && rows.every(r => r.classList.contains('disagree')) ? 'y' : ''; })()`},
		{"filter phase",
			`(() => { const c = document.getElementById('f-disagree'); c.checked = false; const p = document.getElementById('f-phase'); p.value = p.options[p.options.length - 1].value; p.dispatchEvent(new Event('change')); return p.value; })()`,
			`(() => location.hash.startsWith('#phase=') && document.querySelectorAll('#grid tbody tr').length > 0 ? 'y' : '')()`},
		{"open a question",
			`(() => { document.querySelector('#grid tbody tr').click(); return 1; })()`,
			`(() => { const p = document.querySelectorAll('#panes .pane'); const calls = document.querySelectorAll('#panes .pane ol.calls li'); return !document.getElementById('question-view').hidden && p.length === 2 && calls.length > 0 && document.querySelector('#panes dl.agg') ? 'y' : ''; })()`},
		{"compare two other arms",
			`(() => { const b = document.getElementById('arm-b'); b.value = String(b.options.length - 1); b.dispatchEvent(new Event('change')); return b.value; })()`,
			`(() => { const p = [...document.querySelectorAll('#panes .pane')].map(x => x.dataset.arm); const n = document.getElementById('arm-b').options.length - 1; return p.length === 2 && p[0] === '0' && p[1] === String(n) ? 'y' : ''; })()`},
	}
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func newTab(ctx context.Context, b *cdp.Browser) (tab, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return tab{}, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return tab{}, err
	}
	for _, m := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := b.Call(ctx, att.SessionID, m, nil, nil); err != nil {
			return tab{}, err
		}
	}
	return tab{b: b, s: att.SessionID}, nil
}

func (t tab) navigate(ctx context.Context, u string) error {
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := t.b.Call(ctx, t.s, "Page.navigate", map[string]any{"url": u}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", u, nav.ErrorText)
	}
	return nil
}

// eval evaluates an expression in the page and returns its value as JSON.
func (t tab) eval(ctx context.Context, expr string) (string, error) {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := t.b.Call(ctx, t.s, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return "", err
	}
	if res.Exception != nil {
		return "", fmt.Errorf("%s %s", res.Exception.Text, res.Exception.Exception.Description)
	}
	return string(res.Result.Value), nil
}

// waitFor polls expr until ok accepts its value.
func (t tab) waitFor(ctx context.Context, expr string, ok func(string) bool) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeoutStep)
	defer cancel()
	last := ""
	for {
		v, err := t.eval(ctx, expr)
		if err == nil && ok(v) {
			return v, nil
		}
		if err != nil {
			last = err.Error()
		} else {
			last = v
		}
		select {
		case <-ctx.Done():
			failed, _ := t.eval(context.Background(), `document.body.dataset.failed || ''`)
			return "", fmt.Errorf("timed out waiting for %.120s (last %q, page error %s)", expr, last, failed)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

type server struct {
	cmd *exec.Cmd
	url string
}

var servingRE = regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/)`)

// startView starts `medteam view RUN` on a free loopback port and waits for
// the address it prints.
func startView(medteam, run string) (*server, error) {
	cmd := exec.Command(medteam, "view", run)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting medteam view: %w", err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	select {
	case u := <-found:
		return &server{cmd: cmd, url: u}, nil
	case <-time.After(timeoutStep):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("medteam view %s printed no address in %v", filepath.Base(run), timeoutStep)
	}
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeoutClose):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// peakRSS reads a process's peak resident set (VmHWM), in kB.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return -1
}

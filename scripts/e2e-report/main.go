// Command e2e-report opens a medteam report.html in headless Chromium and
// checks it as a reader's browser sees it, through the DevTools protocol over
// --remote-debugging-pipe (standard library only: no websocket, no Node):
//
//   - no request other than the page itself (data: URLs aside): every
//     Network.requestWillBeSent is checked, and the browser's resolver maps
//     every host to nothing so that no attempt leaves the machine;
//   - no console error, no uncaught exception, no error in the browser's log
//     (a Content-Security-Policy violation or a failed load is one);
//   - every plot kind asked for has a <figure data-plot=KIND> whose SVG has a
//     size, paths and text that renders, and is not the "no data" figure;
//     with -figures N, exactly N figures;
//   - the embedded font (Liberation Sans) loaded, the page has no <script>
//     and is no wider than the window (1,400 px);
//   - at that width no Markdown escape shows (first\_prompt), a table wider
//     than its wrapper keeps its first column in view (sticky), and no tall
//     row has its tallest cell out of view; with print media at an A4
//     page's width, no code block is cut and no arm name (a table's first
//     column) or numeric run (span.k) breaks over two lines;
//
// then saves a full-page screenshot (and, with -pdf, the printed PDF).
//
//	go run ./scripts/e2e-report -page report.html -png report.png [-kinds forest,frontier] [-figures 7]
//
// It prints what it saw and exits 1 when a check fails, 2 on a usage error.
// scripts/e2e-report.sh installs Chromium when it is missing and runs this.
package main

import (
	"github.com/medteam-bench/medteam/scripts/internal/cdp"

	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	timeoutAll   = 120 * time.Second
	timeoutClose = 5 * time.Second
	windowW      = 1400
	windowH      = 900
)

// allKinds is every figure package report/plot draws.
const allKinds = "forest,frontier,reliability,agreement,risk-coverage,subjects,confusion"

type options struct {
	chromium, page, png, pdf string
	kinds                    []string
	figures                  int
}

func main() {
	var o options
	var kinds string
	flag.StringVar(&o.chromium, "chromium", "/usr/bin/chromium", "Chromium binary")
	flag.StringVar(&o.page, "page", "", "the report.html to open (required)")
	flag.StringVar(&o.png, "png", "", "where to write the full-page screenshot (required)")
	flag.StringVar(&o.pdf, "pdf", "", "where to write the page printed to PDF (optional)")
	flag.StringVar(&kinds, "kinds", allKinds, "comma-separated plot kinds that must each have a non-empty figure (\"\" for none)")
	flag.IntVar(&o.figures, "figures", -1, "exact number of figures expected (-1: any)")
	flag.Parse()
	if o.page == "" || o.png == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: e2e-report -page REPORT.html -png OUT.png [-pdf OUT.pdf] [-kinds K1,K2] [-figures N]")
		os.Exit(2)
	}
	for _, k := range strings.Split(kinds, ",") {
		if k = strings.TrimSpace(k); k != "" {
			o.kinds = append(o.kinds, k)
		}
	}
	problems, err := run(o)
	if err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Printf("e2e-report: FAIL: %s\n", p)
		}
		os.Exit(1)
	}
	fmt.Println("e2e-report: OK")
}

// run opens the page, checks it and takes the screenshot; it returns the
// failed checks, or an error when it could not look at the page at all.
func run(o options) ([]string, error) {
	abs, err := filepath.Abs(o.page)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	pageURL := (&url.URL{Scheme: "file", Path: abs}).String()
	profile, err := os.MkdirTemp("", "e2e-report-profile-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)
	w := newWatch(pageURL)
	b, err := cdp.Start(o.chromium, chromiumArgs(profile), w.event)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", o.chromium, err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeoutAll)
	defer cancel()
	problems, err := visit(ctx, b, w, o, pageURL)
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e-report: chromium's stderr (tail):\n%s\n", b.StderrTail(3000))
	}
	return problems, err
}

// chromiumArgs are the flags the project runs Chromium with: headless, no
// first-run work, nothing fetched in the background, a throwaway profile,
// and every host name resolving to nothing.
func chromiumArgs(profile string) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile,
		"--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
		"--disable-dev-shm-usage", "--mute-audio", "--hide-scrollbars",
		"--disable-features=Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider",
		"--host-resolver-rules=MAP * ~NOTFOUND",
		fmt.Sprintf("--window-size=%d,%d", windowW, windowH),
		"about:blank",
	}
}

// visit loads the page in a new tab and runs the checks.
func visit(ctx context.Context, b *cdp.Browser, w *watch, o options, pageURL string) ([]string, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	s := attached.SessionID
	for _, m := range []string{"Runtime.enable", "Log.enable", "Network.enable", "Page.enable"} {
		if err := b.Call(ctx, s, m, nil, nil); err != nil {
			return nil, err
		}
	}
	metrics := map[string]any{"width": windowW, "height": windowH, "deviceScaleFactor": 1, "mobile": false}
	if err := b.Call(ctx, s, "Emulation.setDeviceMetricsOverride", metrics, nil); err != nil {
		return nil, err
	}
	w.armLoad()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.Call(ctx, s, "Page.navigate", map[string]any{"url": pageURL}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigating to %s: %s", pageURL, nav.ErrorText)
	}
	if err := w.waitLoad(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the page's load event: %w", err)
	}
	seen, err := inspect(ctx, b, s)
	if err != nil {
		return nil, err
	}
	fmt.Printf("e2e-report: page %s (title %q)\n", pageURL, seen.Title)
	if err := capture(ctx, b, s, o); err != nil {
		return nil, err
	}
	laid, err := layout(ctx, b, s)
	if err != nil {
		return nil, err
	}
	time.Sleep(300 * time.Millisecond) // let late log entries arrive
	return append(append(w.report(), seen.check(o)...), laid...), nil
}

// capture writes the full-page screenshot, and the PDF when asked.
func capture(ctx context.Context, b *cdp.Browser, s string, o options) error {
	var lm struct {
		Content struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	if err := b.Call(ctx, s, "Page.getLayoutMetrics", nil, &lm); err != nil {
		return err
	}
	h := min(lm.Content.Height, 16000)
	clip := map[string]any{"x": 0, "y": 0, "width": windowW, "height": h, "scale": 1}
	var shot struct {
		Data string `json:"data"`
	}
	err := b.Call(ctx, s, "Page.captureScreenshot",
		map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot)
	if err != nil {
		return err
	}
	if err := writeBase64(o.png, shot.Data); err != nil {
		return err
	}
	fmt.Printf("e2e-report: screenshot %s (%d×%.0f CSS px)\n", o.png, windowW, h)
	if o.pdf == "" {
		return nil
	}
	var pdf struct {
		Data string `json:"data"`
	}
	// A4 (8.27 × 11.69 in): narrower than Letter, so a table that fits A4
	// fits Letter too.
	params := map[string]any{"printBackground": true, "paperWidth": 8.27, "paperHeight": 11.69}
	if err := b.Call(ctx, s, "Page.printToPDF", params, &pdf); err != nil {
		return err
	}
	if err := writeBase64(o.pdf, pdf.Data); err != nil {
		return err
	}
	fmt.Printf("e2e-report: printed to %s (A4)\n", o.pdf)
	return nil
}

func writeBase64(path, data string) error {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// inspectJS gathers, once the fonts are ready, what the checks need.
const inspectJS = `(async () => {
  await document.fonts.ready;
  const loaded = await document.fonts.load('10px "Liberation Sans"');
  const figures = [...document.querySelectorAll('figure[data-plot]')].map(f => {
    const svg = f.querySelector(':scope > svg');
    const r = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    const texts = svg ? [...svg.querySelectorAll('text')] : [];
    // Label collisions: every pair of non-blank texts whose boxes (as
    // rendered) share more than 1 px in both directions.
    const boxes = texts.filter(t => t.textContent.trim() !== '').map(t => ({s: t.textContent, r: t.getBoundingClientRect()}));
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) for (let j = 0; j < i; j++) {
      const a = boxes[i].r, b = boxes[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) overlaps.push(boxes[j].s + ' / ' + boxes[i].s);
    }
    return {kind: f.dataset.plot, overlaps, empty: f.dataset.empty === 'true', svg: !!svg,
      width: r.width, height: r.height,
      paths: svg ? svg.querySelectorAll('path').length : 0,
      texts: texts.length, inked: texts.filter(t => t.getComputedTextLength() > 0).length};
  });
  return JSON.stringify({title: document.title, figures, svgs: document.querySelectorAll('svg').length,
    fonts: loaded.map(f => f.family + ' ' + f.status), scripts: document.scripts.length,
    wide: document.documentElement.scrollWidth > window.innerWidth,
    height: document.documentElement.scrollHeight});
})()`

func inspect(ctx context.Context, b *cdp.Browser, s string) (seen, error) {
	val, err := b.EvalString(ctx, s, inspectJS)
	if err != nil {
		return seen{}, fmt.Errorf("inspecting the page: %w", err)
	}
	var v seen
	if err := json.Unmarshal([]byte(val), &v); err != nil {
		return seen{}, fmt.Errorf("inspecting the page: %w", err)
	}
	return v, nil
}

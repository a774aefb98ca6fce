package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/medteam-bench/medteam/scripts/internal/cdp"
)

// printWidth is the CSS width of an A4 page's text in print (8.27 in less
// the page's 1.4 cm margins): the layout checked with print media.
const printWidth = 688

// screenLayoutJS lists what a reader at the window's width cannot read:
// Markdown escapes in the text, a table wider than its wrapper whose first
// column does not stay in view (the other columns scroll away with it), and
// a tall row whose tallest cell (what makes it tall) is out of view, so the
// row looks blank.
const screenLayoutJS = `(() => {
  const out = [];
  const esc = document.body.innerText.match(/\\[_*|\x60\[\]]\S*/g);
  if (esc) out.push('Markdown escapes in the text: ' + esc.slice(0, 5).join(' '));
  const name = t => (t.caption && t.caption.textContent) || (t.closest('section') && t.closest('section').querySelector('h2').textContent) || 'a table';
  const contentBox = el => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect(); };
  for (const w of document.querySelectorAll('.table-wrap')) {
    const t = w.querySelector('table'), wr = w.getBoundingClientRect();
    const first = t.querySelector('tbody td:first-child');
    const sticky = first && getComputedStyle(first).position === 'sticky';
    if (w.scrollWidth > w.clientWidth + 1 && !sticky)
      out.push('table "' + name(t) + '": ' + w.scrollWidth + ' px wide in ' + w.clientWidth + ' px and its first column scrolls away');
    const rows = [...(t.tBodies[0] ? t.tBodies[0].rows : [])];
    const minH = Math.min(...rows.map(r => r.getBoundingClientRect().height));
    for (const r of rows) {
      if (r.getBoundingClientRect().height < 1.8 * minH) continue;
      let tall = null, h = 0;
      for (const c of r.cells) { const b = contentBox(c); if (b.height > h) { h = b.height; tall = b; } }
      if (tall && (tall.left >= wr.right - 1 || tall.right <= wr.left + 1))
        out.push('table "' + name(t) + '": row "' + r.cells[0].textContent + '" is tall with its tallest cell out of view');
    }
  }
  return JSON.stringify(out);
})()`

// printLayoutJS, run with print media at the page's width, lists code cut
// at the right edge and an arm's name (a table's first column) or a
// numeric run (span.k) broken over two lines.
const printLayoutJS = `(() => {
  const out = [];
  for (const p of document.querySelectorAll('pre'))
    if (p.scrollWidth > p.clientWidth + 1) out.push('code block cut in print (' + p.scrollWidth + ' px in ' + p.clientWidth + ' px): ' + p.textContent.slice(0, 40));
  const lines = el => { const r = document.createRange(); r.selectNodeContents(el);
    return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.bottom))).size; };
  for (const el of document.querySelectorAll('tbody td:first-child, span.k'))
    if (el.textContent.trim() !== '' && lines(el) > 1) out.push('broken over lines in print: "' + el.textContent + '"');
  return JSON.stringify(out);
})()`

// layout runs the screen checks, then the print checks with print media
// emulated at printWidth; it leaves the page in print media.
func layout(ctx context.Context, b *cdp.Browser, s string) ([]string, error) {
	screen, err := evalList(ctx, b, s, screenLayoutJS)
	if err != nil {
		return nil, err
	}
	metrics := map[string]any{"width": printWidth, "height": windowH, "deviceScaleFactor": 1, "mobile": false}
	if err := b.Call(ctx, s, "Emulation.setDeviceMetricsOverride", metrics, nil); err != nil {
		return nil, err
	}
	if err := b.Call(ctx, s, "Emulation.setEmulatedMedia", map[string]any{"media": "print"}, nil); err != nil {
		return nil, err
	}
	print, err := evalList(ctx, b, s, printLayoutJS)
	if err != nil {
		return nil, err
	}
	fmt.Printf("e2e-report: layout at %d px: %d problems; in print (%d px): %d problems\n", windowW, len(screen), printWidth, len(print))
	return append(screen, print...), nil
}

// evalList evaluates js, which returns a JSON list of strings.
func evalList(ctx context.Context, b *cdp.Browser, s, js string) ([]string, error) {
	val, err := b.EvalString(ctx, s, js)
	if err != nil {
		return nil, fmt.Errorf("checking the layout: %w", err)
	}
	var out []string
	if err := json.Unmarshal([]byte(val), &out); err != nil {
		return nil, fmt.Errorf("checking the layout: %w", err)
	}
	return out, nil
}

package htmlpage_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/medteam-bench/medteam/report/htmlpage"
	"github.com/medteam-bench/medteam/report/plot"
	"github.com/medteam-bench/medteam/report/plot/plottest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func render(t *testing.T, p htmlpage.Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := htmlpage.Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSamplePageGolden(t *testing.T) {
	p, err := samplePage()
	if err != nil {
		t.Fatal(err)
	}
	got := plottest.Normalize(render(t, p))
	path := filepath.Join("testdata", "sample.html")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/htmlpage -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the sample page differs from %s (%d bytes, want %d); if intended, run go test ./report/htmlpage -update and review the diff",
			path, len(got), len(want))
	}
}

// TestSelfContained: the page refers to nothing outside itself and is
// well-formed XML (the markup is polyglot).
func TestSelfContained(t *testing.T) {
	p, err := samplePage()
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, p)
	for _, bad := range []string{"<script", "http:", "https:", "//www.", "@import", "<link", "<iframe", "<img", "<object", "<embed"} {
		if bytes.Contains(bytes.ToLower(page), []byte(bad)) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`(?i)\b(src|href|xlink:href|action|srcset|poster)\s*=\s*"([^"]*)"`).FindAllSubmatch(page, -1) {
		if !bytes.HasPrefix(m[2], []byte("#")) {
			t.Errorf("%s=%q refers outside the page", m[1], m[2])
		}
	}
	for _, m := range regexp.MustCompile(`url\(([^)]{0,20})`).FindAllSubmatch(page, -1) {
		if !bytes.HasPrefix(m[1], []byte("data:")) {
			t.Errorf("url(%s…) is not a data: URL", m[1])
		}
	}
	if n := bytes.Count(page, []byte(plot.FontFaceCSS())); n != 1 {
		t.Errorf("the font is stated %d times, want once", n)
	}
	if n := bytes.Count(page, []byte("<figure data-plot=")); n != 7 {
		t.Errorf("%d figures, want 7", n)
	}
	checkXML(t, page)
}

func checkXML(t *testing.T, page []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	dec.Strict = true
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			stack = append(stack, el.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unclosed elements: %v", stack)
	}
}

func TestEscaping(t *testing.T) {
	evil := `<script>alert("x")</script> & 'q' <img src=http://x/>`
	page := render(t, htmlpage.Page{
		Title:  evil,
		Run:    []htmlpage.KV{{Key: evil, Value: evil}},
		Footer: evil,
		Sections: []htmlpage.Section{
			{Heading: evil, Text: evil + "\n\n- " + evil + "\n\n`" + evil + "`\n\n```\n" + evil + "\n```"},
			{Heading: "t", Tables: []htmlpage.Table{{Caption: evil, Header: []string{evil}, Rows: [][]string{{evil}}}}},
		},
	})
	if bytes.Contains(page, []byte("<script")) || bytes.Contains(page, []byte("<img")) {
		t.Fatal("markup from the caller reached the page unescaped")
	}
	if !bytes.Contains(page, []byte("&lt;script&gt;")) {
		t.Error("escaped text missing")
	}
	checkXML(t, page)
}

func TestRejectsForeignSVG(t *testing.T) {
	good, err := plot.Forest(plottest.Forest())
	if err != nil {
		t.Fatal(err)
	}
	strip := plot.StripFont(good)
	inject := func(s string) []byte {
		i := bytes.Index(strip, []byte("<g "))
		return append(append(append([]byte{}, strip[:i]...), s...), strip[i:]...)
	}
	cases := map[string][]byte{
		"not svg":        []byte(`<div data-plot="x"></div>`),
		"script":         inject(`<script>alert(1)</script>`),
		"event handler":  bytes.Replace(strip, []byte("<svg "), []byte(`<svg onload="alert(1)" `), 1),
		"link":           inject(`<a href="https://example.org"><text>x</text></a>`),
		"foreign object": inject(`<foreignObject><div/></foreignObject>`),
		"style url":      inject(`<path style="fill:url(https://example.org/x)"/>`),
		"style element":  inject(`<style>@import "x.css";</style>`),
		"image":          inject(`<image href="x.png"/>`),
		"comment":        inject(`<!-- x -->`),
		"no kind":        bytes.Replace(strip, []byte(`data-plot="forest"`), []byte(`data-x="forest"`), 1),
		"two roots":      append(append([]byte{}, strip...), strip...),
		"broken":         strip[:len(strip)/2],
	}
	for name, svg := range cases {
		err := htmlpage.Write(io.Discard, htmlpage.Page{Sections: []htmlpage.Section{{Figures: []htmlpage.Figure{{SVG: svg}}}}})
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	before := append([]byte{}, good...)
	page := render(t, htmlpage.Page{Sections: []htmlpage.Section{{Figures: []htmlpage.Figure{{SVG: good}, {SVG: strip}}}}})
	if !bytes.Equal(before, good) {
		t.Error("Write changed the caller's SVG bytes")
	}
	if n := bytes.Count(page, []byte(plot.FontFaceCSS())); n != 1 {
		t.Errorf("font stated %d times", n)
	}
}

func TestEmptyFigureIsMarked(t *testing.T) {
	svg, err := plot.Forest(nil)
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, htmlpage.Page{Sections: []htmlpage.Section{{Heading: "x", Figures: []htmlpage.Figure{{SVG: svg}}}}})
	if !bytes.Contains(page, []byte(`<figure data-plot="forest" data-empty="true">`)) {
		t.Error("an empty figure is not marked data-empty")
	}
}

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"one\ntwo\n\nthree", "<p>one two</p>\n<p>three</p>"},
		{"- a\n- b `c`\n  more\nafter", "<ul>\n<li>a</li>\n<li>b <code>c</code> more</li>\n</ul>\n<p>after</p>"},
		{"```\n  x < y\n\n z\n```\ntail", "<pre><code>  x &lt; y\n\n z</code></pre>\n<p>tail</p>"},
		{"a `b", "<p>a `b</p>"},
		{"", ""},
		// Markdown escapes (report.md's text) do not show.
		{`column first\_prompt, 2 \* 3, a\|b, \[x\]\(y\), back\\slash`, "<p>column first_prompt, 2 * 3, a|b, [x](y), back\\slash</p>"},
		{"p &lt;0.001 &amp; R&amp;D, &lt;b&gt; &copy;", "<p>p &lt;0.001 &amp; R&amp;D, &lt;b&amp;gt; &amp;copy;</p>"},
		{"a literal \\` and `code\\_x \\| y`", "<p>a literal ` and <code>code\\_x | y</code></p>"},
		{"```\nfirst\\_prompt &lt;\n```", "<pre><code>first\\_prompt &amp;lt;</code></pre>"},
	}
	for _, c := range cases {
		page := string(render(t, htmlpage.Page{Sections: []htmlpage.Section{{Heading: "H", Text: c.in}}}))
		start := strings.Index(page, "<h2>H</h2>\n") + len("<h2>H</h2>\n")
		end := strings.Index(page, "\n</div>\n</section>")
		if got := page[start:max(start, end)]; got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestAlignment(t *testing.T) {
	table := htmlpage.Table{
		Header: []string{"arm", "acc", "ci", "n", "p", "mixed", "forced", "units"},
		Rows: [][]string{
			{"base", "61.2%", "[58.5, 63.8]", "1,273", "p = 0.03", "12", "x", "3.2 s"},
			{"c5", "−2.1", "[−5.2, +0.9]", "—", "0.31", "n/a", "y", "120 ms"},
			{"full", "+0.4", "(0.1–0.7)", "", "<0.001", "twelve", "z", "4.5 pp"},
		},
		Align: []htmlpage.Align{htmlpage.AlignAuto, htmlpage.AlignAuto, htmlpage.AlignAuto, htmlpage.AlignAuto,
			htmlpage.AlignAuto, htmlpage.AlignAuto, htmlpage.AlignCenter},
	}
	page := string(render(t, htmlpage.Page{Sections: []htmlpage.Section{{Tables: []htmlpage.Table{table}}}}))
	header := page[strings.Index(page, "<thead>"):strings.Index(page, "</thead>")]
	want := []string{"l", "r", "r", "r", "l", "l", "c", "r"}
	got := regexp.MustCompile(`<th class="(\w)"`).FindAllStringSubmatch(header, -1)
	if len(got) != len(want) {
		t.Fatalf("%d header cells, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i][1] != want[i] {
			t.Errorf("column %q: class %q, want %q", table.Header[i], got[i][1], want[i])
		}
	}
}

// TestNumbersKeptTogether: a numeric cell with spaces is written as runs a
// line may not break inside (class k), breaking only before an interval;
// "none" and "— [—]" leave a numeric column numeric.
func TestNumbersKeptTogether(t *testing.T) {
	table := htmlpage.Table{
		Header: []string{"arm", "Δ", "MDE", "b / c", "ECE", "tokens", "p"},
		Rows: [][]string{
			{"full/n3", "+6.00 [+6.00, +6.00]", "16.4 pp", "0 / 2", "0.273 [0.228, 0.330]", "6132 (6052, 7385)", "0.5000"},
			{"zeroshot", "−10.00 [−10.00, −10.00]", "none", "6 / 3", "— [—]", "289 (285, 402)", "0.5078"},
		},
	}
	page := string(render(t, htmlpage.Page{Sections: []htmlpage.Section{{Tables: []htmlpage.Table{table}}}}))
	body := page[strings.Index(page, "<tbody>"):strings.Index(page, "</tbody>")]
	for _, want := range []string{
		`<td class="l">full/n3</td>`,
		`<td class="r"><span class="k">&#43;6.00</span> <span class="k">[&#43;6.00, &#43;6.00]</span></td>`,
		`<td class="r"><span class="k">16.4 pp</span></td>`,
		`<td class="r"><span class="k">0 / 2</span></td>`,
		`<td class="r"><span class="k">0.273</span> <span class="k">[0.228, 0.330]</span></td>`,
		`<td class="r"><span class="k">6132</span> <span class="k">(6052, 7385)</span></td>`,
		`<td class="r">0.5000</td>`,
		`<td class="r">none</td>`,
		`<td class="r"><span class="k">—</span> <span class="k">[—]</span></td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
	css := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
	for _, rule := range []string{
		".k { white-space: nowrap; }",
		"position: sticky; left: 0;",
		"pre { white-space: pre-wrap;",
		"td { white-space: normal; overflow-wrap: normal; }",
	} {
		if !strings.Contains(css, rule) {
			t.Errorf("the page's CSS lacks %q", rule)
		}
	}
}

// FuzzWrite: whatever text the caller gives, the page stays well-formed
// and the text never becomes markup.
func FuzzWrite(f *testing.F) {
	f.Add("title", "para\n\n- item `code`\n```\nx\n```", "cell", "12.5%")
	f.Add("<b>", "<script>x</script>\x00\x0b\r\n\xff", "&amp;", "]]>")
	f.Fuzz(func(t *testing.T, title, text, cell, num string) {
		page := render(t, htmlpage.Page{
			Title: title, Run: []htmlpage.KV{{Key: cell, Value: num}}, Footer: text,
			Sections: []htmlpage.Section{{Heading: title, Text: text,
				Tables: []htmlpage.Table{{Caption: text, Header: []string{cell, num}, Rows: [][]string{{num, cell}, {cell}}}}}},
		})
		checkXML(t, page)
		if n := bytes.Count(page, []byte("<")); n != bytes.Count(render(t, htmlpage.Page{
			Title: "t", Run: []htmlpage.KV{{Key: "c", Value: "n"}}, Footer: text,
			Sections: []htmlpage.Section{{Heading: "t", Text: text,
				Tables: []htmlpage.Table{{Caption: text, Header: []string{"c", "n"}, Rows: [][]string{{"n", "c"}, {"c"}}}}}},
		}), []byte("<")) {
			t.Errorf("text in the title, run, header or cells changed the markup (%d tags)", n)
		}
	})
}

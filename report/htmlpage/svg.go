package htmlpage

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/medteam-bench/medteam/report/plot"
)

// The SVG namespace is implied for <svg> inside HTML; dropping the
// declaration keeps every URL-looking string out of the page.
var svgNS = []byte(` xmlns="http://www.w3.org/2000/svg"`)

func fontCSS() string { return plot.FontFaceCSS() }

// buildFigure checks a figure's SVG and prepares it for inlining: the
// embedded font is dropped (the page states it once) and so is the
// namespace declaration. hadFont reports whether the SVG carried the font.
func buildFigure(f Figure) (v figureView, hadFont bool, err error) {
	svg := plot.StripFont(f.SVG)
	hadFont = len(svg) != len(f.SVG)
	if i := bytes.Index(svg, svgNS); i >= 0 && i < bytes.IndexByte(svg, '>') {
		svg = append(svg[:i:i], svg[i+len(svgNS):]...) // a copy: cap i forces one
	}
	kind, empty, err := checkSVG(svg)
	if err != nil {
		return v, false, err
	}
	return figureView{
		Kind:    kind,
		Empty:   empty,
		SVG:     template.HTML(svg), // checked above: an SVG drawing with no active content
		Caption: clean(f.Caption),
	}, hadFont, nil
}

// checkSVG accepts only what package plot writes: one well-formed <svg>
// element with a data-plot kind, made of drawing elements, with no script,
// style sheet, link, foreign content, event handler, URL reference,
// comment, CDATA section, processing instruction or directive. This is what
// makes inlining it as trusted HTML safe.
func checkSVG(svg []byte) (kind string, empty bool, err error) {
	if !bytes.HasPrefix(svg, []byte("<svg ")) {
		return "", false, errors.New("not an SVG element from report/plot")
	}
	if bytes.Contains(svg, []byte("<!")) || bytes.Contains(svg, []byte("<?")) {
		return "", false, errors.New("SVG has a comment, CDATA section, directive or processing instruction")
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", false, fmt.Errorf("SVG is not well-formed: %w", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if err := checkElement(el, depth); err != nil {
				return "", false, err
			}
			if depth == 0 {
				kind, empty = rootAttrs(el)
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(el)) > 0 {
				return "", false, errors.New("text outside the <svg> element")
			}
		default:
			return "", false, fmt.Errorf("unexpected %T in SVG", tok)
		}
	}
	if !validKind(kind) {
		return "", false, fmt.Errorf("SVG root has no valid data-plot kind (got %q)", kind)
	}
	return kind, empty, nil
}

// drawing is every element package plot (through gonum's vgsvg) writes.
var drawing = map[string]bool{"svg": true, "g": true, "path": true, "text": true, "defs": true}

func checkElement(el xml.StartElement, depth int) error {
	name := el.Name.Local
	if depth == 0 && name != "svg" || depth > 0 && name == "svg" {
		return errors.New("SVG must be a single <svg> element")
	}
	if !drawing[name] || el.Name.Space != "" {
		return fmt.Errorf("element <%s> is not allowed in a figure", name)
	}
	for _, a := range el.Attr {
		if err := checkAttr(a); err != nil {
			return fmt.Errorf("attribute %s on <%s> %w", a.Name.Local, name, err)
		}
	}
	return nil
}

// checkAttr rejects event handlers, links, namespaced attributes and any
// value that could load or run something.
func checkAttr(a xml.Attr) error {
	n := strings.ToLower(a.Name.Local)
	if a.Name.Space != "" || strings.HasPrefix(n, "on") || strings.Contains(n, "href") || n == "xmlns" {
		return errors.New("is not allowed in a figure")
	}
	v := strings.ToLower(a.Value)
	for _, bad := range []string{"url(", "javascript:", "@import", "expression("} {
		if strings.Contains(v, bad) {
			return errors.New("refers to something")
		}
	}
	return nil
}

func rootAttrs(el xml.StartElement) (kind string, empty bool) {
	for _, a := range el.Attr {
		switch a.Name.Local {
		case "data-plot":
			kind = a.Value
		case "data-empty":
			empty = a.Value == "true"
		}
	}
	return kind, empty
}

func validKind(k string) bool {
	if k == "" || len(k) > 40 {
		return false
	}
	for _, r := range k {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

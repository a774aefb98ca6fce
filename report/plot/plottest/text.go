package plottest

import (
	"bytes"
	"compress/zlib"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf16"

	"github.com/medteam-bench/medteam/report/plot"
)

// SVGText is the text of every <text> element of a figure's SVG, in
// document order (entities decoded), empty ones left out.
func SVGText(svg []byte) ([]string, error) {
	dec := xml.NewDecoder(bytes.NewReader(plot.StripFont(svg)))
	var out []string
	var cur *bytes.Buffer
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("svg: %w", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "text" {
				cur = new(bytes.Buffer)
			}
		case xml.CharData:
			if cur != nil {
				cur.Write(el)
			}
		case xml.EndElement:
			if el.Name.Local == "text" && cur != nil {
				if cur.Len() > 0 {
					out = append(out, cur.String())
				}
				cur = nil
			}
		}
	}
}

var (
	streamRE = regexp.MustCompile(`<<([^>]*)>>\s*stream\r?\n`)
	lengthRE = regexp.MustCompile(`/Length (\d+)\b`)
	// fpdf draws a string as "BT x y Td (utf-16) Tj ET".
	showRE = regexp.MustCompile(`BT -?[0-9.]+ -?[0-9.]+ Td \(`)
)

// PDFText is every string drawn in a PDF written by package pdfcanvas, in
// drawing order: a reader for that writer's output only (Flate content
// streams, strings in UTF-16BE as Identity-H codes), for tests that run
// without poppler's pdftotext. Text a PDF writes in another encoding (a
// cp1252 font) comes out garbled, as it would from a PDF reader.
func PDFText(pdf []byte) ([]string, error) {
	var out []string
	for _, m := range streamRE.FindAllSubmatchIndex(pdf, -1) {
		dict := pdf[m[2]:m[3]]
		n := lengthRE.FindSubmatch(dict)
		if !bytes.Contains(dict, []byte("/FlateDecode")) || n == nil {
			continue
		}
		size, err := strconv.Atoi(string(n[1]))
		if err != nil || m[1]+size > len(pdf) {
			return nil, fmt.Errorf("pdf: stream length %s past the end of the file", n[1])
		}
		zr, err := zlib.NewReader(bytes.NewReader(pdf[m[1] : m[1]+size]))
		if err != nil {
			continue // not a zlib stream: nothing drawn in it
		}
		content, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("pdf: inflating a stream: %w", err)
		}
		for _, loc := range showRE.FindAllIndex(content, -1) {
			raw, ok := pdfString(content[loc[1]:])
			if !ok {
				return nil, fmt.Errorf("pdf: unterminated string at %.40q", content[loc[1]:])
			}
			if len(raw)%2 != 0 {
				out = append(out, string(raw)) // not UTF-16: keep the bytes as they are
				continue
			}
			units := make([]uint16, len(raw)/2)
			for i := range units {
				units[i] = uint16(raw[2*i])<<8 | uint16(raw[2*i+1])
			}
			out = append(out, string(utf16.Decode(units)))
		}
	}
	return out, nil
}

// pdfString reads a literal string's bytes up to its closing parenthesis
// (b starts after the opening one), undoing backslash escapes.
func pdfString(b []byte) ([]byte, bool) {
	var out []byte
	depth := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '\\':
			i++
			if i == len(b) {
				return nil, false
			}
			switch b[i] {
			case 'r':
				out = append(out, '\r')
			case 'n':
				out = append(out, '\n')
			default:
				out = append(out, b[i])
			}
		case '(':
			depth++
			out = append(out, c)
		case ')':
			if depth == 0 {
				return out, true
			}
			depth--
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return nil, false
}

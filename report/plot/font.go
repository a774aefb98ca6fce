package plot

import (
	"bytes"
	"encoding/base64"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// Every figure sets its text in Liberation Sans Regular (SIL Open Font
// License, which allows embedding it in documents) and carries the font
// as a @font-face rule with a data: URL, in one <defs><style> block right
// after the root's start tag.
const (
	fontDefsOpen  = "<defs><style data-font=\"liberation-sans\">"
	fontDefsClose = "</style></defs>\n"
)

var fontCSS = sync.OnceValue(func() string {
	return `@font-face{font-family:"Liberation Sans";font-style:normal;font-weight:normal;` +
		`src:url(data:font/ttf;base64,` + base64.StdEncoding.EncodeToString(liberationsansregular.TTF) +
		`) format("truetype")}`
})

var fontDefsBlock = sync.OnceValue(func() string { return fontDefsOpen + fontCSS() + fontDefsClose })

func fontDefs() string { return fontDefsBlock() }

// FontFaceCSS is the @font-face rule every figure embeds. A page that
// inlines several figures can state it once (in its own <style>) and drop
// the figures' copies with StripFont.
func FontFaceCSS() string { return fontCSS() }

// StripFont returns svg without its embedded font block (the figure then
// needs FontFaceCSS from its page); svg is returned as is when it has none.
func StripFont(svg []byte) []byte {
	block := []byte(fontDefs())
	i := bytes.Index(svg, block)
	if i < 0 {
		return svg
	}
	out := make([]byte, 0, len(svg)-len(block))
	out = append(out, svg[:i]...)
	return append(out, svg[i+len(block):]...)
}

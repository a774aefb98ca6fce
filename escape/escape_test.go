package escape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ü 医生", "plain text, ü 医生"},
		{"red \x1b[31mALERT\x1b[0m", `red \x1b[31mALERT\x1b[0m`},
		{"title \x1b]0;pwned\x07", `title \x1b]0;pwned\x07`},
		{"a\nb\rc\td\x08", `a\x0ab\x0dc\x09d\x08`},
		{"csi \u009b31m", `csi \x9b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff byte", `bad \xff byte`},
		{"del\x7f", `del\x7f`},
	} {
		if got := Terminal(c.in); got != c.want {
			t.Errorf("Terminal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := TerminalBlock("line 1\nline\x1b[2J 2\tx"); got != "line 1\nline\\x1b[2J 2\tx" {
		t.Errorf("TerminalBlock: %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Cardiology", "Cardiology"},
		{"a | b", `a \| b`},
		{"row\nbreak", "row break"},
		{"<script>alert(1)</script>", `&lt;script>alert(1)&lt;/script>`},
		{`<img src=x onerror="alert(1)">`, `&lt;img src=x onerror="alert(1)">`},
		{"p <0.001 & q", "p <0.001 & q"},
		{"&lt; &#60;", "&amp;lt; &amp;#60;"},
		{"[click](javascript:alert(1))", `[click\](javascript:alert(1))`},
		{"**bold** _it_ `code` \\", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\\\"},
		{"esc \x1b[31m", `esc \x1b[31m`},
		{"50.0% [29.9, 70.1]", "50.0% [29.9, 70.1]"},
		{"![img](x) [a][b]", `![img\](x) [a\][b]`},
	} {
		if got := Markdown(c.in); got != c.want {
			t.Errorf("Markdown(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"full/n3", "full/n3"},
		{"a`b|c\nd", `a'b\|c d`},
		{"<b>", "<b>"},
	} {
		if got := Code(c.in); got != c.want {
			t.Errorf("Code(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := HTML(`<a href="x">&</a>` + "\x1b"); got != `&lt;a href=&#34;x&#34;&gt;&amp;&lt;/a&gt;\x1b` {
		t.Errorf("HTML: %q", got)
	}
}

// FuzzEscape: whatever the input, Terminal and Markdown leave no control
// character, no line break, and valid UTF-8; Markdown leaves no unescaped
// pipe and no '<' before a letter.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a|b", "x\ny", "\x1b[31m", "<script>", "\xff", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Terminal": Terminal(s), "Markdown": Markdown(s), "Code": Code(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: invalid UTF-8", name, s, out)
			}
			for _, r := range out {
				if invisible(r) {
					t.Fatalf("%s(%q) = %q keeps %U", name, s, out, r)
				}
			}
		}
		md := Markdown(s)
		for i := 0; i < len(md); i++ {
			if md[i] == '|' && (i == 0 || md[i-1] != '\\') {
				t.Fatalf("Markdown(%q) = %q: unescaped pipe", s, md)
			}
			if md[i] == '<' && startsTag(md[i+1:]) {
				t.Fatalf("Markdown(%q) = %q: a tag", s, md)
			}
		}
		if strings.Contains(TerminalBlock(s), "\x1b") {
			t.Fatalf("TerminalBlock(%q) keeps ESC", s)
		}
	})
}

package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFigures writes every figure of the report into dir, for a paper:
// NAME.svg (standalone, font embedded), NAME.pdf (vector), NAME.txt (the
// caption) and NAME.tex (a LaTeX figure environment that includes NAME.pdf
// with the caption and the label fig:NAME). It returns the paths written.
func WriteFigures(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: figures directory %s: %w", dir, err)
	}
	var paths []string
	seen := map[string]int{}
	for _, f := range reportFigures(r) {
		name := f.Name
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, seen[name])
		}
		svg, err := f.Fig.SVG()
		if err != nil {
			return paths, fmt.Errorf("report: figure %s: %w", name, err)
		}
		pdf, err := f.Fig.PDF()
		if err != nil {
			return paths, fmt.Errorf("report: figure %s: %w", name, err)
		}
		for _, out := range []struct {
			ext  string
			data []byte
		}{
			{".svg", svg}, {".pdf", pdf},
			{".txt", []byte(f.Caption + "\n")},
			{".tex", []byte(texFigure(name, f.Caption))},
		} {
			path := filepath.Join(dir, name+out.ext)
			if err := os.WriteFile(path, out.data, 0o644); err != nil {
				return paths, fmt.Errorf("report: write %s: %w", path, err)
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// texFigure is a LaTeX figure environment for NAME.pdf with caption.
func texFigure(name, caption string) string {
	return "\\begin{figure}[t]\n  \\centering\n  \\includegraphics[width=\\linewidth]{" + name + ".pdf}\n" +
		"  \\caption{" + texEscape(caption) + "}\n  \\label{fig:" + name + "}\n\\end{figure}\n"
}

// texEscape escapes LaTeX's special characters in s.
func texEscape(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, `%`, `\%`, `&`, `\&`, `#`, `\#`, `$`, `\$`,
		`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`)
	return r.Replace(s)
}

// fileStem makes s a safe file name stem: letters, digits, '.', '-' and
// '_' kept, anything else a '-'.
func fileStem(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

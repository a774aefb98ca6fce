// Command doclinks checks the project's Markdown documentation: README.md is
// a front door of at most -max-readme lines, and every relative link in
// README.md and docs/*.md resolves to a file or folder of the repository and,
// where it names a #fragment of a Markdown file, to a heading of that file
// (GitHub's anchor rules); README.md links every docs page and each page
// links back. It prints each problem as file:line and exits 1 when there is
// one:
//
//	go run ./scripts/doclinks .
//
// Links inside code blocks and code spans are not links; links with a scheme
// (https:, mailto:) are not checked.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	maxReadme := flag.Int("max-readme", MaxReadmeLines, "most lines README.md may have")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: doclinks [-max-readme N] [ROOT]")
		flag.PrintDefaults()
	}
	flag.Parse()
	root := "."
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	if flag.NArg() == 1 {
		root = flag.Arg(0)
	}
	os.Exit(run(os.Stdout, root, *maxReadme))
}

func run(w io.Writer, root string, maxReadme int) int {
	problems, err := Check(root, maxReadme)
	if err != nil {
		fmt.Fprintln(w, "doclinks:", err)
		return 2
	}
	for _, p := range problems {
		fmt.Fprintln(w, p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(w, "doclinks: %d problem(s) in README.md and docs/*.md\n", len(problems))
		return 1
	}
	return 0
}

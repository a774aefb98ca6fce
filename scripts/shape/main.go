// Command shape checks the size limits the project keeps on its non-test Go
// code: no file over 700 lines, no function (or function literal) over 60
// lines, no function of cyclomatic complexity over 15 (counted as gocyclo
// does: 1 + each if, for, range, non-default case and comm clause, && and
// ||). It prints each breach as file:line and exits 1 when there is one.
//
//	go run ./scripts/shape .
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limits.
const (
	maxFileLines = 700
	maxFuncLines = 60
	maxCyclo     = 15
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var breaches []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := check(path)
		breaches = append(breaches, b...)
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(2)
	}
	for _, b := range breaches {
		fmt.Println(b)
	}
	if len(breaches) > 0 {
		fmt.Fprintf(os.Stderr, "shape: %d breach(es) of the limits (file %d lines, function %d lines, complexity %d): split them\n", len(breaches), maxFileLines, maxFuncLines, maxCyclo)
		os.Exit(1)
	}
}

// check returns the breaches of one file.
func check(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	if n := fset.Position(f.End()).Line; n > maxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines (limit %d)", path, n, maxFileLines))
	}
	ast.Inspect(f, func(n ast.Node) bool {
		name, body := funcOf(n)
		if body == nil {
			return true
		}
		pos := fset.Position(n.Pos())
		if l := fset.Position(body.Rbrace).Line - pos.Line + 1; l > maxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines (limit %d)", path, pos.Line, name, l, maxFuncLines))
		}
		if fd, ok := n.(*ast.FuncDecl); ok {
			if c := complexity(fd); c > maxCyclo {
				out = append(out, fmt.Sprintf("%s:%d: %s has complexity %d (limit %d)", path, pos.Line, name, c, maxCyclo))
			}
		}
		return true
	})
	return out, nil
}

// funcOf returns the name and body of a function declaration or literal.
func funcOf(n ast.Node) (string, *ast.BlockStmt) {
	switch x := n.(type) {
	case *ast.FuncDecl:
		return x.Name.Name, x.Body
	case *ast.FuncLit:
		return "function literal", x.Body
	}
	return "", nil
}

// complexity is the cyclomatic complexity of a function, literals inside it
// included (as gocyclo counts).
func complexity(fd *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fd, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if x.List != nil {
				c++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

package parsers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines bounds a parser's functions: a message grammar that grows
// past it becomes a table of templates (vitess stepTemplates, memcached
// ctxTemplates, crdb healthReads), each entry with the upstream source it
// follows, rather than one more case of a switch.
const maxFuncLines = 120

func TestParserFunctionsStaySmall(t *testing.T) {
	fset := token.NewFileSet()
	funcs := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch n := n.(type) {
			case *ast.FuncDecl:
				body, name = n.Body, n.Name.Name
			case *ast.FuncLit:
				body = n.Body
			default:
				return true
			}
			if body == nil {
				return true
			}
			funcs++
			start, end := fset.Position(n.Pos()), fset.Position(body.End())
			if lines := end.Line - start.Line + 1; lines > maxFuncLines {
				t.Errorf("%s: %s is %d lines; split it or make its cases a table (at most %d)", start, name, lines, maxFuncLines)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if funcs < 500 {
		t.Errorf("found %d functions under parsers/; the test is not looking at them", funcs)
	}
}

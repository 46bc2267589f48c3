package parsers_test

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"forensics"
	"forensics/parsers"
)

// Attribute keys are written once, in the attrs.go of the parser package
// that sets them, as constants of type forensics.AttrKey: no string literal
// and no conversion makes a key anywhere else in the program (test helpers
// aside), and a parser builds attributes only through Event.Set and
// forensics.NewAttr, so a key is documented where it is declared and a
// renamed or dropped key breaks the build. Every declared key is on some
// kind's doc and is written by a parser (cbgo.SetKeyspace writes the
// keyspace of indexer and projector).
func TestAttributeKeysAreDeclared(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: ".."}
	pkgs, err := packages.Load(cfg, "forensics/...")
	if err != nil {
		t.Fatal(err)
	}
	var keyType types.Type
	for _, p := range pkgs {
		if p.PkgPath == "forensics" {
			keyType = p.Types.Scope().Lookup("AttrKey").Type()
		}
	}
	if keyType == nil {
		t.Fatal("forensics.AttrKey not found")
	}
	documented := map[forensics.AttrKey]bool{}
	for _, k := range parsers.Kinds() {
		for _, a := range k.Attrs {
			documented[a.Key] = true
		}
	}
	isKey := func(tv types.TypeAndValue) bool { return tv.Type != nil && types.Identical(tv.Type, keyType) }
	var declared []*types.Const
	var fset *token.FileSet
	written := map[string]int{}   // uses of a key constant outside the declarations, by key
	listed := map[ast.Expr]bool{} // the keys a kind's doc lists, which are not writes
	for _, p := range pkgs {
		fset = p.Fset
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		// Test helpers (ruletest, storetest) build events of any key.
		helper := strings.HasSuffix(p.PkgPath, "test") || p.PkgPath == "forensics"
		parser := strings.HasPrefix(p.PkgPath, "forensics/parsers/") && !helper
		for _, file := range p.Syntax {
			name := p.Fset.File(file.Pos()).Name()
			decl := parser && filepath.Base(name) == "attrs.go"
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BasicLit:
					if isKey(p.TypesInfo.Types[n]) && !decl && !helper {
						t.Errorf("%s: attribute key %s written as a literal; declare it in the parser package's attrs.go", p.Fset.Position(n.Pos()), n.Value)
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Of" && types.TypeString(p.TypesInfo.TypeOf(sel.X), nil) == "forensics.AttrDocs" {
						for _, a := range n.Args {
							listed[a] = true
						}
					}
					if tv := p.TypesInfo.Types[n.Fun]; tv.IsType() && isKey(tv) && !decl && !helper {
						t.Errorf("%s: conversion to an attribute key; use a constant of a parser package's attrs.go", p.Fset.Position(n.Pos()))
					}
				case *ast.CompositeLit:
					if tv := p.TypesInfo.Types[n]; parser && tv.Type != nil && types.TypeString(tv.Type, nil) == "forensics.Attr" {
						t.Errorf("%s: an attribute built field by field; use Event.Set or forensics.NewAttr with a declared key", p.Fset.Position(n.Pos()))
					}
				case *ast.Ident:
					if c, ok := p.TypesInfo.Uses[n].(*types.Const); ok && parser && !decl && !listed[n] && types.Identical(c.Type(), keyType) {
						written[constant.StringVal(c.Val())]++
					}
				}
				return true
			})
			if !decl {
				continue
			}
			for id, obj := range p.TypesInfo.Defs {
				if c, ok := obj.(*types.Const); ok && types.Identical(c.Type(), keyType) && p.Fset.File(id.Pos()).Name() == name {
					declared = append(declared, c)
				}
			}
		}
	}
	for _, c := range declared {
		at := fset.Position(c.Pos())
		key := constant.StringVal(c.Val())
		if !documented[forensics.AttrKey(key)] {
			t.Errorf("%s: %s (%q) is on no kind's Attrs", at, c.Name(), key)
		}
		if written[key] == 0 {
			t.Errorf("%s: %s is declared and never written", at, c.Name())
		}
	}
	if len(declared) < 100 {
		t.Errorf("found %d declared attribute keys; the test is not looking at the parser packages", len(declared))
	}
}

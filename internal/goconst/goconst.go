// Package goconst reads the string constants a Go package declares, so tests
// can hold a hand-kept list (an SQL CHECK set, a "every value" function)
// to the constants themselves: a constant added in one place and not the
// other fails the test instead of drifting.
package goconst

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Const is one string constant: its name, its declared type ("" when
// untyped) and its value.
type Const struct {
	Name  string
	Type  string
	Value string
}

// Read parses the non-test Go files of dir and returns its string
// constants, in file and declaration order. Constants whose value is not a
// plain string literal (iota, expressions) are skipped.
func Read(dir string) ([]Const, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read constants of %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	var out []Const
	for _, n := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("read constants of %s: %w", dir, err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			out = append(out, specConsts(g)...)
		}
	}
	return out, nil
}

// specConsts are the string literal constants of one const block.
func specConsts(g *ast.GenDecl) []Const {
	var out []Const
	for _, s := range g.Specs {
		vs := s.(*ast.ValueSpec)
		typ := ""
		if id, ok := vs.Type.(*ast.Ident); ok {
			typ = id.Name
		}
		for i, name := range vs.Names {
			if i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				continue
			}
			out = append(out, Const{Name: name.Name, Type: typ, Value: v})
		}
	}
	return out
}

// OfType returns the values of the constants declared with type typ, sorted.
func OfType(cs []Const, typ string) []string {
	var out []string
	for _, c := range cs {
		if c.Type == typ {
			out = append(out, c.Value)
		}
	}
	sort.Strings(out)
	return out
}

// WithPrefix returns the values of the untyped constants whose name starts
// with prefix, sorted.
func WithPrefix(cs []Const, prefix string) []string {
	var out []string
	for _, c := range cs {
		if c.Type == "" && strings.HasPrefix(c.Name, prefix) {
			out = append(out, c.Value)
		}
	}
	sort.Strings(out)
	return out
}

// Package apicheck finds exported identifiers of the public packages (pkg/...)
// whose types name a package under an internal/ directory. Go refuses a
// foreign module's internal/ packages, so such an identifier is unusable to a
// program that embeds the core: a leak, reported here so CI fails on it.
package apicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// Leak is one exported identifier whose type names an internal package.
type Leak struct {
	// Package is the import path of the public package that declares it.
	Package string
	// Name is the identifier as a user writes it: Func, Type, Type.Field or Type.Method.
	Name string
	// Internal is the internal type it names, package path included.
	Internal string
}

// String reads as one line of a report.
func (l Leak) String() string {
	return fmt.Sprintf("%s.%s names %s", l.Package, l.Name, l.Internal)
}

// IsInternal reports whether Go restricts the import path to its own module
// tree: it has a path element named "internal".
func IsInternal(path string) bool {
	for _, e := range strings.Split(path, "/") {
		if e == "internal" {
			return true
		}
	}
	return false
}

// listed is what the checks read of one package of go list -json.
type listed struct {
	ImportPath string
	Export     string
	Name       string
	GoFiles    []string
	Imports    []string
	Error      *struct{ Err string }
}

// listPackages runs go list -json=fields with args in dir and decodes each
// package; a package go list could not load is an error naming it.
func listPackages(dir, fields string, args ...string) ([]listed, error) {
	out, err := goList(dir, append([]string{"-e", "-json=" + fields}, args...))
	if err != nil {
		return nil, err
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list output: %w", err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
}

// Check lists the packages matching patterns in dir with the go command,
// loads their compiled export data and returns every leak, sorted.
func Check(dir string, patterns ...string) ([]Leak, error) {
	pkgs, err := listPackages(dir, "ImportPath,Export,Name,Error", append([]string{"-export", "-deps"}, patterns...)...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	roots, err := rootsOf(dir, patterns)
	if err != nil {
		return nil, err
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var leaks []Leak
	for _, path := range roots {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
		leaks = append(leaks, packageLeaks(pkg)...)
	}
	sort.Slice(leaks, func(i, j int) bool { return leaks[i].String() < leaks[j].String() })
	return leaks, nil
}

// rootsOf returns the import paths the patterns match, without dependencies.
func rootsOf(dir string, patterns []string) ([]string, error) {
	out, err := goList(dir, append([]string{"-e"}, patterns...))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// goList runs go list with args in dir and returns its standard output.
func goList(dir string, args []string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %w: %s", dir, err, stderr.String())
	}
	return out, nil
}

// packageLeaks walks the exported API of one package.
func packageLeaks(pkg *types.Package) []Leak {
	w := walker{pkg: pkg}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			w.typeName(obj)
		default: // funcs, vars, consts
			w.typ(name, obj.Type())
		}
	}
	return w.leaks
}

type walker struct {
	pkg   *types.Package
	leaks []Leak
	seen  map[types.Type]bool
}

func (w *walker) typeName(obj *types.TypeName) {
	name := obj.Name()
	if alias, ok := obj.Type().(*types.Alias); ok {
		w.typ(name, alias.Rhs())
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return
	}
	if tps := named.TypeParams(); tps != nil {
		for i := range tps.Len() {
			w.typ(name, tps.At(i).Constraint())
		}
	}
	w.members(name, named.Underlying())
	for i := range named.NumMethods() {
		m := named.Method(i)
		if m.Exported() {
			w.typ(name+"."+m.Name(), m.Type())
		}
	}
}

// members checks what a user reaches through a declared type: the exported
// fields of a struct, the methods of an interface, or the type it is made of.
func (w *walker) members(name string, t types.Type) {
	switch u := t.(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if f.Exported() {
				w.typ(name+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for i := range u.NumEmbeddeds() {
			w.typ(name, u.EmbeddedType(i))
		}
		for i := range u.NumExplicitMethods() {
			m := u.ExplicitMethod(i)
			if m.Exported() {
				w.typ(name+"."+m.Name(), m.Type())
			}
		}
	default:
		w.typ(name, t)
	}
}

// typ reports every internal named type t mentions, looking through
// composite types; a named type of another package is reported when that
// package is internal and otherwise left to the check of its own package.
func (w *walker) typ(name string, t types.Type) {
	if w.seen == nil {
		w.seen = map[types.Type]bool{}
	}
	if w.seen[t] {
		return
	}
	w.seen[t] = true
	defer delete(w.seen, t)
	switch t := t.(type) {
	case *types.Alias:
		if obj := t.Obj(); obj.Pkg() != nil && IsInternal(obj.Pkg().Path()) {
			w.report(name, obj)
			return
		}
		w.typ(name, t.Rhs())
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && IsInternal(obj.Pkg().Path()) {
			w.report(name, obj)
			return
		}
		if args := t.TypeArgs(); args != nil {
			for i := range args.Len() {
				w.typ(name, args.At(i))
			}
		}
	case *types.Pointer:
		w.typ(name, t.Elem())
	case *types.Slice:
		w.typ(name, t.Elem())
	case *types.Array:
		w.typ(name, t.Elem())
	case *types.Chan:
		w.typ(name, t.Elem())
	case *types.Map:
		w.typ(name, t.Key())
		w.typ(name, t.Elem())
	case *types.Signature:
		w.tuple(name, t.Params())
		w.tuple(name, t.Results())
	case *types.Struct, *types.Interface:
		w.members(name, t)
	case *types.Union:
		for i := range t.Len() {
			w.typ(name, t.Term(i).Type())
		}
	case *types.TypeParam:
		w.typ(name, t.Constraint())
	}
}

func (w *walker) tuple(name string, t *types.Tuple) {
	for i := range t.Len() {
		w.typ(name, t.At(i).Type())
	}
}

func (w *walker) report(name string, obj *types.TypeName) {
	w.leaks = append(w.leaks, Leak{Package: w.pkg.Path(), Name: name, Internal: obj.Pkg().Path() + "." + obj.Name()})
}

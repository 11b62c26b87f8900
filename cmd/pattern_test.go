package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// constructorName is a command's constructor (newRunsCmd, newToolsCallCmd):
// the one place that reads the global flags, at the top of its RunE, into the
// command's options. registerCompletions builds the shell completers the same
// way: it copies the global flags into the options each completer takes.
var constructorName = regexp.MustCompile(`^(new[A-Z]\w*Cmd|registerCompletions)$`)

// flagReads are the reads of the global flags (a selector ".flags", app's
// field) in cmd's non-test files, by the function that makes each, and the
// functions (other than globalFlags' own methods) that take a globalFlags.
func flagReads(t *testing.T, dir string) (reads map[string]int, takers []string) {
	t.Helper()
	reads = map[string]int{}
	for _, fn := range funcDecls(t, dir) {
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) == 1 {
			if recv := typeName(fn.Recv.List[0].Type); recv == "globalFlags" {
				continue // its own methods copy it into options
			} else if recv != "app" {
				name = recv + "." + name
			}
		}
		ast.Inspect(fn.Type, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "globalFlags" {
				takers = append(takers, name)
			}
			return true
		})
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "flags" {
				reads[name]++
			}
			return true
		})
	}
	return reads, takers
}

// funcDecls are the functions (with a body) of dir's non-test Go files.
func funcDecls(t *testing.T, dir string) []*ast.FuncDecl {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.FuncDecl
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				out = append(out, fn)
			}
		}
	}
	return out
}

// unreplaceable are the command constructors (other than the root's) that
// run something in their RunE, not just their help, and take no runF: the
// run function a test gives in place of the command's own.
func unreplaceable(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, fn := range funcDecls(t, dir) {
		if fn.Name.Name == "newRootCmd" || !strings.HasPrefix(fn.Name.Name, "new") || !strings.HasSuffix(fn.Name.Name, "Cmd") {
			continue
		}
		runs := false
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "RunE" && !onlyHelp(kv.Value) {
					runs = true
				}
			}
			return true
		})
		takesRunF := false
		for _, p := range fn.Type.Params.List {
			for _, n := range p.Names {
				takesRunF = takesRunF || n.Name == "runF"
			}
		}
		if runs && !takesRunF {
			out = append(out, fn.Name.Name)
		}
	}
	return out
}

// onlyHelp says whether a RunE is func(cmd, _) error { return cmd.Help() }.
func onlyHelp(e ast.Expr) bool {
	lit, ok := e.(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Help"
}

// typeName is the name of a receiver's type, without its pointer.
func typeName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// One command pattern (issue 35 item 7): a command's constructor reads the
// global flags once, at the top of its RunE, into the command's options;
// the run function and every helper below it take what they need as
// parameters. A function other than a constructor that reads a.flags, or
// takes the globalFlags themselves, fails here by name, and so does a
// constructor that runs its command with no runF a test can give instead.
func TestCommandPattern(t *testing.T) {
	reads, takers := flagReads(t, ".")
	var below []string
	for name := range reads {
		if !constructorName.MatchString(name) {
			below = append(below, name)
		}
	}
	slices.Sort(below)
	for _, name := range below {
		t.Errorf("%s reads the global flags (a.flags) %d time(s): only a command's constructor does, into the command's options", name, reads[name])
	}
	for _, name := range takers {
		t.Errorf("%s takes the globalFlags: pass the command's options (globalOptions) instead", name)
	}
	for _, name := range unreplaceable(t, ".") {
		t.Errorf("%s runs a command but takes no runF: tests cannot call or replace its run function", name)
	}
}

// The check sees a read planted in a helper, and not one in a constructor;
// a constructor that runs something without a runF, and not a group's that
// only prints its help.
func TestCommandPatternSeesAViolation(t *testing.T) {
	dir := t.TempDir()
	src := `package cmd

func (a *app) newPlantedCmd() { _ = a.flags.output }

func (a *app) helper() bool { return a.flags.demo }

func takes(f globalFlags) {}

func (a *app) newRunningCmd() *cobra.Command {
	return &cobra.Command{RunE: func(*cobra.Command, []string) error { return a.helper2() }}
}

func (a *app) newReplaceableCmd(runF func() error) *cobra.Command {
	return &cobra.Command{RunE: func(*cobra.Command, []string) error { return runF() }}
}

func (a *app) newGroupCmd() *cobra.Command {
	return &cobra.Command{RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() }}
}
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	reads, takers := flagReads(t, dir)
	if reads["helper"] != 1 || !constructorName.MatchString("newPlantedCmd") || !slices.Equal(takers, []string{"takes"}) {
		t.Errorf("reads %v, takers %v: want helper's one read seen and takes named", reads, takers)
	}
	if got := unreplaceable(t, dir); !slices.Equal(got, []string{"newRunningCmd"}) {
		t.Errorf("unreplaceable %v, want newRunningCmd only", got)
	}
}

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

// notYetConverted are the functions that still read the global flags below
// their command's constructor, commands being converted one landing at a
// time; the list only shrinks (a listed function that no longer reads fails).
var notYetConverted = map[string]bool{
	"demoPace": true, "evalRunner": true, "loadConfigWith": true, "openKnowledge": true,
	"openWorkspace": true, "printChatTurn": true, "printChecks": true, "printCompare": true,
	"printEval": true, "printInspection": true, "printLocal": true, "printLogSources": true,
	"printOutput": true, "readQuery": true, "resumeCommand": true, "runChat": true,
	"runDiagnose": true, "runEvalPack": true,
}

// flagReads are the reads of the global flags (a selector ".flags", app's
// field) in cmd's non-test files, by the function that makes each, and the
// functions (other than globalFlags' own methods) that take a globalFlags.
func flagReads(t *testing.T, dir string) (reads map[string]int, takers []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	reads = map[string]int{}
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
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
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
	}
	return reads, takers
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
// takes the globalFlags themselves, fails here by name.
func TestCommandPattern(t *testing.T) {
	reads, takers := flagReads(t, ".")
	var below []string
	for name := range reads {
		if !constructorName.MatchString(name) && !notYetConverted[name] {
			below = append(below, name)
		}
	}
	for name := range notYetConverted {
		if reads[name] == 0 {
			t.Errorf("%s no longer reads the global flags: take it off notYetConverted", name)
		}
	}
	slices.Sort(below)
	for _, name := range below {
		t.Errorf("%s reads the global flags (a.flags) %d time(s): only a command's constructor does, into the command's options", name, reads[name])
	}
	for _, name := range takers {
		t.Errorf("%s takes the globalFlags: pass the command's options (globalOptions) instead", name)
	}
}

// The check sees a read planted in a helper, and not one in a constructor.
func TestCommandPatternSeesAViolation(t *testing.T) {
	dir := t.TempDir()
	src := `package cmd

func (a *app) newPlantedCmd() { _ = a.flags.output }

func (a *app) helper() bool { return a.flags.demo }

func takes(f globalFlags) {}
`
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	reads, takers := flagReads(t, dir)
	if reads["helper"] != 1 || !constructorName.MatchString("newPlantedCmd") || !slices.Equal(takers, []string{"takes"}) {
		t.Errorf("reads %v, takers %v: want helper's one read seen and takes named", reads, takers)
	}
}

package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readSources reads every Go file under dir. The check reads export data
// through the go command, which go test's cache does not see; reading the
// sources here makes a change to any of them run the test again.
func readSources(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		_, err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the check runs the go command: %v", err)
	}
}

// TestPublicAPINamesNoInternalType is the gate: no exported identifier of
// pkg/... may name a type of an internal package, which a program outside
// this module could not use (examples/embed is the proof from outside).
func TestPublicAPINamesNoInternalType(t *testing.T) {
	needGo(t)
	readSources(t, "../../pkg")
	leaks, err := Check("../..", "./pkg/...")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaks {
		t.Errorf("public API leak: %s: declare that type in pkg/ (internal/ may alias it)", l)
	}
}

// TestCheckFindsPlantedLeaks runs the checker over a small module with one
// leak of each kind and internal uses that are fine.
func TestCheckFindsPlantedLeaks(t *testing.T) {
	needGo(t)
	readSources(t, "testdata/leaky")
	leaks, err := Check("testdata/leaky", "./pkg/...")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range leaks {
		got = append(got, l.String())
	}
	const p, key, getter = "example.com/leaky/pkg/api.", "example.com/leaky/internal/secret.Key", "example.com/leaky/internal/secret.Getter"
	want := []string{
		p + "Alias names " + key,
		p + "Anon.K names " + key,
		p + "Boxed names " + key,
		p + "Config.Getter names " + getter,
		p + "Config.Key names " + key,
		p + "Default names " + key,
		p + "Defined names " + key,
		p + "Generic names " + key,
		p + "Iface.Key names " + key,
		p + "Run names " + key,
		p + "Tool.Open names " + key,
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("leaks:\n got %q\nwant %q", got, want)
	}
}

func TestIsInternal(t *testing.T) {
	for path, want := range map[string]bool{
		"github.com/superbiz/superbiz/internal/config": true,
		"github.com/superbiz/superbiz/internal":        true,
		"internal/abi":                                 true,
		"github.com/superbiz/superbiz/pkg/tools":       false,
		"github.com/x/internals/y":                     false,
	} {
		if got := IsInternal(path); got != want {
			t.Errorf("IsInternal(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestEveryPublicPackageHasDocAndExample keeps the promise of the public
// packages' documentation: a package comment, and at least one Example
// whose output go test checks.
func TestEveryPublicPackageHasDocAndExample(t *testing.T) {
	needGo(t)
	readSources(t, "../../pkg")
	out, err := goList("../..", []string{"-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Doc}}\t{{join .TestGoFiles \",\"}},{{join .XTestGoFiles \",\"}}", "./pkg/..."})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("go list line %q", line)
		}
		path, dir, doc, files := f[0], f[1], f[2], f[3]
		if doc == "" {
			t.Errorf("%s has no package comment", path)
		}
		if !hasCheckedExample(t, dir, strings.Split(files, ",")) {
			t.Errorf("%s has no Example with an // Output: comment", path)
		}
	}
}

// hasCheckedExample reports whether one of the test files declares an
// Example function followed by an // Output: comment.
func hasCheckedExample(t *testing.T, dir string, files []string) bool {
	t.Helper()
	for _, name := range files {
		if name == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		if i := strings.Index(src, "\nfunc Example"); i >= 0 && strings.Contains(src[i:], "// Output:") {
			return true
		}
	}
	return false
}

// TestPublicStandsOnJustifiedLeaves: every package under internal/ that a
// non-test file of pkg/ imports is one docs/ARCHITECTURE.md justifies in
// its table of leaves, so pkg/ never silently stands on a private package.
func TestPublicStandsOnJustifiedLeaves(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/superbiz/superbiz/"
	fset := token.NewFileSet()
	seen := map[string]string{}
	err = filepath.WalkDir("../../pkg", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if strings.HasPrefix(p, module+"internal/") {
				seen[strings.TrimPrefix(p, module)] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("no import of internal/ found under pkg/: the walk read nothing")
	}
	for leaf, file := range seen {
		if !strings.Contains(string(doc), "| `"+leaf+"` |") {
			t.Errorf("%s imports %s, which docs/ARCHITECTURE.md's table of leaves does not justify", file, leaf)
		}
	}
}

// TestPublicTextsNameNoCommand: no string in pkg/'s code tells its reader
// to run a superbiz command; an embedding program's users have none, so
// such pointers come from the caller (release.Hints).
func TestPublicTextsNameNoCommand(t *testing.T) {
	command := regexp.MustCompile("`superbiz [a-z]")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir("../../pkg", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && command.MatchString(lit.Value) {
				t.Errorf("%s: %s names a superbiz command; take it from the caller", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go file under pkg/: the walk read nothing")
	}
}

package cmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// specPath is the product reference the tests below keep true.
var specPath = filepath.Join("..", "docs", "SPEC.md")

// specDoc is docs/SPEC.md split into what the tests check: the heading
// anchors, and the table rows under each heading.
type specDoc struct {
	anchors map[string]bool
	// links are the in-document links (#anchor) the text uses.
	links []string
	// sections are the headings in order, each with its table rows.
	sections []specSection
}

type specSection struct {
	level   int
	heading string
	// rows are the table rows (cells trimmed), header and separator excluded.
	rows [][]string
}

func readSpec(t *testing.T) specDoc {
	t.Helper()
	b, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatalf("read the reference: %v", err)
	}
	doc := specDoc{anchors: map[string]bool{}}
	seen := map[string]int{}
	link := regexp.MustCompile(`\]\(#([^)]+)\)`)
	inFence := false
	headerNext := false
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			doc.links = append(doc.links, m[1])
		}
		if level := headingLevel(line); level > 0 {
			h := strings.TrimSpace(line[level:])
			a := slug(h)
			if n := seen[a]; n > 0 {
				a = fmt.Sprintf("%s-%d", a, n)
			}
			seen[slug(h)]++
			doc.anchors[a] = true
			doc.sections = append(doc.sections, specSection{level: level, heading: h})
			headerNext = true
			continue
		}
		if !strings.HasPrefix(line, "|") || len(doc.sections) == 0 {
			headerNext = true
			continue
		}
		cells := splitRow(line)
		cur := &doc.sections[len(doc.sections)-1]
		switch {
		case headerNext:
			headerNext = false // the table's header row
		case isSeparator(cells):
		default:
			cur.rows = append(cur.rows, cells)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return doc
}

func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n >= len(line) || line[n] != ' ' {
		return 0
	}
	return n
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces turned into hyphens.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	parts := strings.Split(line, "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// backticked returns the `code` spans of a cell.
func backticked(cell string) []string {
	var out []string
	for {
		i := strings.IndexByte(cell, '`')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(cell[i+1:], '`')
		if j < 0 {
			return out
		}
		out = append(out, cell[i+1:i+1+j])
		cell = cell[i+1+j+1:]
	}
}

// section returns the rows under the first heading equal to h.
func (d specDoc) section(t *testing.T, h string) [][]string {
	t.Helper()
	for _, s := range d.sections {
		if s.heading == h {
			return s.rows
		}
	}
	t.Fatalf("docs/SPEC.md has no heading %q", h)
	return nil
}

// docFlag is one flag as a command's table lists it.
type docFlag struct {
	short string
	value string
	def   string
}

// documentedCommands reads the command sections: a heading "### `superbiz
// …`" names a command by its path, and its table's rows whose first cell is
// backticked flags (`-o`, `--output`) are the command's own flags.
func documentedCommands(t *testing.T, d specDoc) map[string]map[string]docFlag {
	t.Helper()
	cmds := map[string]map[string]docFlag{}
	for _, s := range d.sections {
		if s.level != 3 || !strings.HasPrefix(s.heading, "`superbiz") {
			continue
		}
		path := backticked(s.heading)[0]
		if _, dup := cmds[path]; dup {
			t.Errorf("docs/SPEC.md lists command %q twice", path)
		}
		flags := map[string]docFlag{}
		for _, row := range s.rows {
			var name, short string
			for _, f := range backticked(row[0]) {
				switch {
				case strings.HasPrefix(f, "--"):
					name = strings.TrimPrefix(f, "--")
				case strings.HasPrefix(f, "-"):
					short = strings.TrimPrefix(f, "-")
				}
			}
			if name == "" {
				continue
			}
			value, def := "", ""
			if len(row) > 2 {
				value, def = row[1], row[2]
			}
			if _, dup := flags[name]; dup {
				t.Errorf("docs/SPEC.md lists --%s twice for %q", name, path)
			}
			flags[name] = docFlag{short: short, value: value, def: def}
		}
		cmds[path] = flags
	}
	return cmds
}

// cobraCommands walks the real command tree: every command's path and its
// own flags (the root's persistent flags are the global ones). Excepted:
// cobra's help command and --help flag, which cobra adds to every command
// when it runs, and hidden commands.
func cobraCommands() map[string]map[string]*pflag.Flag {
	a := &app{io: &IOStreams{}, getenv: func(string) string { return "" }, flags: globalFlags{output: outputText}}
	out := map[string]map[string]*pflag.Flag{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		flags := map[string]*pflag.Flag{}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !f.Hidden {
				flags[f.Name] = f
			}
		})
		out[c.CommandPath()] = flags
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.newRootCmd())
	return out
}

// TestSpecCommandsAndFlags keeps docs/SPEC.md's command and flag tables and
// the cobra tree equal: nothing undocumented exists, nothing documented is
// missing, short forms agree, a flag documented as "bool" is one, and a
// numeric default in the table is the flag's.
func TestSpecCommandsAndFlags(t *testing.T) {
	doc := documentedCommands(t, readSpec(t))
	real := cobraCommands()
	for _, path := range sortedKeys(real) {
		if _, ok := doc[path]; !ok {
			t.Errorf("command %q exists but docs/SPEC.md has no \"### `%s`\" section", path, path)
		}
	}
	for _, path := range sortedKeys(doc) {
		flags, ok := real[path]
		if !ok {
			t.Errorf("docs/SPEC.md documents command %q, which does not exist", path)
			continue
		}
		for _, name := range sortedKeys(flags) {
			if _, ok := doc[path][name]; !ok {
				t.Errorf("%s has flag --%s, not listed in docs/SPEC.md", path, name)
			}
		}
		for _, name := range sortedKeys(doc[path]) {
			want := doc[path][name]
			f, ok := flags[name]
			if !ok {
				t.Errorf("docs/SPEC.md lists --%s for %s, which has no such flag", name, path)
				continue
			}
			if f.Shorthand != want.short {
				t.Errorf("%s --%s: short form is %q, docs/SPEC.md says %q", path, name, f.Shorthand, want.short)
			}
			if isBool := f.Value.Type() == "bool"; isBool != (want.value == "bool") {
				t.Errorf("%s --%s: flag type %s, docs/SPEC.md value column %q", path, name, f.Value.Type(), want.value)
			}
			if _, err := strconv.Atoi(want.def); err == nil && f.DefValue != want.def {
				t.Errorf("%s --%s: default is %s, docs/SPEC.md says %s", path, name, f.DefValue, want.def)
			}
		}
	}
}

// TestSpecConfigKeys keeps docs/SPEC.md's key table equal to the keys the
// loader accepts, as internal/config declares them.
func TestSpecConfigKeys(t *testing.T) {
	var documented []string
	for _, row := range readSpec(t).section(t, "Keys") {
		if ks := backticked(row[0]); len(ks) > 0 {
			documented = append(documented, ks[0])
		}
	}
	accepted := acceptedConfigKeys(t)
	sort.Strings(documented)
	if dup := duplicates(documented); len(dup) > 0 {
		t.Errorf("docs/SPEC.md lists config keys twice: %v", dup)
	}
	for _, k := range accepted {
		if !slices.Contains(documented, k) {
			t.Errorf("the loader accepts %q, not listed in docs/SPEC.md's Keys", k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(accepted, k) {
			t.Errorf("docs/SPEC.md lists %q, which the loader does not accept", k)
		}
	}
}

// TestSpecConfigDefaults keeps the default column of docs/SPEC.md's key
// table equal to what the loader fills in when a file leaves a key out. A
// default written as a literal (a backticked string or duration, a number,
// true or false) is checked; descriptive defaults ("required", paths that
// depend on the environment, arrays) are not.
func TestSpecConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "superbiz.toml")
	// every registered source configured by its example, each key it
	// leaves out at its default
	if err := os.WriteFile(file, []byte(registry.Example()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := registry.Load(config.LoadOptions{ConfigPath: file, WorkDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("load the sources' examples: %v", err)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var loaded map[string]any
	if err := json.Unmarshal(raw, &loaded); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, row := range readSpec(t).section(t, "Keys") {
		keys := backticked(row[0])
		if len(keys) == 0 || len(row) < 3 {
			continue
		}
		key, typ, def := keys[0], row[1], row[2]
		want, ok := literalDefault(def)
		if !ok {
			continue
		}
		got, found := lookupKey(loaded, key)
		if !found {
			t.Errorf("%s: the loaded configuration has no such member to compare its default with", key)
			continue
		}
		checked++
		if typ == "duration" {
			w, errW := time.ParseDuration(fmt.Sprint(want))
			g, errG := time.ParseDuration(fmt.Sprint(got))
			if errW != nil || errG != nil || w != g {
				t.Errorf("%s: docs/SPEC.md says the default is %s, the loader gives %v", key, def, got)
			}
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: docs/SPEC.md says the default is %s, the loader gives %v", key, def, got)
		}
	}
	if checked < 20 {
		t.Errorf("only %d defaults were compared: the Keys table lost its literal defaults", checked)
	}
}

// literalDefault reads a default cell that is a single literal.
func literalDefault(cell string) (any, bool) {
	if ks := backticked(cell); len(ks) == 1 && cell == "`"+ks[0]+"`" {
		if strings.HasPrefix(ks[0], "[") || strings.Contains(ks[0], "$") {
			return nil, false
		}
		return ks[0], true
	}
	switch cell {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	if n, err := strconv.ParseFloat(cell, 64); err == nil {
		return n, true
	}
	return nil, false
}

// lookupKey finds a dotted key ("model.host", "logs[].name") in the JSON
// form of a loaded configuration, taking the first entry of an array table.
func lookupKey(m map[string]any, key string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(key, ".") {
		array := strings.HasSuffix(part, "[]")
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = obj[strings.TrimSuffix(part, "[]")]
		if !ok {
			return nil, false
		}
		if array {
			list, ok := cur.([]any)
			if !ok || len(list) == 0 {
				return nil, false
			}
			cur = list[0]
		}
	}
	return cur, true
}

// acceptedConfigKeys lists every key the loader accepts, in the reference's
// notation ("db", "model.host", "logs[].name"), read from the declaration the
// loader decodes by (internal/config's TestKeysAreTheDecodersKeys ties the two).
func acceptedConfigKeys(t *testing.T) []string {
	t.Helper()
	keys := config.Keys(registry.Parts()...)
	if len(keys) == 0 {
		t.Fatal("config.Keys() declares no keys")
	}
	sort.Strings(keys)
	return keys
}

// TestSpecExitCodes keeps docs/SPEC.md's exit code table equal to the exit
// codes the command line can return: the Exit constants of this package,
// plus 128 + SIGTERM and 128 + SIGHUP for a run ended by those signals.
func TestSpecExitCodes(t *testing.T) {
	constants := map[string]int{
		"ExitOK": ExitOK, "ExitFailed": ExitFailed, "ExitUsage": ExitUsage,
		"ExitFallback": ExitFallback, "ExitUnavailable": ExitUnavailable, "ExitCancelled": ExitCancelled,
	}
	// A new Exit constant must be added above (and to the reference).
	for _, name := range exitConstantNames(t) {
		if _, ok := constants[name]; !ok {
			t.Errorf("cmd declares exit code %s: add it to this test and to docs/SPEC.md's Exit codes", name)
		}
	}
	want := map[int]bool{128 + int(syscall.SIGTERM): true, 128 + int(syscall.SIGHUP): true}
	for _, c := range constants {
		want[c] = true
	}
	if ExitCancelled != 128+int(syscall.SIGINT) {
		t.Errorf("ExitCancelled is %d, want 128 + SIGINT = %d", ExitCancelled, 128+int(syscall.SIGINT))
	}
	documented := map[int]bool{}
	for _, row := range readSpec(t).section(t, "Exit codes") {
		ks := backticked(row[0])
		if len(ks) == 0 {
			continue
		}
		n, err := strconv.Atoi(ks[0])
		if err != nil {
			t.Errorf("exit code table: %q is not a number", ks[0])
			continue
		}
		if documented[n] {
			t.Errorf("exit code %d is listed twice", n)
		}
		documented[n] = true
	}
	for c := range want {
		if !documented[c] {
			t.Errorf("exit code %d is not listed in docs/SPEC.md's Exit codes", c)
		}
	}
	for c := range documented {
		if !want[c] {
			t.Errorf("docs/SPEC.md lists exit code %d, which the command line never returns", c)
		}
	}
}

// exitConstantNames finds the package's constants named Exit*, so a new one
// cannot go undocumented.
func exitConstantNames(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				for _, n := range spec.(*ast.ValueSpec).Names {
					if strings.HasPrefix(n.Name, "Exit") {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// TestSpecReferences keeps every citation of the reference pointing at a
// heading that exists: docs/SPEC.md#<anchor> in the code and the README,
// and (#<anchor>) links inside the reference; and no code cites the old
// numbered sections of a SPEC that is not in the repository.
func TestSpecReferences(t *testing.T) {
	doc := readSpec(t)
	for _, l := range doc.links {
		if !doc.anchors[l] {
			t.Errorf("docs/SPEC.md links to #%s, which is no heading of it", l)
		}
	}
	cite := regexp.MustCompile(`(?:docs/)?SPEC\.md#([A-Za-z0-9_-]+)`) // docs/GUIDE.md cites it as SPEC.md#…
	oldCite := regexp.MustCompile(`SPEC section \d`)
	cites := 0
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range cite.FindAllStringSubmatch(line, -1) {
				cites++
				if !doc.anchors[m[1]] {
					t.Errorf("%s:%d cites docs/SPEC.md#%s, which is no heading of docs/SPEC.md", path, i+1, m[1])
				}
			}
			if strings.HasSuffix(path, ".go") && oldCite.MatchString(line) {
				t.Errorf("%s:%d cites %q: cite docs/SPEC.md#<heading> instead", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cites == 0 {
		t.Error("no docs/SPEC.md#<anchor> citation found: the walk looked in the wrong place")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func duplicates(sorted []string) []string {
	var dup []string
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] && !slices.Contains(dup, sorted[i]) {
			dup = append(dup, sorted[i])
		}
	}
	return dup
}

// TestSpecStopReasons: docs/SPEC.md's Stop reasons table lists exactly the
// stop reasons a stored run can carry (runrecord.StopReasons, INTERRUPTED
// included), each once.
func TestSpecStopReasons(t *testing.T) {
	var documented []string
	for _, row := range readSpec(t).section(t, "Stop reasons") {
		if ks := backticked(row[0]); len(ks) > 0 {
			documented = append(documented, ks[0])
		}
	}
	var declared []string
	for _, r := range runrecord.StopReasons() {
		declared = append(declared, string(r))
	}
	sort.Strings(documented)
	sort.Strings(declared)
	if d := duplicates(documented); len(d) > 0 {
		t.Errorf("docs/SPEC.md lists stop reasons twice: %q", d)
	}
	if !slices.Equal(slices.Compact(documented), declared) {
		t.Errorf("docs/SPEC.md's Stop reasons = %q, runrecord.StopReasons() = %q", documented, declared)
	}
}

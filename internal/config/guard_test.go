package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/BurntSushi/toml"

	"github.com/superbiz/superbiz/internal/reliability"
)

// nestingCases are TOML documents with the deepest level checkNesting finds
// in them (root table = 1; a key's value sits one level below its table).
var nestingCases = []struct {
	name string
	doc  string
	want int
}{
	{"scalar", "a = 1", 2},
	{"table", "[a]", 2},
	{"dotted table", "[a.b]\n", 3},
	{"array of tables", "[[a]]\nx = 1", 4},
	{"quoted dot in a header", "[[\"a.b\"]]", 3},
	{"dotted key", "a.b.c = 1", 4},
	{"quoted dot in a key", "\"a.b.c\" = 1", 2},
	{"inline tables", "a = {b = {c = 1}}", 4},
	{"arrays", "a = [[[1]]]", 4},
	{"basic string", `a = "[[[[{{{{"`, 2},
	{"escaped quote", `a = "\"[[[[" `, 2},
	{"literal string", "a = '[[[['", 2},
	{"multi-line basic", "a = \"\"\"\n[[[[\n\"\"\"", 2},
	{"multi-line basic, closing quotes", "a = \"\"\"x\"\"\"\"\nb = [[1]]", 3},
	{"multi-line literal", "a = '''[[[[\n{{{{'''", 2},
	{"comment", "# [[[[[[\na = 1", 2},
	{"array holding a table", "a = [\"x\", {b.c = [1]}]", 5},
	{"multi-line array with comments", "a = [\n  1, # ]]]]\n  [2],\n]\nb = {c = 1}", 3},
	{"header after a deep value", "a = [[[1]]]\n[b]\nc = 1", 4},
}

func TestCheckNesting(t *testing.T) {
	for _, tt := range nestingCases {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkNesting([]byte(tt.doc), tt.want); err != nil {
				t.Errorf("max %d: %v", tt.want, err)
			}
			err := checkNesting([]byte(tt.doc), tt.want-1)
			if !errors.Is(err, errTooDeep) {
				t.Errorf("max %d: got %v, want nesting too deep", tt.want-1, err)
			}
		})
	}
}

// depth is the nesting depth of a decoded TOML value (a table or array
// counts one level, a scalar none).
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			d = max(d, depth(c))
		}
		return d + 1
	case []any:
		for _, c := range x {
			d = max(d, depth(c))
		}
		return d + 1
	case []map[string]any:
		for _, c := range x {
			d = max(d, depth(c))
		}
		return d + 1
	}
	return 0
}

// The scan never counts less than the decoder builds.
func TestCheckNestingBoundsDecoder(t *testing.T) {
	for _, tt := range nestingCases {
		var root map[string]any
		if _, err := toml.Decode(tt.doc, &root); err != nil {
			t.Fatalf("%s: not valid TOML: %v", tt.name, err)
		}
		if d := depth(root); d > tt.want {
			t.Errorf("%s: decoded depth %d, scan found only %d", tt.name, d, tt.want)
		}
	}
}

// FuzzCheckNesting: for any text the scan accepts with a small bound, what
// the TOML decoder builds is no deeper than that bound, and the scan never
// panics.
func FuzzCheckNesting(f *testing.F) {
	for _, tt := range nestingCases {
		f.Add([]byte(tt.doc))
	}
	f.Add([]byte("a = {b = [{c = {d = 1}}]}"))
	f.Add([]byte("[a.'b.c'.\"d\"]\ne.f = 1"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		const bound = 4
		if checkNesting(doc, bound) != nil {
			return
		}
		var root map[string]any
		if _, err := toml.Decode(string(doc), &root); err != nil {
			return
		}
		if d := depth(root); d > bound {
			t.Fatalf("scan accepted depth %d > %d:\n%q", d, bound, doc)
		}
	})
}

// bomb is one hostile configuration file and what the refusal must say.
type bomb struct {
	name string
	make func(t *testing.T, dir string) string // returns the path
	want string
}

func writeBomb(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Hostile config files are refused with one line naming the file, without
// reading them whole, blocking, or handing them to the decoder.
func TestConfigBombs(t *testing.T) {
	bombs := []bomb{
		{"nested inline tables, 400 KB", func(t *testing.T, dir string) string {
			n := 400 << 10 / 4
			return writeBomb(t, dir, "deep.toml", []byte(strings.Repeat("a={", n)+strings.Repeat("}", n)))
		}, "nest more than 32 levels deep"},
		{"nested arrays", func(t *testing.T, dir string) string {
			n := 200 << 10
			return writeBomb(t, dir, "arrays.toml", []byte("a = "+strings.Repeat("[", n)+strings.Repeat("]", n)))
		}, "nest more than 32 levels deep"},
		{"dotted header", func(t *testing.T, dir string) string {
			return writeBomb(t, dir, "header.toml", []byte("["+strings.Repeat("a.", 100<<10)+"a]\n"))
		}, "nest more than 32 levels deep"},
		{"200 MB file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "big.toml")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(200 << 20); err != nil { // sparse: no 200 MB written
				t.Fatal(err)
			}
			return p
		}, "larger than the 1024 KiB limit"},
		{"just over 1 MiB", func(t *testing.T, dir string) string {
			return writeBomb(t, dir, "over.toml", []byte("# "+strings.Repeat("x", MaxFileBytes-1)))
		}, "larger than the 1024 KiB limit"},
		{"FIFO", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo.toml")
			fixture.Mkfifo(t, p)
			return p
		}, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", func(t *testing.T, dir string) string {
			if _, err := os.Stat("/dev/zero"); err != nil {
				testenv.Missing(t, "no /dev/zero", "CI runs on Linux, which has /dev/zero")
			}
			return "/dev/zero"
		}, "/dev/zero is a device, not a regular file"},
	}
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			w := newWorkspace(t)
			path := b.make(t, t.TempDir())
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := Load(LoadOptions{ConfigPath: path, WorkDir: w.wd, Getenv: w.env.get})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // a hang guard, not a speed assertion
				t.Fatalf("Load(%s) still running after 30 s", path)
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (%T), want a *config.Error (exit 2)", err, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || !strings.Contains(msg, b.want) || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line naming %s and saying %q", msg, path, b.want)
			}
			reliability.Record(t, reliability.SectionBombs, "config: "+b.name, map[string]any{
				"elapsed_ms":   float64(elapsed.Microseconds()) / 1000,
				"allocated_mb": float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20),
				"outcome":      "refused, exit 2",
			})
		})
	}
}

// A config at the bounds (a full 1 MiB, nesting exactly MaxDepth) still loads.
func TestConfigAtBoundsLoads(t *testing.T) {
	w := newWorkspace(t)
	doc := "[model]\nname = \"a\"\n# "
	doc += strings.Repeat("y", MaxFileBytes-len(doc)-1) + "\n"
	if len(doc) != MaxFileBytes {
		t.Fatalf("fixture is %d bytes, want %d", len(doc), MaxFileBytes)
	}
	p := writeBomb(t, t.TempDir(), "full.toml", []byte(doc))
	if _, err := Load(LoadOptions{ConfigPath: p, WorkDir: w.wd, Getenv: w.env.get}); err != nil {
		t.Fatalf("a 1 MiB config was refused: %v", err)
	}
	arrays := func(n int) []byte {
		return []byte("a = " + strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if err := checkNesting(arrays(MaxDepth-1), MaxDepth); err != nil {
		t.Errorf("depth %d refused: %v", MaxDepth, err)
	}
	if err := checkNesting(arrays(MaxDepth), MaxDepth); !errors.Is(err, errTooDeep) {
		t.Errorf("depth %d accepted: %v", MaxDepth+1, err)
	}
}

// decode itself refuses deep nesting, whatever handed it the bytes (a small
// document here, which the decoder alone would accept).
func TestDecodeRefusesDeepNesting(t *testing.T) {
	n := MaxDepth + 1
	doc := "[model]\nname = \"x\"\n[budget]\nx = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n"
	_, err := load([]byte(doc), "/etc/superbiz.toml", "/wd", testEnv{}.get, Overrides{}, nil)
	if err == nil || !strings.Contains(err.Error(), "/etc/superbiz.toml:4: nesting too deep") {
		t.Fatalf("got %v, want a nesting error at line 4", err)
	}
}

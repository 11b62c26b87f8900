package e2e

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// completionEntries are every place the shell completion offers names
// (docs/SPEC.md#superbiz-completion), each asking for its first candidate.
var completionEntries = [][]string{
	{"runs", "show", ""},
	{"replay", ""},
	{"runs", "--session", ""},
	{"runs", "list", "--session", ""},
	{"chat", "--session", ""},
	{"diagnose", "--session", ""},
	{"diagnose", "--alert", ""},
	{"logs", "inspect", ""},
	{"skills", "show", ""},
	{"tools", "call", ""},
	{"runs", "-o", ""},
}

// fileState is what a write would change of one file: its size, time and mode.
type fileState struct {
	size  int64
	mtime time.Time
	mode  fs.FileMode
}

// snapshot records every file and directory under root.
func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{size: fi.Size(), mode: fi.Mode()}
		if !fi.IsDir() { // a directory's time moves when a file comes and goes, which the walk sees anyway
			st.mtime = fi.ModTime()
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return out
}

// sameFiles fails the test for every file created, removed or changed
// between two snapshots.
func sameFiles(t *testing.T, what string, before, after map[string]fileState) {
	t.Helper()
	var diffs []string
	for p, a := range after {
		if b, ok := before[p]; !ok {
			diffs = append(diffs, "created "+p)
		} else if a != b {
			diffs = append(diffs, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			diffs = append(diffs, "removed "+p)
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s wrote:\n%s", what, strings.Join(diffs, "\n"))
	}
}

// completeWithin runs cobra's __complete and returns its candidates; a
// completer that does not give up is killed at the test's bound, which
// fails the test (the completion is bounded to 1 s, far below it).
func completeWithin(t *testing.T, e *env, bound time.Duration, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	c, out, errOut := e.command(ctx, append([]string{"__complete"}, args...)...)
	err := c.Run()
	if ctx.Err() != nil {
		t.Fatalf("__complete %q did not give up within %s (stderr %q)", args, bound, errOut)
	}
	if err != nil {
		t.Fatalf("__complete %q: %v\nstderr:\n%s", args, err, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("__complete %q: no directive line in %q", args, out)
	}
	return lines[:len(lines)-1]
}

// TestCompletionWritesNothing: no completer writes. With a fresh HOME and
// XDG directories (no configuration file, no run store, no demo cache),
// then with a store and with --demo, every completion entry point leaves
// every file under them as it was: no store created or migrated, no demo
// workspace built, no configuration written. --demo still offers the demo's
// names, read from the embedded definition.
func TestCompletionWritesNothing(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	for _, k := range []string{"XDG_CACHE_HOME", "TMPDIR"} {
		e.vars[k] = filepath.Join(e.dir, strings.ToLower(k))
		if err := os.MkdirAll(e.vars[k], 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// [alerts] at a closed port, so --alert's completer has somewhere to ask.
	cfg := filepath.Join(e.vars["XDG_CONFIG_HOME"], "superbiz", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bound := runstore.BusyTimeout / 2
	all := func(phase string) {
		for _, demo := range []bool{false, true} {
			for _, entry := range completionEntries {
				args := entry
				if demo {
					args = append([]string{"--demo"}, entry...)
				}
				before := snapshot(t, e.dir)
				got := completeWithin(t, e, bound, args...)
				sameFiles(t, phase+": __complete "+strings.Join(args, " "), before, snapshot(t, e.dir))
				if demo && strings.Join(entry, " ") == "tools call " {
					joined := "\n" + strings.Join(got, "\n")
					for _, w := range []string{"lookup_knowledge\t", "query_logs\t", "query_mysql\t", "read_skill\t"} {
						if !strings.Contains(joined, "\n"+w) {
							t.Errorf("%s: --demo tools call offers %q, lacks %q", phase, got, w)
						}
					}
				}
				if demo && strings.Join(entry, " ") == "logs inspect " && (len(got) != 1 || !strings.HasPrefix(got[0], "demo\t")) {
					t.Errorf("%s: --demo logs inspect offers %q, want the demo source", phase, got)
				}
			}
		}
	}
	all("no store")
	if _, err := os.Stat(e.vars["SUPERBIZ_DB"]); !os.IsNotExist(err) {
		t.Fatalf("completion created the run store: %v", err)
	}
	st, err := runstore.Open(context.Background(), e.vars["SUPERBIZ_DB"]) // runs never creates one
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	all("with a store")
}

// TestCompletionLockedStore: a store another process holds locked, or one
// whose schema is newer than this binary's, never stalls a TAB press. The
// tools are named without the store; run IDs are read from it when a
// reader may, and otherwise nothing is offered, at once rather than after
// the store's 10 s busy timeout (the test kills a completer at half of it).
func TestCompletionLockedStore(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	if r := e.run(t, "diagnose", "--demo", "-o", "json"); r.code != 0 {
		t.Fatalf("demo run: %s", r)
	}
	bound := runstore.BusyTimeout / 2
	wantTools := func(what string) {
		t.Helper()
		got := completeWithin(t, e, bound, "--demo", "tools", "call", "")
		if len(got) < 4 || !strings.HasPrefix(got[0], "lookup_knowledge\t") {
			t.Errorf("%s: --demo tools call offers %q, want the demo's tools", what, got)
		}
	}
	// A writer's lock (BEGIN EXCLUSIVE, in WAL mode): readers go on.
	release := holdStore(t, e.vars["SUPERBIZ_DB"], "BEGIN EXCLUSIVE")
	wantTools("a writer holding the lock")
	if got := completeWithin(t, e, bound, "runs", "show", ""); len(got) != 2 || !strings.HasPrefix(got[0], "last\t") || !strings.HasPrefix(got[1], "1\t") {
		t.Errorf("a writer holding the lock: runs show offers %q, want the stored run", got)
	}
	release()

	// A lock no reader passes: exclusive locking mode holds the file.
	release = holdStore(t, e.vars["SUPERBIZ_DB"], "PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "UPDATE runs SET query = query")
	wantTools("a lock no reader passes")
	for _, entry := range [][]string{{"runs", "show", ""}, {"replay", ""}, {"chat", "--session", ""}} {
		if got := completeWithin(t, e, bound, entry...); len(got) != 0 {
			t.Errorf("a lock no reader passes: %q offers %q, want nothing", entry, got)
		}
	}
	release()

	// A store of a newer superbiz: nothing is read from it, nothing migrated.
	holdStore(t, e.vars["SUPERBIZ_DB"], "INSERT INTO schema_migrations VALUES ('runstore', 9999, 'future.sql', 0)")()
	before := snapshot(t, e.dir)
	wantTools("a newer store")
	if got := completeWithin(t, e, bound, "runs", "show", ""); len(got) != 0 {
		t.Errorf("a newer store: runs show offers %q, want nothing", got)
	}
	sameFiles(t, "completion over a newer store", before, snapshot(t, e.dir))
}

// holdStore runs stmts on one connection to the store at path, as another
// process would, and holds it (and any transaction they began) until the
// returned release is called.
func holdStore(t *testing.T, path string, stmts ...string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return func() {
		_, _ = conn.ExecContext(ctx, "ROLLBACK") // none begun: nothing to roll back
		_ = conn.Close()
		_ = db.Close()
	}
}

package runstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// fileSum is the SHA-256 of a file's bytes, to prove nothing wrote it.
func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// rawExec runs statements on a plain connection (no WAL switch, no migration).
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// storeWithRun makes a closed store at path holding one finished run, in
// rollback-journal mode, so a WAL switch would show in the file.
func storeWithRun(t *testing.T, path string) {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "why 504s"})
	if err := s.FinishRun(context.Background(), "r_1", Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rawExec(t, path, "PRAGMA journal_mode = DELETE")
}

// OpenReadOnly lists and shows runs without writing a byte: no WAL switch,
// no migration, no recovery; and every write through it fails, whoever the
// process runs as (SQLite's mode=ro, not file permissions).
func TestOpenReadOnlyNeverWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.db")
	storeWithRun(t, path)
	// A RUNNING run of a dead process: Open would recover it (a write).
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_2", SessionID: "s_1", Query: "still running"})
	s.Close()
	rawExec(t, path, "PRAGMA journal_mode = DELETE", "UPDATE runs SET pid = 2147483646 WHERE id = 'r_2'")
	before := fileSum(t, path)

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly: %v", err)
	}
	runs, err := ro.ListRuns(ctx, ListFilter{Limit: 10})
	if err != nil || len(runs) != 2 {
		t.Fatalf("ListRuns: %d runs, %v", len(runs), err)
	}
	d, err := ro.GetRun(ctx, "r_1")
	if err != nil || d.Query != "why 504s" {
		t.Fatalf("GetRun: %+v, %v", d, err)
	}
	// shown as interrupted when read (its process is gone), never recovered:
	// no finish time is written (the file's bytes are checked below)
	if d, err := ro.GetRun(ctx, "r_2"); err != nil || d.StopReason != runrecord.StopInterrupted || !d.FinishedAt.IsZero() {
		t.Fatalf("r_2 read from a read-only open: %+v, %v; want INTERRUPTED at read time, not recovered", d, err)
	}
	if _, err := ro.db.ExecContext(ctx, "CREATE TABLE x (a)"); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("a write through the read-only store: %v", err)
	}
	if err := ro.CreateSession(ctx, "s_2"); err == nil {
		t.Error("CreateSession succeeded on a read-only store")
	}
	var mode string
	if err := ro.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Errorf("journal mode %q (%v), want delete", mode, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if fileSum(t, path) != before {
		t.Error("the file changed")
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s created", side)
		}
	}
}

// A missing file is not created (nor its directory); an older schema is
// refused without migrating it, a newer one too.
func TestOpenReadOnlyRefusals(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "no", "runs.db")
	if _, err := OpenReadOnly(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory was created: %v", err)
	}

	old := filepath.Join(t.TempDir(), "old.db")
	first, err := migrationFS.ReadFile("migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(old))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, []Component{{Name: coreName, Migrations: fstest.MapFS{"migrations/0001_init.sql": {Data: first}}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenReadOnly(ctx, old); !errors.Is(err, ErrSchemaBehind) {
		t.Errorf("old schema: %v", err)
	}
	db, err = sql.Open("sqlite", fileURI(old))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := componentVersion(ctx, db, coreName); err != nil || v != 1 {
		t.Errorf("version %d (%v) after a read-only open, want 1", v, err)
	}

	newer := filepath.Join(t.TempDir(), "newer.db")
	storeWithRun(t, newer)
	rawExec(t, newer, "PRAGMA user_version = 999")
	if _, err := OpenReadOnly(ctx, newer); err == nil || !strings.Contains(err.Error(), "newer than this superbiz") {
		t.Errorf("newer schema: %v", err)
	}
}

// OpenSnapshot reads a WAL store nobody has open without creating its
// -wal and -shm files (OpenReadOnly creates and leaves both) or changing a
// byte; while another connection has it open, the runs still in its WAL
// are read too.
func TestOpenSnapshot(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, NewRun{ID: "r_1", SessionID: "s_1", Query: "why 504s"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Fatalf("%s left by Close: the test needs a store nobody has open", side)
		}
	}
	before := fileSum(t, path)
	list := func(what string) []RunSummary {
		t.Helper()
		ro, err := OpenSnapshot(ctx, path)
		if err != nil {
			t.Fatalf("%s: OpenSnapshot: %v", what, err)
		}
		defer ro.Close()
		runs, err := ro.ListRuns(ctx, ListFilter{Limit: 10})
		if err != nil {
			t.Fatalf("%s: ListRuns: %v", what, err)
		}
		return runs
	}
	if runs := list("closed store"); len(runs) != 1 || runs[0].ID != "r_1" {
		t.Errorf("closed store: %+v, want r_1", runs)
	}
	if fileSum(t, path) != before {
		t.Error("the file changed")
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s created", side)
		}
	}

	w, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustRun(t, w, NewRun{ID: "r_2", SessionID: "s_1", Query: "in the WAL"})
	if runs := list("open store"); len(runs) != 2 {
		t.Errorf("a store another connection has open: %d runs, want r_2 from its WAL as well", len(runs))
	}
}

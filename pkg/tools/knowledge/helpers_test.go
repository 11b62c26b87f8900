package knowledge

import (
	"database/sql"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	_ "modernc.org/sqlite"
)

// openDB opens a fresh run-store-like SQLite file (the DSN of ENGINEERING.md)
// with the knowledge migrations applied in order (the run store's own
// bookkeeping is tested in runstore and TestWithRunStore).
func openDB(tb testing.TB) *sql.DB {
	tb.Helper()
	dsn := "file:" + filepath.Join(tb.TempDir(), "superbiz.db") +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		tb.Fatalf("open db: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	applyMigrations(tb, db)
	return db
}

// applyMigrations runs the knowledge migrations on db in number order.
func applyMigrations(tb testing.TB, db *sql.DB) {
	tb.Helper()
	names, err := fs.Glob(Migrations(), "migrations/*.sql")
	if err != nil || len(names) == 0 {
		tb.Fatalf("knowledge migrations: %v %v", names, err)
	}
	for _, name := range names { // Glob sorts: NNNN order
		ddl, err := fs.ReadFile(Migrations(), name)
		if err != nil {
			tb.Fatalf("read migration: %v", err)
		}
		if _, err := db.Exec(string(ddl)); err != nil {
			tb.Fatalf("apply migration %s: %v", name, err)
		}
	}
}

// writeFile creates a file (and its directories) at the slash path rel
// under dir.
func writeFile(tb testing.TB, dir, rel, content string) string {
	tb.Helper()
	return fixture.WriteFile(tb, filepath.Join(dir, filepath.FromSlash(rel)), content)
}

// copyDir copies the Markdown corpus src into a new runbooks directory.
func copyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "runbooks")
	fixture.CopyTree(tb, src, dst)
	return dst
}

package knowledge

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// migrationPath is the run store migration that creates the knowledge tables.
const migrationPath = "../../runstore/migrations/0002_knowledge.sql"

// vectorsMigrationPath is the run store migration that adds kb_vectors.
const vectorsMigrationPath = "../../runstore/migrations/0004_knowledge_vectors.sql"

// openDB opens a fresh run-store-like SQLite file (the DSN of ENGINEERING.md)
// with the knowledge migration applied.
func openDB(tb testing.TB) *sql.DB {
	tb.Helper()
	ddl, err := os.ReadFile(migrationPath)
	if err != nil {
		tb.Fatalf("read migration: %v", err)
	}
	dsn := "file:" + filepath.Join(tb.TempDir(), "superbiz.db") +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		tb.Fatalf("open db: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(ddl)); err != nil {
		tb.Fatalf("apply migration: %v", err)
	}
	vddl, err := os.ReadFile(vectorsMigrationPath)
	if err != nil {
		tb.Fatalf("read migration: %v", err)
	}
	if _, err := db.Exec(string(vddl)); err != nil {
		tb.Fatalf("apply migration: %v", err)
	}
	return db
}

// writeFile creates a file (and its directories) under dir.
func writeFile(tb testing.TB, dir, rel, content string) string {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// copyDir copies the Markdown corpus src into a new runbooks directory.
func copyDir(tb testing.TB, src string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), "runbooks")
	entries, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		writeFile(tb, dst, e.Name(), string(data))
	}
	return dst
}

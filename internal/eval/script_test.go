package eval

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
)

// A pack's .sql script builds its own fresh file and nothing else: every
// way out to another file is refused, the file named by the script is
// never created, and the allowed PRAGMAs still work.
func TestLoadScriptSandbox(t *testing.T) {
	for _, tt := range []struct {
		name, script, want string
	}{
		{"attach", "ATTACH DATABASE '%s' AS p; CREATE TABLE p.x(a);", "refused: ATTACH"},
		{"attach by expression", "ATTACH '%s' || '' AS p;", "refused: ATTACH"},
		{"vacuum into", "CREATE TABLE t(a); VACUUM INTO '%s';", "attach"},
		{"detach", "DETACH DATABASE main; -- %s", "not authorized"},
		{"load_extension", "SELECT load_extension('%s');", "load_extension"},
		{"max_page_count", "PRAGMA max_page_count = 1000000000; -- %s", "PRAGMA max_page_count"},
		{"writable_schema", "PRAGMA writable_schema = ON; -- %s", "PRAGMA writable_schema"},
		{"journal_mode", "PRAGMA journal_mode = WAL; -- %s", "PRAGMA journal_mode"},
		{"temp_store_directory", "PRAGMA temp_store_directory = '%s';", "PRAGMA temp_store_directory"},
		{"huge value", "CREATE TABLE t(a); INSERT INTO t VALUES (zeroblob(100000000)); -- %s", "too big"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "PWNED.db")
			script := filepath.Join(dir, "db.sql")
			if err := os.WriteFile(script, []byte(strings.Replace(tt.script, "%s", victim, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			err := loadScript(context.Background(), script, filepath.Join(dir, "fresh.db"))
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.want)) || !strings.Contains(err.Error(), script) {
				t.Errorf("error %v, want %q naming the script", err, tt.want)
			}
			if testing.Verbose() {
				t.Log(err)
			}
			if _, err := os.Stat(victim); !os.IsNotExist(err) {
				t.Errorf("the script created %s (%v)", victim, err)
			}
		})
	}
}

// An honest script loads, with the PRAGMAs a data set may need.
func TestLoadScriptGood(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "db.sql")
	body := "PRAGMA foreign_keys = ON; PRAGMA user_version = 3;\nCREATE TABLE a(id INTEGER PRIMARY KEY);\nCREATE TABLE b(a INTEGER REFERENCES a(id));\nINSERT INTO a VALUES (1); INSERT INTO b VALUES (1);\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "fresh.db")
	if err := loadScript(context.Background(), script, file); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, v int
	if err := db.QueryRow("SELECT count(*), (SELECT user_version FROM pragma_user_version) FROM b").Scan(&n, &v); err != nil || n != 1 || v != 3 {
		t.Errorf("rows %d, user_version %d, %v", n, v, err)
	}
}

// A script that never ends is interrupted when its context ends, and a
// script over MaxScriptBytes or a FIFO is refused before it is read.
func TestLoadScriptBounds(t *testing.T) {
	dir := t.TempDir()
	endless := filepath.Join(dir, "endless.sql")
	if err := os.WriteFile(endless, []byte("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c;"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := loadScript(ctx, endless, filepath.Join(dir, "a.db")); err == nil {
		t.Error("an endless script loaded")
	}
	big := filepath.Join(dir, "big.sql")
	if err := os.WriteFile(big, []byte("-- "+strings.Repeat("x", MaxScriptBytes)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := loadScript(context.Background(), big, filepath.Join(dir, "b.db")); err == nil || !strings.Contains(err.Error(), "larger than the 16384 KiB limit") {
		t.Errorf("big script: %v", err)
	}
	fifo := filepath.Join(dir, "fifo.sql")
	fixture.Mkfifo(t, fifo)
	if err := loadScript(context.Background(), fifo, filepath.Join(dir, "c.db")); err == nil || !strings.Contains(err.Error(), "named pipe (FIFO)") {
		t.Errorf("FIFO script: %v", err)
	}
}

// The connection's limits hold without the authorizer: no ATTACH, no
// VACUUM INTO, no value over the length bound, no file over its size bound.
func TestBoundScriptConn(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "PWNED.db")
	db, err := sql.Open("sqlite", filepath.Join(dir, "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := boundScriptConn(ctx, conn); err != nil {
		t.Fatal(err)
	}
	for stmt, want := range map[string]string{
		"ATTACH '" + victim + "' AS p":                    "too many attached databases - max 0",
		"CREATE TABLE t(a); VACUUM INTO '" + victim + "'": "too many attached databases - max 0",
		"SELECT length(zeroblob(100000000))":              "too big",
	} {
		if _, err := conn.ExecContext(ctx, stmt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.60s: %v, want %q", stmt, err, want)
		}
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("%s was created (%v)", victim, err)
	}
	var pages, size int
	if err := conn.QueryRowContext(ctx, "SELECT (SELECT max_page_count FROM pragma_max_page_count), (SELECT page_size FROM pragma_page_size)").Scan(&pages, &size); err != nil || pages*size != MaxScriptDatabaseBytes {
		t.Errorf("max_page_count %d × page_size %d, want %d bytes (%v)", pages, size, MaxScriptDatabaseBytes, err)
	}
}

package databases

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileSQLite is a database holding secrets everywhere SQLite keeps
// text: TEXT and BLOB cells, a secret-named INTEGER column, key/value rows,
// a trigger that copies a changed value elsewhere, FTS5 indexes (own
// content, external content, contentless), schema DEFAULT literals (a
// secret-named column's, a shape in another's), a view's literal, and the
// free pages a masked value leaves behind.
const hostileSQLite = `
CREATE TABLE accounts(name TEXT, password TEXT, note TEXT, n INTEGER, api_token INTEGER, raw BLOB);
INSERT INTO accounts VALUES ('a', 'PlainPw1xyz' || hex(randomblob(300)), 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', 1, 48213, CAST('db_password=BlobSecret5x' AS BLOB)),
  ('b', '', 'nothing secret', 2, NULL, x'00ff');
CREATE TABLE audit(old TEXT);
CREATE TABLE settings(name TEXT PRIMARY KEY, value TEXT);
INSERT INTO settings VALUES ('smtp_password', 'KvSecret3abc'), ('smtp_host', 'mail.internal');
CREATE TRIGGER keep_old AFTER UPDATE ON settings BEGIN INSERT INTO audit VALUES (old.value || ' was ' || 'api_key=TriggerLit7'); END;
CREATE TABLE kv(key TEXT, data BLOB, id INTEGER PRIMARY KEY);
INSERT INTO kv(key, data) VALUES ('signing_key', CAST('KvBlob4def' AS BLOB));
CREATE VIRTUAL TABLE docs USING fts5(title, body);
INSERT INTO docs VALUES ('runbook', 'rotate with password=FtsTok6ghi now');
CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);
INSERT INTO notes(body) VALUES ('login db_password=ExtTok8jkl ok');
CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id');
INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE bare USING fts5(body, content='');
INSERT INTO bare(rowid, body) VALUES (1, 'contentless api_key=BareTok9mno');
CREATE TABLE defaults(password TEXT DEFAULT 'DefaultPw10pqr', dsn TEXT DEFAULT 'postgres://app:DsnDefault11@db/x', blobby BLOB DEFAULT X'6170695f6b65793d486578446566' CHECK (length(dsn) > 0));
CREATE TABLE sessions(hint TEXT);
INSERT INTO sessions VALUES ('session_token=StatKey13abcdef'), ('x'), ('y');
CREATE INDEX sessions_hint ON sessions(hint);
ANALYZE;
CREATE VIEW v AS SELECT 'token=ghp_ViewLiteral12abcdefghijklmnopqrstuv' AS t;
`

// The secrets hostileSQLite holds, each found nowhere else.
var hostileSecrets = []string{"PlainPw1xyz", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "BlobSecret5x", "KvSecret3abc", "KvBlob4def",
	"FtsTok6ghi", "TriggerLit7", "ExtTok8jkl", "BareTok9mno", "DefaultPw10pqr", "DsnDefault11", "486578446566", "ViewLiteral12", "StatKey13"}

// The copy of a SQLite database holds no secret in any cell type, key/value
// row, full-text index, trigger, schema literal or free page; the
// database's own triggers do not fire while masking; what holds no secret
// stays, and the copy still answers queries.
func TestMaskSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(hostileSQLite); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := maskSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range hostileSecrets {
		// FTS tokens are stored lower-cased.
		if bytes.Contains(b, []byte(s)) || bytes.Contains(b, []byte(strings.ToLower(s))) {
			t.Errorf("the file still holds %s", s)
		}
	}
	for _, s := range []string{"nothing secret", "mail.internal", "runbook", "keep_old"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("%q, which holds no secret, was lost", s)
		}
	}
	if len(m.notes) != 4 || m.cells != 9 {
		t.Errorf("masked %d cells, notes %q", m.cells, m.notes)
	}
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]string{
		"SELECT count(*) FROM audit":                                   "0",
		"SELECT value FROM settings WHERE name = 'smtp_password'":      "[REDACTED]",
		"SELECT value FROM settings WHERE name = 'smtp_host'":          "mail.internal",
		"SELECT CAST(data AS TEXT) FROM kv":                            "[REDACTED]",
		"SELECT typeof(raw) FROM accounts WHERE name = 'a'":            "blob",
		"SELECT count(*) FROM docs WHERE docs MATCH 'rotate'":          "1",
		"SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'login'": "1",
		"SELECT count(*) FROM bare":                                    "0",
		"SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'":    "1",
	} {
		var got string
		if err := db.QueryRow(q).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", q, got, err, want)
		}
	}
	// The trigger is back and fires after masking.
	if _, err := db.Exec("UPDATE settings SET value = 'x' WHERE name = 'smtp_host'"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM audit").Scan(&n); err != nil || n != 1 {
		t.Errorf("the re-created trigger did not fire: %d %v", n, err)
	}
}

// The literals of a SQL text are found outside identifiers and comments,
// with their escapes, and masked in place.
func TestMaskSQLLiterals(t *testing.T) {
	for in, want := range map[string]string{
		`CREATE TABLE t(a TEXT DEFAULT 'token=ghp_abcdefghijklmnopqrstuvwxyz0123456789')`: `CREATE TABLE t(a TEXT DEFAULT 'token=[REDACTED]')`,
		`CREATE TABLE "it's"(a DEFAULT 'o''k') -- 'password=x'`:                           `CREATE TABLE "it's"(a DEFAULT 'o''k') -- 'password=x'`,
		`CREATE TABLE t(password DEFAULT 'Whole1')`:                                       `CREATE TABLE t(password DEFAULT '[REDACTED]')`,
		`CREATE TABLE t(b DEFAULT x'70617373776f72643d68696464656e31')`:                   `CREATE TABLE t(b DEFAULT X'70617373776f72643d5b52454441435445445d')`,
		`CREATE TABLE max(a DEFAULT 'plain')`:                                             `CREATE TABLE max(a DEFAULT 'plain')`,
	} {
		if got := maskSQLLiterals(in, map[string]bool{"Whole1": true}); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
}

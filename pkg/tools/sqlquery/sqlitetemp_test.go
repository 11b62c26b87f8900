package sqlquery

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// A view in the temp schema (CREATE TEMP VIEW, which lives in
// sqlite_temp_master and wins over main for an unqualified name) is judged
// as a main one: its column computed from a secret is tainted (issue 34).
// Such a view exists only on the connection that made it, so this test
// judges on that connection.
func TestSQLiteTempViewJudged(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "temp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for _, q := range []string{
		"CREATE TABLE vault (id INTEGER, password TEXT, label TEXT)",
		"CREATE TEMP VIEW tv AS SELECT id, password AS p, label FROM vault",
		"CREATE VIEW mv AS SELECT id, label FROM vault",
		"CREATE TEMP VIEW mv AS SELECT id, password AS label FROM vault",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	parser, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: parserVersion})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q      string
		secret string
		clear  []string
	}{
		{"SELECT id, p, label FROM tv", "p", []string{"id"}},
		{"SELECT id, p FROM temp.tv", "p", []string{"id"}},
		// temp.mv shadows main.mv: its label is the password.
		{"SELECT id, label FROM mv", "label", []string{"id"}},
	} {
		stmt, err := safeParse(parser, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		vt, err := myViewTaint(ctx, conn, stmt, SQLite)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if !vt.tainted[tc.secret] {
			t.Errorf("%s: %s is computed from a password in a temp view, not tainted (%v)", tc.q, tc.secret, vt.tainted)
		}
		for _, c := range tc.clear {
			if vt.tainted[c] {
				t.Errorf("%s: %s tainted", tc.q, c)
			}
		}
	}
}

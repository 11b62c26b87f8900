package sqlquery

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"

	"vitess.io/vitess/go/vt/sqlparser"
)

// The tests of this file kill mutants gremlins chose in mask.go, myviews.go
// and sensitive.go (issue 34, docs/MUTATION.md, section "mutate34c"): each
// asserts a behaviour at an edge the other tests did not reach.

// selectList parses a MySQL SELECT and returns its select list.
func selectList(t *testing.T, sql string) []sqlparser.SelectExpr {
	t.Helper()
	c, err := check(sql, MySQL, "")
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	ts, ok := c.stmt.(sqlparser.TableStatement)
	if !ok {
		t.Fatalf("%s: not a table statement", sql)
	}
	return branchExprs(ts)[0]
}

// outputExpr names the expression of output column i of n: by position
// without a star; before the first star by position; after the last star
// counted from the end; none inside the stars' expansion or when the
// count of columns does not match the list.
func TestOutputExprPositions(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		n    int
		want []string // per output column, "" for none
	}{
		{"SELECT a, b, c FROM t", 3, []string{"a", "b", "c"}},
		{"SELECT a, b, c FROM t", 4, []string{"", "", "", ""}},
		{"SELECT a, b, c FROM t", 2, []string{"", ""}},
		{"SELECT a, t.*, b, c FROM t", 6, []string{"a", "", "", "", "b", "c"}},
		{"SELECT a, t.*, b, c FROM t", 3, []string{"a", "b", "c"}},
		{"SELECT t.*, b FROM t", 3, []string{"", "", "b"}},
		{"SELECT t.*, b FROM t", 2, []string{"", "b"}},
		{"SELECT t.*, x, u.* FROM t, u", 3, []string{"", "", ""}},
		{"SELECT a, t.* FROM t", 3, []string{"a", "", ""}},
		{"SELECT t.*, x, u.*, y FROM t, u", 6, []string{"", "", "", "", "", "y"}},
		{"SELECT w, t.*, x, u.*, y, z FROM t, u", 8, []string{"w", "", "", "", "", "", "y", "z"}},
	} {
		list := selectList(t, tt.sql)
		for i, want := range tt.want {
			got := ""
			if e := outputExpr(list, i, tt.n); e != nil {
				got = sqlparser.String(e)
			}
			if got != want {
				t.Errorf("%s: column %d of %d is %q, want %q", tt.sql, i, tt.n, got, want)
			}
		}
	}
}

// KeyValueColumns finds the first key column and the first value column
// wherever they stand, and -1 for one that is absent.
func TestKeyValueColumnsPositions(t *testing.T) {
	for _, tt := range []struct {
		names    []string
		key, val int
	}{
		{[]string{"name", "value"}, 0, 1},
		{[]string{"x", "y", "value", "NAME"}, 3, 2},
		{[]string{"name", "value", "key", "val"}, 0, 1},
		{[]string{"value", "name", "val", "key"}, 1, 0},
		{[]string{"a", "b"}, -1, -1},
		{[]string{"a", "name"}, 1, -1},
		{[]string{"val", "b"}, -1, 0},
		{nil, -1, -1},
	} {
		if key, val := KeyValueColumns(tt.names); key != tt.key || val != tt.val {
			t.Errorf("KeyValueColumns(%q) = %d, %d, want %d, %d", tt.names, key, val, tt.key, tt.val)
		}
	}
}

// A key/value answer is masked by its key whatever the columns' order: the
// value column first (index 0) or the key column after it, through
// query_sql on a real SQLite file.
func TestKeyValueAnswerAnyOrder(t *testing.T) {
	tool, err := New([]Database{{Name: "app", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, secretsFixture(t))}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	for _, sql := range []string{
		"SELECT value, name FROM settings ORDER BY name",
		"SELECT 1 AS n, value, name FROM settings ORDER BY name",
	} {
		in, _ := json.Marshal(map[string]any{"sql": sql})
		_, out := run(t, tool, string(in), 8192)
		if out.Status != tools.EvidenceFound {
			t.Fatalf("%s: %s/%s (%v)", sql, out.Status, out.ErrorCode, out.Detail)
		}
		b, _ := json.Marshal(out.Result)
		if strings.Contains(string(b), "planted-setting-1") || !strings.Contains(string(b), "mail.example") {
			t.Errorf("%s: want planted-setting-1 masked, mail.example shown: %s", sql, b)
		}
	}
}

// A column renamed by a derived table's column list, `AS d(p)`, is
// computed from what the list renames: p of (SELECT password …) is secret,
// n of (SELECT name …) is not (MySQL 8 reads such lists).
func TestDerivedColumnListTainted(t *testing.T) {
	for _, tt := range []struct {
		sql    string
		names  []string
		secret []bool
	}{
		{"SELECT p, n FROM (SELECT password, name FROM users) AS d(p, n)", []string{"p", "n"}, []bool{true, false}},
		{"WITH c(p, n) AS (SELECT password, name FROM users) SELECT p, n FROM c", []string{"p", "n"}, []bool{true, false}},
	} {
		c, err := check(tt.sql, MySQL, "")
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		m := newColumnMask(c, tt.names, nil)
		for i, want := range tt.secret {
			if m.secret[i] != want {
				t.Errorf("%s: column %s secret %v, want %v", tt.sql, tt.names[i], m.secret[i], want)
			}
		}
	}
}

// sqliteWith is query_mysql on a new SQLite file made by stmts.
func sqliteWith(t *testing.T, stmts []string) *Tool {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("fixture %q: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	tool, err := New([]Database{{Name: "shop", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, path), MaxRows: 5, Timeout: 30 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

// A view is judged by its body down to myMaxViewDepth levels and up to
// myMaxViewLookups views a statement: exactly at each bound the plain
// column is shown; one view deeper, or one view more, masks it and the
// note says which bound was passed.
func TestSQLiteViewBounds(t *testing.T) {
	stmts := []string{"CREATE TABLE t (id INTEGER, label TEXT)", "INSERT INTO t VALUES (1, 'plain')",
		"CREATE VIEW c1 AS SELECT id, label FROM t"}
	for i := 2; i <= myMaxViewDepth+1; i++ {
		stmts = append(stmts, fmt.Sprintf("CREATE VIEW c%d AS SELECT id, label FROM c%d", i, i-1))
	}
	for i := 1; i <= myMaxViewLookups+1; i++ {
		stmts = append(stmts, fmt.Sprintf("CREATE VIEW f%d AS SELECT id, label FROM t", i))
	}
	tool := sqliteWith(t, stmts)
	union := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("SELECT label FROM f%d", i+1)
		}
		return strings.Join(parts, " UNION ALL ")
	}
	for _, tt := range []struct {
		sql  string
		note string // "" when the answer is shown in clear
	}{
		{fmt.Sprintf("SELECT label FROM c%d", myMaxViewDepth), ""},
		{fmt.Sprintf("SELECT label FROM c%d", myMaxViewDepth+1), fmt.Sprintf("views nested deeper than %d", myMaxViewDepth)},
		{union(myMaxViewLookups), ""},
		{union(myMaxViewLookups + 1), fmt.Sprintf("reads more than %d views", myMaxViewLookups)},
	} {
		out := execute(t, tool, tt.sql, 5)
		res, ok := out.Result.(Result)
		if out.Detail != nil || !ok || len(res.Rows) == 0 {
			t.Fatalf("%.60s…: %s/%s (%v) %+v", tt.sql, out.Status, out.ErrorCode, out.Detail, out.Result)
		}
		masked := res.Rows[0][0] == egress.Marker
		if masked != (tt.note != "") || !strings.Contains(res.Note, tt.note) || (tt.note == "" && res.Note != "") {
			t.Errorf("%.60s…: row %v, note %q; want masked %v, note %q", tt.sql, res.Rows[0], res.Note, tt.note != "", tt.note)
		}
	}
}

// On MySQL and MariaDB a view whose body reads what the guard refuses
// (other sessions' statement text) is refused like that source, for the
// account that can read the body; SQLite has no such sources.
func TestMariaDBViewOnRefusedSource(t *testing.T) {
	admin, _ := myViewsDatabase(t)
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE VIEW v_sessions AS SELECT ID AS id, INFO AS running FROM information_schema.PROCESSLIST"); err != nil {
		t.Fatal(err)
	}
	out := execute(t, myViewTool(t, admin), "SELECT id FROM v_sessions", 5)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeNotAllowed || out.Detail == nil ||
		!strings.Contains(out.Detail.Error(), "v_sessions is built on what the guard refuses") {
		t.Fatalf("a view over PROCESSLIST.INFO: %s/%s (%v) %+v", out.Status, out.ErrorCode, out.Detail, out.Result)
	}
}

// A view named with its database from a connection whose default database
// is another is judged where it is: v_list's column b renames api_token,
// so canary_….v_list read from the shop database masks it.
func TestMariaDBViewInAnotherDatabase(t *testing.T) {
	admin, _ := myViewsDatabase(t)
	c, err := mysql.ParseDSN(admin)
	if err != nil {
		t.Fatal(err)
	}
	tool := myViewTool(t, mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN"))
	out := execute(t, tool, "SELECT a, b, c FROM `"+c.DBName+"`.v_list ORDER BY a", 5)
	res, ok := out.Result.(Result)
	if out.Detail != nil || !ok || len(res.Rows) != 2 {
		t.Fatalf("%s/%s (%v) %+v", out.Status, out.ErrorCode, out.Detail, out.Result)
	}
	b, _ := json.Marshal(res)
	if c := myFindCanary(string(b)); c != "" || res.Rows[0][1] != egress.Marker || res.Rows[0][2] != "ann" {
		t.Errorf("v_list read from another database: %s (canary %q)", b, c)
	}
}

// A column list closes where it opened: a write privilege after a
// privilege with a column list is still split off and warned about.
func TestGrantColumnListThenWrite(t *testing.T) {
	got := GrantWarnings([]string{"GRANT SELECT (id, name), INSERT, UPDATE (a, b), DELETE ON `shop`.* TO `x`@`%`"})
	if len(got) != 1 || !strings.Contains(got[0], "INSERT, UPDATE, DELETE on `shop`.*") {
		t.Fatalf("warnings %q, want one naming INSERT, UPDATE, DELETE", got)
	}
}

// doctor's Ping of a reachable database succeeds: a SQLite file through
// SQLite (not the servers' path), MariaDB through its server.
func TestPingReachable(t *testing.T) {
	if err := sqliteWith(t, []string{"CREATE TABLE t (id INTEGER)"}).Ping(context.Background(), "shop"); err != nil {
		t.Errorf("ping of a SQLite database: %v", err)
	}
	if err := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_DSN", 5*time.Second).Ping(context.Background(), "shop"); err != nil {
		t.Errorf("ping of MariaDB: %v", err)
	}
}

// doctor's Grants of a SQLite database: none for a query_only connection,
// an error (not an empty list) for a file that is missing.
func TestSQLiteGrants(t *testing.T) {
	if w, err := sqliteWith(t, []string{"CREATE TABLE t (id INTEGER)"}).Grants(context.Background(), "shop"); err != nil || len(w) != 0 {
		t.Errorf("grants of a SQLite database: %q, %v", w, err)
	}
	gone, err := New([]Database{{Name: "gone", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, filepath.Join(t.TempDir(), "missing.db"))}})
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	if w, err := gone.Grants(context.Background(), "gone"); err == nil {
		t.Errorf("grants of a missing SQLite file: %q and no error", w)
	}
}

// A DSN gives the egress policy its password (MySQL, PostgreSQL) and shows
// itself with the password hidden and the rest readable; an unset DSN
// shows as nothing.
func TestDSNPasswordAndRedacted(t *testing.T) {
	for _, tt := range []struct {
		driver Driver
		raw    string
		shown  string
	}{
		{DriverMySQL, "ro:Pw-Cobalt-77@tcp(db.internal:3306)/shop", "db.internal:3306"},
		{DriverPostgres, "postgres://ro:Pw-Cobalt-77@db.internal:5432/shop?sslmode=disable", "db.internal:5432"},
	} {
		d, err := NewDSN(tt.driver, tt.raw)
		if err != nil {
			t.Fatalf("%s: %v", tt.raw, err)
		}
		if got := d.Password().Reveal(); got != "Pw-Cobalt-77" {
			t.Errorf("%s: password %q", tt.driver, got)
		}
		if r := d.Redacted(); strings.Contains(r, "Pw-Cobalt-77") || !strings.Contains(r, tt.shown) {
			t.Errorf("%s: redacted %q, want the password hidden and %s shown", tt.driver, r, tt.shown)
		}
	}
	if r := (DSN{}).Redacted(); r != "" {
		t.Errorf("an unset DSN shows as %q", r)
	}
}

// doctor names at most 3 of the views whose bodies the account cannot
// read, and says "…" only when there are more than 3.
func TestMariaDBViewWarningNames(t *testing.T) {
	admin, reader := myViewsDatabase(t)
	warning := func() string {
		t.Helper()
		w, err := myViewTool(t, reader).Grants(context.Background(), "shop")
		if err != nil || len(w) != 1 {
			t.Fatalf("warnings %q, err %v", w, err)
		}
		return w[0]
	}
	if w := warning(); !strings.Contains(w, "13 views") || !strings.Contains(w, ", …)") {
		t.Errorf("13 views: %q, want 3 named and …", w)
	}
	db, err := sql.Open("mysql", admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DROP VIEW v_rename, v_list, v_computed, v_of_view, v_deep, v_star, v_union, v_json, v_sub, v_derived"); err != nil {
		t.Fatal(err)
	}
	if w := warning(); !strings.Contains(w, "3 views (") || !strings.Contains(w, "v_join)") || strings.Contains(w, "…") {
		t.Errorf("3 views: %q, want all 3 named and no …", w)
	}
}

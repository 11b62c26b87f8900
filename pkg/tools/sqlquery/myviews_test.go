package sqlquery

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
)

// myCanaries are the secrets testdata/mariadb/views.sql plants.
var myCanaries = []string{"HunterTwoAlpaca9", "ArchivePassCobalt7", "VaultSecretIndigo4", "RestoreTokenOrchid5"}

// myFindCanary returns the first planted secret in s, any case, "" when none.
func myFindCanary(s string) string {
	lower := strings.ToLower(s)
	for _, c := range myCanaries {
		if strings.Contains(lower, strings.ToLower(c)) {
			return c
		}
	}
	return ""
}

// myViewsDatabase creates a database of its own (canary_…, which both
// accounts of .ci/mariadb.sh may use) holding testdata/mariadb/views.sql,
// dropped at the end, and returns the admin's and the SELECT-only
// account's DSNs with it as their default database.
func myViewsDatabase(t *testing.T) (admin, reader string) {
	t.Helper()
	adminDSN, readerDSN := mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN"), mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_DSN")
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	name := "canary_" + hex.EncodeToString(b)
	withDB := func(dsn, db string) string {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		c.DBName = db
		return c.FormatDSN()
	}
	db, err := sql.Open("mysql", withDB(adminDSN, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Error(err)
		}
	})
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE `"+name+"`"); err != nil {
		t.Fatal(err)
	}
	for _, q := range loadCorpus(t, "mariadb/views.sql") {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("fixture %q: %v", q, err)
		}
	}
	return withDB(adminDSN, name), withDB(readerDSN, name)
}

// corpusLeaks runs each statement of corpus on tool, reports every planted
// secret find sees in a result or an error (reaching where: "the answer",
// a role's name), and counts the statements answered and those that leaked.
func corpusLeaks(t *testing.T, tool *Tool, corpus []string, find func(string) string, where string) (answered, leaked int) {
	t.Helper()
	for _, q := range corpus {
		out := execute(t, tool, q, 50)
		b, _ := json.Marshal(out.Result)
		text := string(b)
		if out.Detail != nil {
			text += " " + out.Detail.Error()
		} else {
			answered++
		}
		if c := find(text); c != "" {
			leaked++
			t.Errorf("%q: %s reached %s: %s", q, c, where, text)
		}
	}
	return answered, leaked
}

// myViewTool is query_mysql on dsn.
func myViewTool(t *testing.T, dsn string) *Tool {
	t.Helper()
	tool, err := New([]Database{{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, dsn), MaxRows: 50, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	return tool
}

// The view-rename leak (issue 34): a view that renames or computes from a
// secret-named column, directly, through other views, unions, derived
// tables or sub-selects, returns no planted secret, on the account that
// reads view bodies (judged by the body) and on the SELECT-only account
// that cannot (every column of such a view masked).
func TestMariaDBViewLeakCorpus(t *testing.T) {
	admin, reader := myViewsDatabase(t)
	corpus := loadCorpus(t, "mariadb/leaks.sql")
	for _, role := range []struct{ name, dsn string }{{"admin (SHOW VIEW)", admin}, {"select-only", reader}} {
		t.Run(role.name, func(t *testing.T) {
			answered, _ := corpusLeaks(t, myViewTool(t, role.dsn), corpus, myFindCanary, "the answer")
			if answered < len(corpus)-2 {
				t.Errorf("only %d of %d statements answered: the corpus tests refusals, not masking", answered, len(corpus))
			}
			reliability.Record(t, reliability.SectionSQL, "mariadb view leak corpus, "+role.name, map[string]any{
				"tried": len(corpus), "answered": answered, "leaked": 0,
			})
		})
	}
}

// A view's body decides where it can be read: its other columns stay in
// clear and no note is added; where it cannot (no SHOW VIEW), every column
// is masked and the answer says why.
func TestMariaDBViewBodyDecides(t *testing.T) {
	admin, reader := myViewsDatabase(t)
	rows := func(t *testing.T, dsn, q string) Result {
		t.Helper()
		out := execute(t, myViewTool(t, dsn), q, 10)
		res, ok := out.Result.(Result)
		if out.Detail != nil || !ok || len(res.Rows) == 0 {
			t.Fatalf("%q: %s/%s (%v) %+v", q, out.Status, out.ErrorCode, out.Detail, out.Result)
		}
		return res
	}
	res := rows(t, admin, "SELECT id, pw, name FROM v_rename ORDER BY id")
	if res.Rows[0][1] != egress.Marker || res.Rows[0][2] != "ann" || res.Note != "" {
		t.Errorf("admin, v_rename: %+v", res)
	}
	res = rows(t, admin, "SELECT n, top FROM v_counts")
	if res.Rows[0][0] == egress.Marker || res.Rows[0][1] == egress.Marker {
		t.Errorf("admin, a count of a secret column is no secret: %+v", res)
	}
	res = rows(t, admin, "SELECT who, total FROM v_join ORDER BY order_id")
	if res.Rows[0][0] != egress.Marker || res.Rows[0][1] == egress.Marker {
		t.Errorf("admin, v_join: %+v", res)
	}
	res = rows(t, reader, "SELECT id, name FROM v_clean ORDER BY id")
	if res.Rows[0][1] != egress.Marker || !strings.Contains(res.Note, "v_clean") || !strings.Contains(res.Note, "SHOW VIEW") {
		t.Errorf("select-only, a view whose body it cannot read: %+v", res)
	}
	res = rows(t, reader, "SELECT id, user_id FROM orders ORDER BY id")
	if res.Rows[0][1] == egress.Marker || res.Note != "" {
		t.Errorf("select-only, a table is no view: %+v", res)
	}
}

// doctor says when the account cannot read view bodies (no SHOW VIEW), and
// not when it can.
func TestMariaDBViewWarnings(t *testing.T) {
	admin, reader := myViewsDatabase(t)
	w, err := myViewTool(t, reader).Grants(context.Background(), "shop")
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "lacks SHOW VIEW") || !strings.Contains(w[0], "13 views") {
		t.Errorf("select-only account: warnings %q, err %v", w, err)
	}
	w, err = myViewTool(t, admin).Grants(context.Background(), "shop")
	if err != nil || strings.Contains(strings.Join(w, "\n"), "SHOW VIEW") {
		t.Errorf("admin account: warnings %q, err %v", w, err)
	}
}

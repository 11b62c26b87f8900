package sqlquery

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Each server-side layer of query_mysql is tested on real MariaDB with the
// parser guard bypassed (runMySQL takes the text as given), on the
// privileged account: the layer alone must hold.

// bypass runs text through every layer after the guard.
func bypass(t *testing.T, tool *Tool, text string, maxRows int, lim timeLimits) (Result, error) {
	t.Helper()
	return tool.dbs["shop"].runMySQL(context.Background(), text, maxRows, nil, lim)
}

// The read-only session and transaction refuse every write. The attempts
// are no-ops even where the layer fails (no row matches, the table exists,
// the table does not): a broken layer shows as a statement that succeeds,
// and the shared fixture (other worktrees test against the same server) is
// never changed or extended.
func TestMariaDBReadOnlyTransactionWithoutGuard(t *testing.T) {
	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN", 5*time.Second)
	admin := adminDB(t)
	before := fixtureChecksum(t, admin)
	lim := timeLimits{server: 5 * time.Second, client: 5 * time.Second}
	for _, stmt := range []string{
		"INSERT INTO orders SELECT * FROM orders WHERE 1 = 0",
		"UPDATE orders SET note = note WHERE id = 1",
		"DELETE FROM orders WHERE id = -1",
		"CREATE TABLE IF NOT EXISTS orders (a INT)", // DDL: refused by the read-only session
		"DROP TABLE IF EXISTS superbiz_never_created",
		"CREATE TEMPORARY TABLE superbiz_layer_tmp (a INT)",
	} {
		_, err := bypass(t, tool, stmt, 20, lim)
		if err == nil {
			t.Errorf("%s: succeeded without the guard: the READ ONLY transaction did not refuse it", stmt)
			continue
		}
		if n := mysqlErrorNumber(err); n != 1792 {
			t.Errorf("%s: server error %d (%v), want 1792 (READ ONLY transaction)", stmt, n, err)
		}
		if code := classify(err); code != tools.CodeNotReadOnly {
			t.Errorf("%s: classified %s, want NOT_READ_ONLY", stmt, code)
		}
	}
	// The statement runs inside an open transaction of a read-only session.
	// (READ ONLY on START TRANSACTION is then implied by the session: the
	// keyword alone is not observable.)
	res, err := bypass(t, tool, "SELECT @@in_transaction, @@session.tx_read_only", 20, lim)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res.Rows); string(b) != "[[1,1]]" {
		t.Errorf("in_transaction, tx_read_only = %s, want [[1,1]]", b)
	}
	if after := fixtureChecksum(t, admin); after != before {
		t.Fatalf("fixture changed: before %s, after %s", before, after)
	}
}

// The server's own limit stops a slow read (the client deadline is set far
// beyond it), in the unit the server reads: a read well within the limit
// is not stopped, a read over it is.
func TestMariaDBServerTimeLimitWithoutGuard(t *testing.T) {
	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN", 5*time.Second)
	lim := timeLimits{server: time.Second, client: time.Minute}

	res, err := bypass(t, tool, "SELECT SLEEP(0.3) AS slept", 20, lim)
	if err != nil {
		t.Fatalf("a read within the server limit was stopped: %v", err)
	}
	if b, _ := json.Marshal(res.Rows); string(b) != "[[0]]" {
		t.Fatalf("SLEEP(0.3) under a 1 s limit returned %s, want [[0]] (not interrupted)", b)
	}

	_, err = bypass(t, tool, "SELECT SLEEP(5) AS slept", 20, lim)
	var te *timeoutError
	if !errors.As(err, &te) || mysqlErrorNumber(err) != 1969 {
		t.Fatalf("SLEEP(5) under a 1 s server limit: %v, want the server's max_statement_time error 1969", err)
	}
	if classify(err) != tools.CodeTimeout || !strings.Contains(err.Error(), "max_statement_time") || te.limit != time.Second {
		t.Fatalf("detail %q (limit %s), want TIMEOUT naming max_statement_time and 1s", err, te.limit)
	}
}

func TestServerLimitUnits(t *testing.T) {
	tests := []struct {
		d     Dialect
		limit time.Duration
		want  string
	}{
		{MariaDB, 1500 * time.Millisecond, "SET SESSION max_statement_time = 1.500"},
		{MariaDB, 5 * time.Second, "SET SESSION max_statement_time = 5.000"},
		{MySQL, 1500 * time.Millisecond, "SET SESSION max_execution_time = 1500"},
		{MySQL, 100 * time.Microsecond, "SET SESSION max_execution_time = 1"},
	}
	for _, tt := range tests {
		if got := serverLimit(tt.d, tt.limit); got != tt.want {
			t.Errorf("serverLimit(%s, %s) = %q, want %q", tt.d, tt.limit, got, tt.want)
		}
	}
}

// A DSN asking for multiStatements=true does not get it: the driver sends
// the text as one statement and the server refuses the second one.
func TestMariaDBMultiStatementsOffWithoutGuard(t *testing.T) {
	cfg, err := mysql.ParseDSN(mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MultiStatements = true
	tool, err := New([]Database{{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, cfg.FormatDSN()), Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	lim := timeLimits{server: 5 * time.Second, client: 5 * time.Second}
	for _, stmt := range []string{"SELECT 1; SELECT 2", "SELECT 1; COMMIT; DELETE FROM orders WHERE id = -1"} {
		_, err := bypass(t, tool, stmt, 20, lim)
		if n := mysqlErrorNumber(err); n != 1064 {
			t.Errorf("%q: got %v, want the server's syntax error 1064 (one statement only)", stmt, err)
		}
	}
}

// The per-database max_rows caps the answer whatever the model asks for,
// and the row cap holds on a statement without the LIMIT the guard adds.
func TestMariaDBMaxRowsPerDatabase(t *testing.T) {
	dsn := mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_DSN")
	tool, err := New([]Database{{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, dsn), MaxRows: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	out := execute(t, tool, "SELECT id FROM orders ORDER BY id", 50)
	res, ok := out.Result.(Result)
	if !ok || res.RowCount != 2 || len(res.Rows) != 2 || !res.Truncated {
		t.Fatalf("max_rows 2 on the database, 50 asked: %s/%s %+v", out.Status, out.ErrorCode, out.Result)
	}
	res, err = bypass(t, tool, "SELECT id FROM orders ORDER BY id", 2, timeLimits{server: 5 * time.Second, client: 5 * time.Second})
	if err != nil || res.RowCount != 2 || len(res.Rows) != 2 || !res.Truncated {
		t.Fatalf("row cap without LIMIT: %+v, %v", res, err)
	}
}

// On the privileged account (PROCESS) the guard is what keeps other
// sessions' statements out: bypassed, the text is there; through Execute the
// read is refused, also when the DSN's default schema makes the name
// unqualified; the other process-list columns stay readable.
func TestMariaDBStatementTextRefused(t *testing.T) {
	admin := adminDB(t)
	const planted = "superbiz-planted-statement-token"
	other, err := admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	done := make(chan error, 1)
	go func() {
		_, err := other.ExecContext(context.Background(), "SELECT SLEEP(3), '"+planted+"'")
		done <- err
	}()
	defer func() {
		// The other session's SLEEP may end either way; the test only waits for it.
		if err := <-done; err != nil {
			t.Logf("other session: %v", err)
		}
	}()

	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN", 5*time.Second)
	lim := timeLimits{server: 5 * time.Second, client: 5 * time.Second}
	seen := false
	for i := 0; i < 30 && !seen; i++ {
		res, err := bypass(t, tool, "SELECT info FROM information_schema.processlist", 100, lim)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Rows)
		seen = strings.Contains(string(b), planted)
		if !seen {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !seen {
		t.Fatal("the other session's statement never showed in the process list: the probe proves nothing")
	}

	cfg, err := mysql.ParseDSN(mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_ADMIN_DSN"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = "information_schema"
	inSchema, err := New([]Database{{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, cfg.FormatDSN())}})
	if err != nil {
		t.Fatal(err)
	}
	defer inSchema.Close()

	tried, admitted := 0, 0
	for _, c := range []struct {
		tool *Tool
		sql  string
	}{
		{tool, "SELECT info FROM information_schema.processlist"},
		{tool, "SELECT * FROM INFORMATION_SCHEMA.PROCESSLIST"},
		{tool, "SELECT id FROM information_schema.processlist WHERE info LIKE '%planted%'"},
		{tool, "SHOW FULL PROCESSLIST"},
		{tool, "SHOW PROCESSLIST"},
		{tool, "SHOW ENGINE INNODB STATUS"},
		{tool, "SELECT user, authentication_string FROM mysql.user"},
		{tool, "SELECT Priv FROM mysql.global_priv"},
		{inSchema, "SELECT info FROM processlist"},
		{inSchema, "SELECT * FROM `processlist`"},
	} {
		tried++
		out := execute(t, c.tool, c.sql, 100)
		r, ok := IsRefusal(out.Detail)
		if out.ErrorCode != tools.CodeNotAllowed || !ok || r.Reason != ReasonNotAllowed {
			admitted++
			t.Errorf("%q: got %s/%s (%v), want a NOT_ALLOWED refusal", c.sql, out.Status, out.ErrorCode, out.Detail)
		}
		if b, _ := json.Marshal(out.Result); strings.Contains(string(b), planted) {
			t.Errorf("%q: the other session's statement reached the observation", c.sql)
		}
	}
	reliability.Record(t, reliability.SectionSQL, "mariadb, privileged account: credential and statement-text reads", map[string]any{
		"tried": tried, "admitted": admitted, "refused": tried - admitted,
	})

	out := execute(t, inSchema, "SELECT id, user, command, state FROM processlist", 100)
	if out.Status != tools.EvidenceFound {
		t.Fatalf("process list without statement text: %s/%s (%v)", out.Status, out.ErrorCode, out.Detail)
	}
}

// passwordHash is a mysql_native_password hash.
var passwordHash = regexp.MustCompile(`\*[0-9A-Fa-f]{40}`)

// Column-name masking with MariaDB's own column metadata.
func TestMariaDBSecretCellsMasked(t *testing.T) {
	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_DSN", 5*time.Second)
	tests := []struct{ sql, planted, visible string }{
		{"SELECT 'planted-m-1' AS authentication_string, 'kept' AS note", "planted-m-1", "kept"},
		{"SELECT name AS Password FROM customers ORDER BY id", "", "Password"},
		{"SELECT x.api_key AS p FROM (SELECT 'planted-m-2' AS api_key) AS x", "planted-m-2", ""},
		{`SELECT '{"auth":{"token":"planted-m-3"},"ok":1}' AS payload`, "planted-m-3", `\"ok\":1`},
	}
	planted, leaked := 0, 0
	for _, tt := range tests {
		out := execute(t, tool, tt.sql, 20)
		if out.Status != tools.EvidenceFound {
			t.Errorf("%s: %s/%s (%v)", tt.sql, out.Status, out.ErrorCode, out.Detail)
			continue
		}
		b, _ := json.Marshal(out.Result)
		if tt.planted != "" {
			planted++
			if strings.Contains(string(b), tt.planted) {
				leaked++
				t.Errorf("%s: leaks: %s", tt.sql, b)
			}
		}
		if tt.visible != "" && !strings.Contains(string(b), tt.visible) {
			t.Errorf("%s: %q missing: %s", tt.sql, tt.visible, b)
		}
	}
	// SHOW GRANTS of an account with a password carries its hash.
	out := execute(t, tool, "SHOW GRANTS", 20)
	b, _ := json.Marshal(out.Result)
	if out.Status != tools.EvidenceFound || !strings.Contains(string(b), "IDENTIFIED BY PASSWORD") {
		t.Fatalf("SHOW GRANTS: %s/%s %s", out.Status, out.ErrorCode, b)
	}
	planted++
	if passwordHash.Match(b) {
		leaked++
		t.Errorf("SHOW GRANTS shows a password hash: %s", b)
	}
	reliability.Record(t, reliability.SectionSecrets, "query_mysql cells (mariadb)", map[string]any{"planted": planted, "leaked": leaked})
}

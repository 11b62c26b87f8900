package sqlquery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// loadCorpus reads a testdata corpus: entries separated by lines holding only
// ";;", everything before the first separator being the file's header.
func loadCorpus(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	parts := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n;;\n")
	var out []string
	for _, p := range parts[1:] {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func TestCheckRefusesCorpus(t *testing.T) {
	corpus := loadCorpus(t, "refused.sql")
	if len(corpus) < 60 {
		t.Fatalf("refusal corpus has %d entries, want at least 60", len(corpus))
	}
	for _, d := range []Dialect{MySQL, MariaDB, SQLite} {
		for _, q := range corpus {
			rendered, err := Check(q, d, "shop")
			if err == nil {
				t.Errorf("%s: admitted %q as %q", d, q, rendered)
				continue
			}
			if _, ok := IsRefusal(err); !ok {
				t.Errorf("%s: %q: error is not a *Refusal: %v", d, q, err)
			}
		}
	}
}

func TestCheckAdmitsCorpus(t *testing.T) {
	corpus := loadCorpus(t, "admitted.sql")
	if len(corpus) < 20 {
		t.Fatalf("admitted corpus has %d entries, want at least 20", len(corpus))
	}
	for _, d := range []Dialect{MySQL, MariaDB} {
		for _, q := range corpus {
			rendered, err := Check(q, d, "shop")
			if err != nil {
				t.Errorf("%s: refused %q: %v", d, q, err)
				continue
			}
			if strings.Contains(rendered, "/*") {
				t.Errorf("%s: rendering of %q carries a comment: %q", d, q, rendered)
			}
		}
	}
}

func TestCheckReasons(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		d    Dialect
		want Reason // "" means admitted
	}{
		{"empty", "   ", MySQL, ReasonEmpty},
		{"too long", "SELECT '" + strings.Repeat("x", MaxSQLBytes) + "'", MySQL, ReasonTooLong},
		{"garbage", "SELEC 1", MySQL, ReasonUnparsable},
		{"stacked", "SELECT 1; SELECT 2", MySQL, ReasonUnparsable},
		{"nul byte", "SELECT 1\x00", MySQL, ReasonUnparsable},
		{"parser panic", "SELECT@@GLOBAL. ", MySQL, ReasonUnparsable},
		{"renderer panic", "SHOW STATUS LIKE''", MySQL, ReasonUnparsable},
		{"delete", "DELETE FROM orders", MySQL, ReasonStatementKind},
		{"outfile", "SELECT * FROM t INTO OUTFILE '/tmp/x'", MySQL, ReasonInto},
		{"into var", "SELECT 1 INTO @x", MySQL, ReasonInto},
		{"for update", "SELECT * FROM t FOR UPDATE", MySQL, ReasonLock},
		{"share mode in union", "SELECT 1 UNION SELECT 2 LOCK IN SHARE MODE", MySQL, ReasonLock},
		{"hint", "SELECT /*+ SET_VAR(sql_mode='') */ 1", MySQL, ReasonComment},
		{"plain comment after select", "SELECT /* why */ 1", MySQL, ReasonComment},
		{"user var", "SELECT @x", MySQL, ReasonVariable},
		{"assignment", "SELECT @x := 1", MySQL, ReasonVariable},
		{"sleep", "SELECT SLEEP(1)", MySQL, ReasonFunction},
		{"sleep in version comment", "SELECT 1 /*!50000 , SLEEP(1) */", MySQL, ReasonFunction},
		{"sleep in subquery", "SELECT * FROM t WHERE a = (SELECT SLEEP(1))", MySQL, ReasonFunction},
		{"qualified function", "SELECT db.f(1)", MySQL, ReasonFunction},
		{"get_lock node", "SELECT GET_LOCK('a', 1)", MySQL, ReasonConstruct},
		{"explain analyze", "EXPLAIN ANALYZE SELECT 1", MySQL, ReasonExplainKind},
		{"explain delete", "EXPLAIN DELETE FROM t", MySQL, ReasonExplainKind},
		{"show create user", "SHOW CREATE USER 'a'@'b'", MySQL, ReasonShowKind},
		{"show engine mutex", "SHOW ENGINE INNODB MUTEX", MySQL, ReasonShowKind},
		{"bind param", "SELECT * FROM t WHERE a = ?", MySQL, ReasonConstruct},
		{"sqlite pipes", "SELECT a || b FROM t", SQLite, ReasonDialect},
		{"sqlite sysvar", "SELECT @@version", SQLite, ReasonDialect},
		{"sqlite datetime on mysql", "SELECT datetime('now')", MySQL, ReasonFunction},
		{"engine innodb status shows statements", "SHOW ENGINE INNODB STATUS", MariaDB, ReasonNotAllowed},
		{"processlist", "SHOW PROCESSLIST", MariaDB, ReasonNotAllowed},
		{"full processlist", "SHOW FULL PROCESSLIST", MySQL, ReasonNotAllowed},
		{"sqlite datetime", "SELECT datetime('now', '-1 hour'), strftime('%H', created_at), julianday('now') FROM orders", SQLite, ""},
		{"trailing semicolon", "SELECT 1;", MySQL, ""},
		{"comment at end is dropped", "SELECT 1 -- trailing", MySQL, ""},
		{"comment before is dropped", "/* why */ SELECT 1", MySQL, ""},
		{"system variable", "SELECT @@max_connections, @@session.sql_mode", MariaDB, ""},
		{"secret-named global variable", "SELECT @@global.server_audit_password", MySQL, ReasonNotAllowed},
		{"routine bodies", "SELECT routine_definition FROM information_schema.routines", MariaDB, ReasonNotAllowed},
		{"routine names", "SELECT routine_name FROM information_schema.routines", MariaDB, ""},
		{"show create view", "SHOW CREATE VIEW v_orders", MariaDB, ReasonNotAllowed},
		{"mysql pipes are OR", "SELECT a || b FROM t", MySQL, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(tt.sql, tt.d, "shop")
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			r, ok := IsRefusal(err)
			if !ok {
				t.Fatalf("got %v, want a refusal %s", err, tt.want)
			}
			if r.Reason != tt.want {
				t.Fatalf("reason %s (%s), want %s", r.Reason, r.Detail, tt.want)
			}
		})
	}
}

// Reads of credentials and of other sessions' statements are refused with
// reason not_allowed in every shape the corpus holds, and the detail names
// the table.
func TestCheckNotAllowedCorpus(t *testing.T) {
	corpus := loadCorpus(t, "not_allowed.sql")
	if len(corpus) < 40 {
		t.Fatalf("not_allowed corpus has %d entries, want at least 40", len(corpus))
	}
	for _, d := range []Dialect{MySQL, MariaDB} {
		for _, q := range corpus {
			_, err := Check(q, d, "shop")
			r, ok := IsRefusal(err)
			if !ok || r.Reason != ReasonNotAllowed {
				t.Errorf("%s: %q: got %v, want a not_allowed refusal", d, q, err)
				continue
			}
			if !containsAny(r.Detail, whyPasswordHashes, whyStoredCredentials, whyStatementLog, whyNotListed, whyStatementColumns, whyDefinitions) {
				t.Errorf("%s: %q: detail %q does not say why", d, q, r.Detail)
			}
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// The default schema of the DSN decides what an unqualified name reads, and
// tables or columns without secrets stay readable.
func TestCheckSensitiveTables(t *testing.T) {
	tests := []struct {
		sql, schema string
		want        Reason // "" means admitted
		detail      string
	}{
		{"SELECT user, authentication_string FROM user", "mysql", ReasonNotAllowed, "mysql.user holds account password hashes"},
		{"SELECT Priv FROM `global_priv`", "MySQL", ReasonNotAllowed, "mysql.global_priv holds account password hashes"},
		{"SELECT argument FROM general_log", "mysql", ReasonNotAllowed, "mysql.general_log holds other sessions' statement text"},
		{"SELECT * FROM some_new_table", "mysql", ReasonNotAllowed, "mysql.some_new_table is not on the list"},
		{"SELECT info FROM processlist", "information_schema", ReasonNotAllowed, "column info of information_schema.processlist"},
		{"SELECT * FROM threads", "performance_schema", ReasonNotAllowed, "a * over performance_schema.threads would return processlist_info"},
		{"SELECT user, host FROM user", "shop", "", ""},
		{"SELECT user, authentication_string FROM shop.user", "mysql", "", ""},
		{"SELECT id, user, host, db, command, time, state FROM processlist", "information_schema", "", ""},
		{"SELECT user, host, db FROM mysql.db", "shop", "", ""},
		{"SELECT name FROM mysql.time_zone_name", "", "", ""},
		{"SELECT n_rows FROM mysql.innodb_table_stats WHERE table_name = 'orders'", "shop", "", ""},
		{"SELECT thread_id, processlist_user, processlist_state FROM performance_schema.threads", "shop", "", ""},
		{"SELECT count_star, sum_timer_wait FROM performance_schema.events_statements_summary_by_digest", "shop", "", ""},
		{"SELECT * FROM orders", "shop", "", ""},
		{"SHOW COLUMNS FROM mysql.user", "shop", "", ""},
		{"DESCRIBE information_schema.processlist", "shop", "", ""},
	}
	for _, tt := range tests {
		for _, d := range []Dialect{MySQL, MariaDB} {
			_, err := Check(tt.sql, d, tt.schema)
			if tt.want == "" {
				if err != nil {
					t.Errorf("%s %q (schema %q): refused: %v", d, tt.sql, tt.schema, err)
				}
				continue
			}
			r, ok := IsRefusal(err)
			if !ok || r.Reason != tt.want || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("%s %q (schema %q): got %v, want %s with %q", d, tt.sql, tt.schema, err, tt.want, tt.detail)
			}
		}
	}
}

func TestRenderIsWhatRuns(t *testing.T) {
	tests := []struct {
		sql  string
		d    Dialect
		want string
	}{
		{"select   status ,COUNT(*)  from orders group by status", MySQL, "select `status`, count(*) from orders group by `status`"},
		{"SELECT 1", MySQL, "select 1 from dual"},
		{"SELECT 1", SQLite, "select 1 from (select 1)"},
		{"SELECT 'it''s'", MySQL, "select 'it\\'s' from dual"},
		{"SELECT 'it''s'", SQLite, "select 'it''s' from (select 1)"},
		{"SELECT 1 /*!50000 + 2 */", MySQL, "select 1 + 2 from dual"},
		{"SELECT 1 /*!99999 + 2 */", MySQL, "select 1 from dual"},
		{"SELECT 1 /*M!100000 , SLEEP(5) */", MariaDB, "select 1 from dual"},
	}
	for _, tt := range tests {
		got, err := Check(tt.sql, tt.d, "shop")
		if err != nil {
			t.Errorf("%s %q: %v", tt.d, tt.sql, err)
			continue
		}
		if got != tt.want {
			t.Errorf("%s %q rendered %q, want %q", tt.d, tt.sql, got, tt.want)
		}
	}
}

func TestExecutableAddsRowCap(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"SELECT id FROM orders", "select id from orders limit 21"},
		{"SELECT id FROM orders LIMIT 5", "select id from orders limit 5"},
		{"SELECT 1 UNION SELECT 2", "select 1 from dual union select 2 from dual limit 21"},
		{"SHOW TABLES", "show tables"},
	}
	for _, tt := range tests {
		c, err := check(tt.sql, MySQL, "shop")
		if err != nil {
			t.Fatal(err)
		}
		if got := executable(c, 20); got != tt.want {
			t.Errorf("%q: executable %q, want %q", tt.sql, got, tt.want)
		}
		if c.Rendered != render(c.stmt, MySQL) {
			t.Errorf("%q: executable changed the checked tree", tt.sql)
		}
	}
}

// FuzzCheck: Check never panics, and whatever it admits re-parses to an
// admitted statement of the same kind whose rendering is stable.
func FuzzCheck(f *testing.F) {
	for _, name := range []string{"refused.sql", "admitted.sql"} {
		for _, q := range loadCorpus(f, name) {
			f.Add(q)
		}
	}
	f.Fuzz(func(t *testing.T, sql string) {
		for _, d := range []Dialect{MariaDB, SQLite} {
			c, err := check(sql, d, "shop")
			if err != nil {
				if _, ok := IsRefusal(err); !ok {
					t.Fatalf("%s: %q: non-refusal error %v", d, sql, err)
				}
				continue
			}
			if d != SQLite && c.Rendered != c.Canonical {
				t.Fatalf("%s: executed %q differs from canonical %q", d, c.Rendered, c.Canonical)
			}
			again, err := check(c.Canonical, d, "shop")
			if err != nil {
				t.Fatalf("%s: canonical %q of %q is refused: %v", d, c.Canonical, sql, err)
			}
			if again.Kind != c.Kind {
				t.Fatalf("%s: kind changed %s -> %s for %q", d, c.Kind, again.Kind, sql)
			}
			if again.Canonical != c.Canonical || again.Rendered != c.Rendered {
				t.Fatalf("%s: rendering not stable: %q -> %q", d, c.Canonical, again.Canonical)
			}
			if sqlparser.String(again.stmt) == "" {
				t.Fatalf("empty re-render for %q", sql)
			}
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	q := "SELECT o.id, c.name, o.amount_cents FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND o.created_at > DATE_SUB(NOW(), INTERVAL 1 HOUR) ORDER BY o.created_at DESC"
	for b.Loop() {
		if _, err := Check(q, MariaDB, "shop"); err != nil {
			b.Fatal(err)
		}
	}
}

// A refused object definition says what it holds, not "statement text".
func TestDefinitionRefusalSaysWhy(t *testing.T) {
	for _, q := range []string{"SELECT view_definition FROM information_schema.views", "SELECT * FROM information_schema.triggers", "SHOW CREATE VIEW v"} {
		_, err := Check(q, MariaDB, "shop")
		r, ok := IsRefusal(err)
		if !ok || r.Reason != ReasonNotAllowed || !strings.Contains(r.Detail, whyDefinitions) {
			t.Errorf("%q: %v, want not_allowed naming %q", q, err, whyDefinitions)
		}
	}
}

// The text checks every dialect shares, at their edges: a statement of
// exactly MaxSQLBytes is read, one byte more is too long; a NUL byte is
// refused wherever it stands, the first byte included; a refusal names the
// statement it refuses.
func TestCheckTextEdges(t *testing.T) {
	pad := func(n int) string { return "SELECT 1" + strings.Repeat(" ", n-len("SELECT 1")) }
	for _, tt := range []struct {
		name, sql string
		reason    Reason // "" when admitted
		says      string
	}{
		{"at the limit", pad(MaxSQLBytes), "", ""},
		{"a byte over", pad(MaxSQLBytes + 1), ReasonTooLong, "the limit is 4096"},
		{"NUL first", "\x00SELECT 1", ReasonUnparsable, "NUL byte"},
		{"NUL last", "SELECT 1\x00", ReasonUnparsable, "NUL byte"},
		{"a write", "DELETE FROM orders", ReasonStatementKind, "DELETE is not a read"},
		{"EXPLAIN of a write", "EXPLAIN DELETE FROM orders", ReasonExplainKind, "not DELETE"},
	} {
		_, err := Check(tt.sql, MySQL, "shop")
		if tt.reason == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tt.name, err)
			}
			continue
		}
		r, ok := IsRefusal(err)
		if !ok || r.Reason != tt.reason || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: got %v, want a %s refusal saying %q", tt.name, err, tt.reason, tt.says)
		}
	}
}

// A Refusal made outside the guard (Reason and Detail only) says its
// Detail, masked; the parser's message is cut to its first line.
func TestRefusalDetailAndFirstLine(t *testing.T) {
	r := &Refusal{Reason: ReasonNotAllowed, Detail: "mysql.user password=hunter2"}
	if got, want := r.Error(), "statement refused (not_allowed): mysql.user password=[REDACTED]"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	for _, tt := range []struct{ in, want string }{
		{"syntax error at position 7\nnear 'FORM'", "syntax error at position 7"},
		{"Code: INVALID_ARGUMENT\nsyntax error at position 7\nmore", "syntax error at position 7"},
		{"\nsecond line", ""},
		{" one line ", "one line"},
	} {
		if got := firstLine(tt.in); got != tt.want {
			t.Errorf("firstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

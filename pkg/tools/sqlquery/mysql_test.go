package sqlquery

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/tools"
)

// mysqlConfig gives a DSN without timeouts the connect, read and write
// backstops, and keeps the ones a DSN sets.
func TestMySQLConfigTimeouts(t *testing.T) {
	tests := []struct {
		dsn                  string
		timeout              time.Duration
		connect, read, write time.Duration
	}{
		{"ro:pw@tcp(127.0.0.1:3306)/shop", 10 * time.Second, 5 * time.Second, 40 * time.Second, 30 * time.Second},
		{"ro:pw@tcp(127.0.0.1:3306)/shop", time.Second, 5 * time.Second, 31 * time.Second, 30 * time.Second},
		{"ro:pw@tcp(127.0.0.1:3306)/shop?timeout=2s&readTimeout=3s&writeTimeout=4s", 10 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second},
	}
	for _, tt := range tests {
		cfg, err := mysqlConfig(Database{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, tt.dsn), Timeout: tt.timeout})
		if err != nil {
			t.Fatalf("%s: %v", tt.dsn, err)
		}
		if cfg.Timeout != tt.connect || cfg.ReadTimeout != tt.read || cfg.WriteTimeout != tt.write {
			t.Errorf("%s, timeout %s: connect %s, read %s, write %s; want %s, %s, %s",
				tt.dsn, tt.timeout, cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout, tt.connect, tt.read, tt.write)
		}
	}
}

// withoutMode drops one mode from a sql_mode list, in any case, and the
// empty entries; the other modes keep their order.
func TestWithoutMode(t *testing.T) {
	tests := []struct{ modes, want string }{
		{"STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES,ANSI_QUOTES", "STRICT_TRANS_TABLES,ANSI_QUOTES"},
		{"no_backslash_escapes", ""},
		{"ANSI_QUOTES,,NO_BACKSLASH_ESCAPES,", "ANSI_QUOTES"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := withoutMode(tt.modes, "NO_BACKSLASH_ESCAPES"); got != tt.want {
			t.Errorf("withoutMode(%q) = %q, want %q", tt.modes, got, tt.want)
		}
	}
}

// A session whose sql_mode has NO_BACKSLASH_ESCAPES (here set by the DSN)
// still reads the rendered statement's backslash-escaped quotes as quotes:
// runMySQL clears the mode first. Without that, the quote in the literal
// would end the string and the statement fail.
func TestMariaDBNoBackslashEscapesSession(t *testing.T) {
	dsn := mariadbDSN(t, "SUPERBIZ_TEST_MYSQL_DSN") + "?sql_mode=" + url.QueryEscape("'NO_BACKSLASH_ESCAPES'")
	tool, err := New([]Database{{Name: "shop", Driver: DriverMySQL, DSN: testDSN(t, DriverMySQL, dsn), MaxRows: 5, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tool.Close() })
	for _, tt := range []struct{ sql, want string }{
		{"SELECT 'it''s' AS v", "it's"},
		{`SELECT "a\"b" AS v`, `a"b`},
	} {
		res, err := tool.dbs["shop"].query(context.Background(), tt.sql, 5)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if len(res.Rows) != 1 || res.Rows[0][0] != tt.want {
			t.Errorf("%s: rows %v, want %q", tt.sql, res.Rows, tt.want)
		}
	}
}

// KILL QUERY of a statement that already ended (the server says unknown
// thread, 1094) is no failure: the statement is done.
func TestMariaDBKillQueryOfAnEndedStatement(t *testing.T) {
	tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_DSN", 5*time.Second)
	h := tool.dbs["shop"]
	if _, _, err := h.openMySQL(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.killQuery(context.Background(), 4_000_000_000); err != nil {
		t.Errorf("KILL QUERY of no such connection: %v", err)
	}
}

// Which connections go back to the pool after a timeout: one the server's
// own limit stopped is in a known state and is kept; one whose statement
// hit the client's deadline is dropped. When KILL QUERY cannot even be
// sent (its connection refused here), the timeout says so and carries the
// kill's own error.
func TestMariaDBTimeoutConnections(t *testing.T) {
	tests := []struct {
		name  string
		lim   timeLimits
		kill  bool // a connector for KILL QUERY that reaches nothing
		open  int  // the pool's open connections afterwards
		texts []string
	}{
		{"server limit", timeLimits{server: 500 * time.Millisecond, client: time.Minute}, false, 1, []string{"max_statement_time"}},
		{"client deadline, KILL QUERY unsent", timeLimits{server: 2 * time.Second, client: 300 * time.Millisecond}, true, 0,
			[]string{"KILL QUERY sent: false", "connect to send KILL QUERY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mariadbTool(t, "SUPERBIZ_TEST_MYSQL_DSN", 5*time.Second)
			h := tool.dbs["shop"]
			if _, _, err := h.openMySQL(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tt.kill {
				cfg := h.cfg.Clone()
				cfg.Addr = strings.TrimPrefix(testenv.ClosedURL(t), "http://")
				c, err := mysql.NewConnector(cfg)
				if err != nil {
					t.Fatal(err)
				}
				h.connector = c
			}
			_, err := bypass(t, tool, "SELECT SLEEP(3) AS slept", 20, tt.lim)
			if classify(err) != tools.CodeTimeout {
				t.Fatalf("got %v (%s), want TIMEOUT", err, classify(err))
			}
			for _, want := range tt.texts {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
			if open := h.pool.Stats().OpenConnections; open != tt.open {
				t.Errorf("%d connections open in the pool, want %d", open, tt.open)
			}
		})
	}
}

package sqlquery

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/tools"
)

// FuzzMaskJSONMembers: the lenient reader never panics, never grows a text
// by more than the markers it writes, and masking is stable.
func FuzzMaskJSONMembers(f *testing.F) {
	for _, s := range []string{`{"password":"x"}`, `{"a":{"token":[1,2]}}`, `{"b":"{\"secret\":\"y\"}"}`, `"pwd":`, `\"key\":\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := redact.NewKeyed(false).Text(s)
		if strings.Count(got, egress.Marker) == strings.Count(s, egress.Marker) && got != s {
			t.Fatalf("changed %q to %q without masking", s, got)
		}
		if again := redact.NewKeyed(false).Text(got); again != got {
			t.Fatalf("not stable: %q -> %q -> %q", s, got, again)
		}
	})
}

// secretsFixture is a SQLite database whose rows hold planted secrets under
// secret-named columns, in JSON members and in a key/value table.
func secretsFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT, API_KEY TEXT, authentication_string TEXT, sessionToken INTEGER, prefs TEXT)`,
		`INSERT INTO users VALUES (1, 'alice', 'planted-pw-1', 'planted-key-1', '*PLANTEDHASH1', 990011, '{"theme":"dark","smtp":{"password":"planted-json-1"},"headers":{"Authorization":"planted-auth-1"}}')`,
		`INSERT INTO users VALUES (2, 'bob', 'planted-pw-2', 'planted-key-2', '*PLANTEDHASH2', 990022, '{"body":"{\"api_key\":\"planted-esc-2\"}"}')`,
		`CREATE TABLE settings (name TEXT, value TEXT)`,
		`INSERT INTO settings VALUES ('smtp_password', 'planted-setting-1'), ('smtp_host', 'mail.example')`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

// Every sink gets the tool's observation: no planted secret may be in it,
// whatever the query calls the column, while the other values stay readable.
func TestSecretCellsMasked(t *testing.T) {
	tool, err := New([]Database{{Name: "app", Driver: DriverSQLite, DSN: testDSN(t, DriverSQLite, secretsFixture(t))}})
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()
	tests := []struct {
		sql     string
		planted []string // secrets the statement would return unmasked
		visible []string // non-secrets that must still be shown
	}{
		{"SELECT * FROM users ORDER BY id", []string{"planted-pw-1", "planted-key-2", "PLANTEDHASH1", "990011", "planted-json-1", "planted-auth-1", "planted-esc-2"}, []string{"alice", "dark"}},
		{"SELECT name, password AS p, api_key AS k FROM users", []string{"planted-pw-1", "planted-pw-2", "planted-key-1"}, []string{"alice", "bob"}},
		{"SELECT name AS password FROM users", []string{"alice", "bob"}, nil},
		{"SELECT 'hunter2-lit' AS Authentication_String", []string{"hunter2-lit"}, nil},
		{"SELECT upper(password) AS shout, name FROM users", []string{"PLANTED-PW-1"}, []string{"alice"}},
		{"SELECT q FROM (SELECT password AS q FROM users) AS d", []string{"planted-pw-1"}, nil},
		{"SELECT d.* FROM (SELECT name, authentication_string AS h FROM users) AS d", []string{"PLANTEDHASH1"}, []string{"alice"}},
		{"WITH c(x, y) AS (SELECT name, api_key FROM users) SELECT x, y FROM c", []string{"planted-key-1"}, []string{"alice"}},
		{"SELECT name FROM users UNION ALL SELECT password FROM users", []string{"planted-pw-1"}, nil},
		{"SELECT prefs FROM users ORDER BY id", []string{"planted-json-1", "planted-auth-1", "planted-esc-2"}, []string{"dark"}},
		{`SELECT '{"token":"planted-lit-3","who":1}' AS j`, []string{"planted-lit-3"}, []string{"who"}},
		{"SELECT name, value FROM settings ORDER BY name", []string{"planted-setting-1"}, []string{"mail.example", "smtp_password"}},
		{"SELECT count(password) AS n FROM users", nil, []string{"2"}},
	}
	planted, leaked := 0, 0
	for _, tt := range tests {
		in, _ := json.Marshal(map[string]any{"sql": tt.sql})
		_, out := run(t, tool, string(in), 8192)
		if out.Status != tools.EvidenceFound {
			t.Errorf("%s: %s/%s (%v)", tt.sql, out.Status, out.ErrorCode, out.Detail)
			continue
		}
		b, _ := json.Marshal(out.Result)
		for _, s := range tt.planted {
			planted++
			if strings.Contains(string(b), s) {
				leaked++
				t.Errorf("%s: leaks %q: %s", tt.sql, s, b)
			}
		}
		for _, s := range tt.visible {
			if !strings.Contains(string(b), s) {
				t.Errorf("%s: over-masked, %q missing: %s", tt.sql, s, b)
			}
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "query_mysql cells", map[string]any{"planted": planted, "leaked": leaked})
}

// BenchmarkMaskText: a JSON cell of the largest size masking reads.
func BenchmarkMaskText(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"items":[`)
	for sb.Len() < egress.CellBytes-200 {
		sb.WriteString(`{"id":12345,"note":"gateway timeout after retry","headers":{"Authorization":"Bearer abcdef"}},`)
	}
	sb.WriteString(`{"id":0}]}`)
	s := sb.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = cleanText(s)
	}
}

// A cell longer than masking reads is masked on its prefix, then cut: a
// secret member cut open is masked to the end, nothing past the prefix shows.
func TestCleanTextLongCell(t *testing.T) {
	long := `{"password":"` + strings.Repeat("s", 3*egress.CellBytes) + `"}`
	if got := cleanText(long); strings.Contains(got, "sss") || !strings.HasPrefix(got, `{"password":"`+egress.Marker) {
		t.Fatalf("long secret member: %q", got)
	}
	tail := strings.Repeat("a", egress.CellBytes) + `{"token":"tail-secret"}`
	if got := cleanText(tail); strings.Contains(got, "tail-secret") || len(got) > MaxCellBytes {
		t.Fatalf("text past the prefix: %q", got)
	}
}

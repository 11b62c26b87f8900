package e2e

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// pgCorpus reads a statement corpus of the query_postgres tests: entries
// separated by a line holding only ";;", the part before the first a header.
func pgCorpus(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "pkg", "tools", "sqlquery", "testdata", "postgres", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range strings.Split(string(b), "\n;;\n")[1:] {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// The PostgreSQL hostile corpus through the built binary, on a superuser:
// one `superbiz mcp` process (so the parser loads once) answers every
// statement of refused.sql and not_allowed.sql as a refused input, and a
// benign read as evidence, and neither the answers nor the server's stderr
// carry the role's password. The table rows and files are checked by
// pkg/tools/sqlquery's test of the same corpus; here the figure is the
// binary's.
func TestPostgresHostileCorpusThroughBinary(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	dsn := os.Getenv("SUPERBIZ_TEST_POSTGRES_ADMIN_DSN")
	if dsn == "" {
		testenv.Missing(t, "SUPERBIZ_TEST_POSTGRES_ADMIN_DSN not set: source .ci/postgres.sh to run the PostgreSQL corpus through the binary", ".ci/run must source .ci/postgres.sh")
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[[databases]]\nname = \"shop\"\ndriver = \"postgres\"\ndsn = \""+dsn+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["SUPERBIZ_CONFIG"] = cfg
	s, stderr := mcpSession(t, e, nil, "mcp")

	ok := callTool(t, s, "query_postgres", `{"sql":"SELECT status, count(*) FROM orders GROUP BY status ORDER BY status"}`)
	if ok.IsError || !strings.Contains(string(fixture.JSON(t, ok.StructuredContent)), `"pending",3`) {
		t.Fatalf("benign read: isError %v %s %s", ok.IsError, fixture.JSON(t, ok.StructuredContent), resultText(ok))
	}
	corpus := append(pgCorpus(t, "refused.sql"), pgCorpus(t, "not_allowed.sql")...)
	admitted := 0
	for _, q := range corpus {
		args, _ := json.Marshal(map[string]string{"sql": q})
		res := callTool(t, s, "query_postgres", string(args))
		text := resultText(res) + string(fixture.JSON(t, res.StructuredContent))
		if !res.IsError || !(strings.Contains(text, "NOT_READ_ONLY") || strings.Contains(text, "NOT_ALLOWED")) {
			admitted++
			t.Errorf("%q: isError %v %s", q, res.IsError, text)
		}
		if strings.Contains(text, "admin-secret") || strings.Contains(text, "SCRAM-SHA-256") {
			t.Errorf("%q: a credential reached the client: %s", q, text)
		}
	}
	reliability.Record(t, reliability.SectionSQL, "postgres, superuser, built binary over MCP", map[string]any{
		"tried": len(corpus), "admitted": admitted, "refused": len(corpus) - admitted,
	})
	if strings.Contains(stderr.String(), "admin-secret") {
		t.Errorf("the password is on the server's stderr:\n%s", stderr)
	}
}

// pgCanaries are secrets .ci/postgres.sh and the fixture plant, and what a
// user function that won over a built-in answers.
var pgCanaries = []string{"HunterTwoAlpaca9", "huntertwoalpaca9", "VaultSecretIndigo4", "ArchivePassCobalt7",
	"ReplPassMagenta3", "RestoreTokenOrchid5", "UmOptionSecret6", "SrvOptionSecret5", "7tlaboCssaPevihcrA", "424242"}

func pgLeaked(s string) string {
	for _, c := range pgCanaries {
		if strings.Contains(s, c) {
			return c
		}
	}
	return ""
}

// Issue 34 through the built binary, where a user meets it: a value the
// server quotes in an error text (password::int), whole rows, settings in
// other shapes, a user function named like a built-in and a view built on
// a refused catalog reach neither `tools call`'s stdout and stderr, nor an
// MCP client, nor the run store the MCP calls are audited in
// (runs.error_message, tool_invocations), nor `runs show`.
func TestPostgresIssue34ThroughBinary(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	dsn := os.Getenv("SUPERBIZ_TEST_POSTGRES_ADMIN_DSN")
	if dsn == "" {
		testenv.Missing(t, "SUPERBIZ_TEST_POSTGRES_ADMIN_DSN not set: source .ci/postgres.sh", ".ci/run must source .ci/postgres.sh")
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[[databases]]\nname = \"shop\"\ndriver = \"postgres\"\ndsn = \""+dsn+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["SUPERBIZ_CONFIG"] = cfg
	statements := []string{
		"SELECT password::int FROM users",
		"SELECT password::regclass FROM users",
		"SELECT u::text FROM users u",
		"SELECT array_agg(u) FROM users u",
		"SELECT cred::text FROM vault",
		"SELECT reverse(reset_val) FROM pg_settings",
		"SELECT name, setting FROM pg_settings WHERE name = 'primary_conninfo'",
		"SELECT length(1)",
		"SELECT umoptions FROM information_schema._pg_user_mappings",
	}
	r := e.run(t, "tools", "call", "query_postgres", `{"sql":"SELECT password::int FROM users"}`)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "invalid input syntax for type integer") {
		t.Fatalf("password::int did not fail with the server's message:\n%s", r)
	}
	for _, q := range statements {
		args, _ := json.Marshal(map[string]string{"sql": q})
		r := e.run(t, "-o", "json", "tools", "call", "query_postgres", string(args))
		if c := pgLeaked(r.stdout + r.stderr); c != "" {
			t.Errorf("%q: %s reached tools call:\n%s", q, c, r)
		}
	}
	s, stderr := mcpSession(t, e, nil, "mcp")
	for _, q := range statements {
		args, _ := json.Marshal(map[string]string{"sql": q})
		res := callTool(t, s, "query_postgres", string(args))
		if c := pgLeaked(resultText(res) + string(fixture.JSON(t, res.StructuredContent))); c != "" {
			t.Errorf("%q: %s reached the MCP client", q, c)
		}
	}
	if c := pgLeaked(stderr.String()); c != "" {
		t.Errorf("%s is on the MCP server's stderr", c)
	}
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// Every stored byte: runs.error_message, tool_invocations' observation
	// and detail, whatever the schema holds, in the file and its WAL.
	for _, f := range []string{e.vars["SUPERBIZ_DB"], e.vars["SUPERBIZ_DB"] + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if c := pgLeaked(string(b)); c != "" {
			t.Errorf("the run store %s holds %s", filepath.Base(f), c)
		}
	}
	if len(ids) < len(statements) {
		t.Fatalf("%d runs stored for %d MCP calls", len(ids), len(statements))
	}
	for _, id := range ids {
		r := e.run(t, "runs", "show", id)
		if c := pgLeaked(r.stdout + r.stderr); c != "" {
			t.Errorf("runs show %s: %s:\n%s", id, c, r)
		}
	}
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if ok.IsError || !strings.Contains(string(mustJSON(t, ok.StructuredContent)), `"pending",3`) {
		t.Fatalf("benign read: isError %v %s %s", ok.IsError, mustJSON(t, ok.StructuredContent), resultText(ok))
	}
	corpus := append(pgCorpus(t, "refused.sql"), pgCorpus(t, "not_allowed.sql")...)
	admitted := 0
	for _, q := range corpus {
		args, _ := json.Marshal(map[string]string{"sql": q})
		res := callTool(t, s, "query_postgres", string(args))
		text := resultText(res) + string(mustJSON(t, res.StructuredContent))
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

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestRefusalTextNotMasked (issue 34 item 19): a refusal is our own text,
// made by egress.Sprintf from a constant, so the masker never reads its
// words as a key and a value: `tools call` prints "which can hold
// credentials; reading it is not allowed", never "credentials: [REDACTED]".
func TestRefusalTextNotMasked(t *testing.T) {
	dsn := os.Getenv("SUPERBIZ_TEST_POSTGRES_DSN")
	if dsn == "" {
		testenv.Missing(t, "SUPERBIZ_TEST_POSTGRES_DSN not set: source .ci/postgres.sh", ".ci/run must source .ci/postgres.sh")
	}
	e := newEnv(t, testenv.ClosedURL(t))
	cfg := filepath.Join(e.dir, "superbiz.toml")
	writeFiles(t, e.dir, map[string]string{"superbiz.toml": "[knowledge]\npaths = []\n\n[[databases]]\nname = \"shop\"\ndriver = \"postgres\"\ndsn = \"" + dsn + "\"\n"})
	e.vars["SUPERBIZ_CONFIG"] = cfg
	r := e.run(t, "tools", "call", "query_postgres", `{"database":"shop","sql":"SELECT pg_get_functiondef(1)"}`)
	if r.code != 2 || !strings.Contains(r.stderr, "which can hold credentials; reading it is not allowed") || strings.Contains(r.stderr, "[REDACTED]") {
		t.Fatalf("want exit 2 and the refusal's own words unmasked: %s", r)
	}
}

package e2e

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestRunsShowRemasksStoredText: a store written by an older version, or
// before a credential was configured, can hold a secret in clear. `runs
// show` (text, Markdown and -o json) and `runs` pass what they print
// through the door with every credential the configuration now holds: the
// configured database password, planted bare in the stored answer and an
// observation, and a key=value secret the policy knows by shape are never
// printed (issue 34).
func TestRunsShowRemasksStoredText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	if r := e.run(t, "diagnose", "--demo"); r.code != 0 {
		t.Fatalf("demo run: %s", r)
	}
	const dbPassword, shaped = "StoredDsnPw4Amber", "ShapedSecret9Teal"
	db, err := sql.Open("sqlite", e.vars["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE runs SET answer = answer || ' the db said StoredDsnPw4Amber; password=ShapedSecret9Teal', query = query || ' StoredDsnPw4Amber'`,
		`UPDATE tool_invocations SET input_summary = input_summary || ' StoredDsnPw4Amber', detail = 'dial: StoredDsnPw4Amber refused'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[[databases]]\nname = \"billing\"\ndriver = \"mysql\"\ndsn = \"app:"+dbPassword+"@tcp(127.0.0.1:1)/billing\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["SUPERBIZ_CONFIG"] = cfg
	id := newestRun(t, e)
	for _, args := range [][]string{
		{"runs", "show", id},
		{"runs", "show", id, "-o", "json"},
		{"runs", "show", id, "-o", "markdown"},
		{"runs"},
		{"runs", "-o", "json"},
	} {
		r := e.run(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "[REDACTED]") {
			t.Errorf("%q shows no masked value:\n%s", args, r)
		}
		for _, s := range []string{dbPassword, shaped} {
			if strings.Contains(r.stdout+r.stderr, s) {
				t.Errorf("%q printed %s", args, s)
			}
		}
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestSecretLookalikesInLogs: `tools call query_logs` keeps what only looks
// like a secret's name (a --min-pass count, --bypass-cache, Android's
// wtoken window handles, issue 34) and still masks the real secrets on the
// same lines (--password, --db-pass, --pass, token=, x-token=,
// access_token=).
func TestSecretLookalikesInLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	lines := []string{
		"spawn checker --min-pass 3 --bypass-cache yes --password Nm1Secret01",
		"spawn backup --db-pass Nm2Secret02 --pass Nm3Secret03 --max-pass=5",
		"opening app wtoken = AppWindowToken{9f4ef63 token=Nm4Secret04}",
		"callback x-token=Nm5Secret05 access_token=Nm6Secret06 wtoken=AppWindowToken",
	}
	r := queryLogLines(t, e, lines)
	for _, s := range []string{"Nm1Secret01", "Nm2Secret02", "Nm3Secret03", "Nm4Secret04", "Nm5Secret05", "Nm6Secret06"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("secret %s printed", s)
		}
	}
	for _, kept := range []string{"--min-pass 3", "--bypass-cache yes", "--max-pass=5", "wtoken = AppWindowToken{9f4ef63", "wtoken=AppWindowToken"} {
		if !strings.Contains(r.stdout, kept) {
			t.Errorf("%q was masked:\n%s", kept, r.stdout)
		}
	}
}

// TestSpacedSecretsInLogs: `tools call query_logs` masks a secret-named key
// and its value separated by a blank only (a shell's `export KEY value`,
// redis `CONFIG SET requirepass value`) and keeps prose about passwords and
// Android's Hungarian mToken handle, while mAuthToken stays masked (issue 34).
func TestSpacedSecretsInLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	lines := []string{
		"deploy step: export MY_SERVICE_DB_PASSWORD Sp1Secret01",
		"redis: CONFIG SET requirepass Sp2Secret02",
		"password changed for user bob",
		"window mToken=WindowToken{b3f8a6f0 null} mAuthToken=Sp3Secret03",
	}
	r := queryLogLines(t, e, lines)
	for _, s := range []string{"Sp1Secret01", "Sp2Secret02", "Sp3Secret03"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("secret %s printed", s)
		}
	}
	for _, kept := range []string{"password changed for user bob", "mToken=WindowToken{b3f8a6f0 null}"} {
		if !strings.Contains(r.stdout, kept) {
			t.Errorf("%q was masked:\n%s", kept, r.stdout)
		}
	}
}

// TestRedisAndDefaultPasswordsInLogs: `tools call query_logs` masks a
// redis.conf directive after the log's prefix, sentinel's auth-pass and a
// well-known default password after a password word, and keeps prose about
// passwords on the same file (issue 34).
func TestRedisAndDefaultPasswordsInLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	lines := []string{
		"redis.conf: requirepass Rd1Secret01",
		"sentinel.conf: sentinel auth-pass mymaster Rd2Secret02",
		"admin created with password changeme, rotate it",
		"password reset email sent",
		"the password field is required",
	}
	r := queryLogLines(t, e, lines)
	for _, s := range []string{"Rd1Secret01", "Rd2Secret02", "changeme"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("secret %s printed", s)
		}
	}
	for _, kept := range []string{"requirepass [REDACTED]", "auth-pass mymaster [REDACTED]", "password [REDACTED], rotate it", "password reset email sent", "the password field is required"} {
		if !strings.Contains(r.stdout, kept) {
			t.Errorf("%q not in the output:\n%s", kept, r.stdout)
		}
	}
}

// queryLogLines writes lines as ERROR entries of a log file and reads them
// all back with `tools call query_logs -o json`.
func queryLogLines(t *testing.T, e *env, lines []string) result {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("2026-03-14 14:01:00 ERROR [api] " + l + "\n")
	}
	logPath := filepath.Join(e.dir, "app.log")
	if err := os.WriteFile(logPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := customLogSource(t, e, logPath)
	r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", `{"source":"app","since":"2h","level":"ERROR","limit":50}`)...)
	n := fmt.Sprint(len(lines))
	if r.code != 0 || !strings.Contains(r.stdout, `"matched":`+n) && !strings.Contains(r.stdout, `"matched": `+n) {
		t.Fatalf("query_logs did not read the %s lines:\n%s", n, r)
	}
	return r
}

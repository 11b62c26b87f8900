package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// cjkLogShapes are issue 17's Chinese, full-width and low-priority secret
// shapes (finding 5) as log messages, each with the secret it plants.
var cjkLogShapes = []struct{ msg, secret string }{
	{"登录失败 密码=Zh1Secret01 用户=bob", "Zh1Secret01"},
	{"数据库密码：Zh2Secret02", "Zh2Secret02"},
	{"口令=Zh3Secret03", "Zh3Secret03"},
	{"使用令牌 Zh4Secret04 调用接口", "Zh4Secret04"},
	{"密钥=Zh5Secret05", "Zh5Secret05"},
	{`请求体 {"用户":"bob","密码":"Zh6Secret06"}`, "Zh6Secret06"},
	{"password：Zh7Secret07", "Zh7Secret07"},
	{"ｐａｓｓｗｏｒｄ=Zh8Secret08", "Zh8Secret08"},
	{"PASSWORD＝Zh9Secret09", "Zh9Secret09"},
	{`spawn {"args": ["--password", "Lp1Secret10"]}`, "Lp1Secret10"},
	{"retrying with Basic b3BzOkxwMlNlY3JldDEx", "b3BzOkxwMlNlY3JldDEx"},
	{"GET /login?q=password%3DLp3Secret12", "Lp3Secret12"},
	{"the password is 'Lp4Secret13' for now", "Lp4Secret13"},
	{"pass\u200bword=Lp5Secret14", "Lp5Secret14"},
	{"pass\u00adword=Lp6Secret15", "Lp6Secret15"},
}

// TestCJKSecretShapesInLogs: `tools call query_logs` over a log whose lines
// carry every shape of finding 5 finds the lines and prints none of the
// secrets, on stdout or stderr (they were all printed before the fix).
func TestCJKSecretShapesInLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	var b strings.Builder
	for _, s := range cjkLogShapes {
		b.WriteString("2026-03-14 14:01:00 ERROR [api] " + s.msg + "\n")
	}
	logPath := filepath.Join(e.dir, "app.log")
	if err := os.WriteFile(logPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := customLogSource(t, e, logPath)
	r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", `{"source":"app","since":"2h","level":"ERROR","limit":50}`)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"matched": 15`) && !strings.Contains(r.stdout, `"matched":15`) {
		t.Fatalf("query_logs did not read the 15 lines:\n%s", r)
	}
	leaked := 0
	for _, s := range cjkLogShapes {
		if strings.Contains(r.stdout, s.secret) || strings.Contains(r.stderr, s.secret) {
			leaked++
			t.Errorf("secret %s of %q printed", s.secret, s.msg)
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "query_logs: Chinese, full-width and low-priority shapes (built binary)", map[string]any{"planted": len(cjkLogShapes), "leaked": leaked})
}

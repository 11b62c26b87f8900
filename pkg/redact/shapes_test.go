package redact

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

// cjkShapes are issue 17's Chinese, full-width and low-priority secret
// shapes (finding 5), each with the secret it plants. They are shared with
// the tests that plant them in a log, a query and a runbook.
var cjkShapes = []struct{ name, in, secret string }{
	{"密码=", "登录失败 密码=Zh1Secret01 用户=bob", "Zh1Secret01"},
	{"密码 full-width colon", "数据库密码：Zh2Secret02", "Zh2Secret02"},
	{"口令=", "口令=Zh3Secret03", "Zh3Secret03"},
	{"令牌 space", "使用令牌 Zh4Secret04 调用接口", "Zh4Secret04"},
	{"密钥=", "密钥=Zh5Secret05", "Zh5Secret05"},
	{"JSON 密码", `{"用户":"bob","密码":"Zh6Secret06"}`, "Zh6Secret06"},
	{"password full-width colon", "password：Zh7Secret07", "Zh7Secret07"},
	{"full-width password", "ｐａｓｓｗｏｒｄ=Zh8Secret08", "Zh8Secret08"},
	{"full-width equals", "PASSWORD＝Zh9Secret09", "Zh9Secret09"},
	{"args array", `{"args": ["--password", "Lp1Secret10"]}`, "Lp1Secret10"},
	{"bare Basic", "retrying with Basic b3BzOkxwMlNlY3JldDEx", "b3BzOkxwMlNlY3JldDEx"},
	{"password%3D", "GET /login?q=password%3DLp3Secret12", "Lp3Secret12"},
	{"password is quoted", "the password is 'Lp4Secret13' for now", "Lp4Secret13"},
	{"zero-width in key", "pass\u200bword=Lp5Secret14", "Lp5Secret14"},
	{"soft hyphen in key", "pass\u00adword=Lp6Secret15", "Lp6Secret15"},
	{"zero-width in JSON key", "{\"api\u200b_key\":\"Lp7Secret16\"}", "Lp7Secret16"},
}

// TestStringRemovesCJKAndFullWidthSecrets: every shape of finding 5 is
// masked by the one rule set, idempotently, through String, clean and
// KeepControls alike.
func TestStringRemovesCJKAndFullWidthSecrets(t *testing.T) {
	leaked := 0
	for _, tc := range cjkShapes {
		got := String(tc.in)
		if strings.Contains(got, tc.secret) {
			leaked++
			t.Errorf("%s: secret survived: %q", tc.name, got)
			continue
		}
		if again := String(got); again != got {
			t.Errorf("%s: not idempotent: %q -> %q", tc.name, got, again)
		}
		for _, f := range []func(string) string{clean, KeepControls} {
			if out := f(tc.in); strings.Contains(out, tc.secret) {
				t.Errorf("%s: %q keeps the secret", tc.name, out)
			}
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "redact.String (Chinese, full-width and low-priority shapes)", map[string]any{"planted": len(cjkShapes), "leaked": leaked})
}

// The masked text keeps what is not secret: the key, and on a line that
// needed no folding its full-width characters.
func TestStringCJKShapesExact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"密码=Zh1Secret01 用户=bob", "密码=[REDACTED] 用户=bob"},
		{"使用令牌 Zh4Secret04 调用接口", "使用令牌 [REDACTED] 调用接口"},
		{"审计：password=abc123", "审计：password=[REDACTED]"},
		{"ｐａｓｓｗｏｒｄ=abc123", "password=[REDACTED]"},
		{"ok\npass\u200bword=abc123\n审计：完成", "ok\npassword=[REDACTED]\n审计：完成"},
		{`["--password", "abc123", "--verbose"]`, `["--password", "[REDACTED]", "--verbose"]`},
		{"Basic dXNlcjpwYXNzd29yZA==", "Basic [REDACTED]"},
		// A short credential (admin:admin) is still one.
		{"proxy sent Basic YWRtaW46YWRtaW4= upstream", "proxy sent Basic [REDACTED] upstream"},
		// Two spaces between a Chinese key and its value.
		{"使用令牌  abc123 调用接口", "使用令牌  [REDACTED] 调用接口"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	for k, want := range map[string]bool{"密码": true, "数据库密码": true, "访问令牌": true, "ｐａｓｓｗｏｒｄ": true, "pass\u200bword": true, "密码重置次数": false, "用户": false} {
		if got := IsSecretKey(k); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// The JSON walker judges a member name folded: an escaped zero-width
// character or full-width letters in it do not hide a secret member.
func TestJSONFoldedMemberNames(t *testing.T) {
	for _, in := range []string{`{"api\u200b_key":"Lp7Secret16"}`, `{"ｔｏｋｅｎ":"Lp7Secret16"}`, `{"密码":"Lp7Secret16"}`} {
		out, err := JSON([]byte(in))
		if err != nil || strings.Contains(string(out), "Lp7Secret16") {
			t.Errorf("JSON(%s) = %s, %v", in, out, err)
		}
	}
}

// Near misses of the new shapes stay as written.
func TestStringKeepsCJKProse(t *testing.T) {
	for _, s := range []string{
		"审计日志：用户 42 修改了密码",
		"密码 错误，请重试",
		"支付失败（超时）：订单 42",
		"the password is required",
		"basic auth enabled for /admin",
		"Basic realm=\"superbiz\"",
		"Basic configuration loaded",
		// Base64 after "Basic" that is not user:password ("BasicAuthDisabled").
		"header Basic QmFzaWNBdXRoRGlzYWJsZWQ= ignored",
		`{"args": ["--password-file", "/run/secrets/db"]}`,
		"ｏｒｄｅｒ＝42",
	} {
		if got := String(s); got != s {
			t.Errorf("ordinary text changed:\n in %q\nout %q", s, got)
		}
	}
}

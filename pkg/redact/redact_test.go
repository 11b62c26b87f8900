package redact

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

func TestStringRemovesSecrets(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		secret string
		want   string // optional exact output
	}{
		{"go mysql dsn", `source=readonly:s3cretPw@tcp(127.0.0.1:3306)/orders`, "s3cretPw", `source=readonly:[REDACTED]@tcp(127.0.0.1:3306)/orders`},
		{"dsn key", `dsn=readonly:s3cretPw@tcp(127.0.0.1:3306)/orders`, "s3cretPw", `dsn=[REDACTED]`},
		{"go mysql dsn unix", `app:Hunter2!@unix(/var/run/mysqld.sock)/shop`, "Hunter2!", `app:[REDACTED]@unix(/var/run/mysqld.sock)/shop`},
		{"go mysql dsn no net", `root:toor99@/orders?parseTime=true`, "toor99", `root:[REDACTED]@/orders?parseTime=true`},
		{"postgres url", `postgres://svc:pgPass123@db.internal:5432/app?sslmode=disable`, "pgPass123", `postgres://svc:[REDACTED]@db.internal:5432/app?sslmode=disable`},
		{"postgresql url", `connecting to postgresql://u:x9y8z7@10.0.0.5/db`, "x9y8z7", ""},
		{"mysql url", `mysql://admin:AdminPw%21@mysql-0:3306/orders`, "AdminPw%21", `mysql://admin:[REDACTED]@mysql-0:3306/orders`},
		{"redis url no user", `redis://:r3disPass@cache:6379/0`, "r3disPass", `redis://:[REDACTED]@cache:6379/0`},
		{"rediss url", `rediss://default:tlsRedisPw@cache.example.com:6380`, "tlsRedisPw", ""},
		{"amqp url", `amqp://guest:rabbitPw77@rabbit:5672/vhost`, "rabbitPw77", `amqp://guest:[REDACTED]@rabbit:5672/vhost`},
		{"mongodb url", `mongodb+srv://reader:m0ngoPw@cluster0.mongodb.net/test`, "m0ngoPw", ""},
		{"https userinfo", `fetching https://bot:httpPw42@artifacts.example.com/x.tgz`, "httpPw42", ""},
		{"authorization basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"},
		{"authorization bearer", "authorization: Bearer abc.def.ghi-123", "abc.def.ghi-123", "authorization: Bearer [REDACTED]"},
		{"authorization json", `{"Authorization":"Bearer tok_9f8e7d6c5b4a"}`, "tok_9f8e7d6c5b4a", `{"Authorization":"[REDACTED]"}`},
		{"authorization digest", `Proxy-Authorization: Digest username="bob", response="6629fae49393a05397450978507c4ef1"`, "6629fae49393a05397450978507c4ef1", ""},
		{"cookie", "Cookie: SESSIONID=a1b2c3d4e5; theme=dark", "a1b2c3d4e5", "Cookie: [REDACTED]"},
		{"set-cookie", "Set-Cookie: sid=38afes7a8; HttpOnly; Secure", "38afes7a8", "Set-Cookie: [REDACTED]"},
		{"bare bearer", "retrying with bearer 7Fh2kQ9zLmN4pX8w after 401", "7Fh2kQ9zLmN4pX8w", "retrying with bearer [REDACTED] after 401"},
		{"aws access key id", "using key AKIAIOSFODNN7EXAMPLE for s3", "AKIAIOSFODNN7EXAMPLE", "using key [REDACTED] for s3"},
		{"aws sts key id", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A", "[REDACTED]"},
		{"aws secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED]"},
		{"github classic", "token ghp_1234567890abcdefghijABCDEFGHIJ123456 leaked", "ghp_1234567890abcdefghijABCDEFGHIJ123456", "token [REDACTED] leaked"},
		{"github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "[REDACTED]"},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED]"},
		{"slack bot", "posting with xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", "posting with [REDACTED]"},
		{"slack user", "xoxp-1111-2222-3333-abcdef", "xoxp-1111-2222-3333-abcdef", "[REDACTED]"},
		{"jwt", "jwt=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U rest", "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt=[REDACTED] rest"},
		{"private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1\nabc==\n-----END RSA PRIVATE KEY-----\nnext", "MIIEowIBAAKCAQEAx1", "key:\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nnext"},
		{"private key truncated", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "b3BlbnNzaC1rZXktdjEAAAAA", "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]"},
		{"password kv", "password=hunter2 user=bob", "hunter2", "password=[REDACTED] user=bob"},
		{"password upper", "PASSWORD: Tr0ub4dor&3", "Tr0ub4dor", ""},
		{"db_password", "db_password='p@ss w0rd'", "p@ss w0rd", "db_password='[REDACTED]'"},
		{"passwd", "passwd=letmein", "letmein", "passwd=[REDACTED]"},
		{"pwd", "Server=db;Uid=sa;Pwd=SqlPw2024;", "SqlPw2024", "Server=db;Uid=sa;Pwd=[REDACTED];"},
		{"secret yaml", "secret: 9c2b1a8f7e", "9c2b1a8f7e", "secret: [REDACTED]"},
		{"token query", "GET /callback?code=1&token=q1w2e3r4&x=2", "q1w2e3r4", "GET /callback?code=1&token=[REDACTED]&x=2"},
		{"api_key json", `{"api_key": "k-123-abc", "n": 1}`, "k-123-abc", `{"api_key": "[REDACTED]", "n": 1}`},
		{"apikey", "apikey=ZZZ999", "ZZZ999", "apikey=[REDACTED]"},
		{"x-api-key header", "X-Api-Key: 0a1b2c3d4e5f", "0a1b2c3d4e5f", "X-Api-Key: [REDACTED]"},
		{"access_token json", `{"access_token":"ya29.a0AfH6SMB","expires_in":3599}`, "ya29.a0AfH6SMB", `{"access_token":"[REDACTED]","expires_in":3599}`},
		{"client_secret", "client_secret=GOCSPX-abc123def", "GOCSPX-abc123def", "client_secret=[REDACTED]"},
		{"json escaped quote", `{"password":"a\"b\"c"}`, `a\"b\"c`, `{"password":"[REDACTED]"}`},
		{"google api key", "key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", ""},
		{"google api key bare", "maps AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI ok", "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", "maps [REDACTED] ok"},
		{"stripe live", "charging with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "charging with [REDACTED]"},
		{"stripe test", "charging with sk_test_4eC39HqLyjWDarjtT1zdp7dc", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "charging with [REDACTED]"},
		{"stripe restricted", "reporting with rk_live_51H8xQ2eZvKYlo2C0abcdef", "rk_live_51H8xQ2eZvKYlo2C0abcdef", "reporting with [REDACTED]"},
		{"stripe restricted test", "rk_test_51H8xQ2eZvKYlo2C0abcdef", "rk_test_51H8xQ2eZvKYlo2C0abcdef", "[REDACTED]"},
		{"bare bearer mixed case no digits", "sent bearer AbCdEfGhIjKlMnOpQr upstream", "AbCdEfGhIjKlMnOpQr", "sent bearer [REDACTED] upstream"},
		{"sql identified by", "CREATE USER 'ro'@'%' IDENTIFIED BY 'r0Pass';", "r0Pass", "CREATE USER 'ro'@'%' IDENTIFIED BY '[REDACTED]';"},
		{"two secrets one line", "password=aa11bb22 redis://:cc33dd44@r:6379", "cc33dd44", "password=[REDACTED] redis://:[REDACTED]@r:6379"},
		// Short key names (pass, db_pass), password and token flags, client -p,
		// DSNs and URLs whose password holds "@", escaped JSON and GitHub
		// tokens, written as they appear in real logs.
		{"pass kv", "pass=S3cr3tPass user=bob", "S3cr3tPass", "pass=[REDACTED] user=bob"},
		{"db_pass kv", "DB_PASS=S3cr3tPass", "S3cr3tPass", "DB_PASS=[REDACTED]"},
		{"pass json", `{"pass":"S3cr3tPass","user":"bob"}`, "S3cr3tPass", `{"pass":"[REDACTED]","user":"bob"}`},
		{"password flag space", "mysqldump --password S3cr3tPass shop", "S3cr3tPass", "mysqldump --password [REDACTED] shop"},
		{"password flag equals", "mysqldump --password=S3cr3tPass shop", "S3cr3tPass", "mysqldump --password=[REDACTED] shop"},
		{"password flag quoted", `run --db-password "S3cr3t Pass" now`, "S3cr3t Pass", `run --db-password "[REDACTED]" now`},
		{"long-prefixed password flag", "svc --my-service-primary-db-password S3cr3tPass --verbose", "S3cr3tPass", "svc --my-service-primary-db-password [REDACTED] --verbose"},
		{"refresh_token late in a line", "ts=2026-11-28T14:03:11Z level=info msg=refreshed user=42 refresh_token=r3fr3shT0k3n99", "r3fr3shT0k3n99", "ts=2026-11-28T14:03:11Z level=info msg=refreshed user=42 refresh_token=[REDACTED]"},
		{"pass with spaces", "pass = S3cr3tPass", "S3cr3tPass", "pass = [REDACTED]"},
		{"storepass flag", "keytool -list -storepass S3cr3tPass -keystore app.jks", "S3cr3tPass", "keytool -list -storepass [REDACTED] -keystore app.jks"},
		{"token flag", "vault login -token hvs.CAESIJ3x9Xq8Lm2Np4Q", "hvs.CAESIJ3x9Xq8Lm2Np4Q", "vault login -token [REDACTED]"},
		{"mysql -p", "mysql -uroot -pS3cr3tPass shop", "S3cr3tPass", "mysql -uroot -p[REDACTED] shop"},
		{"curl -u", "curl -u admin:S3cr3tPass https://h/x", "S3cr3tPass", "curl -u admin:[REDACTED] https://h/x"},
		{"curl --user quoted", "curl --user 'ops:plainwords' -s https://h", "plainwords", "curl --user 'ops:[REDACTED]' -s https://h"},
		{"curl -u without a space", "curl -uadmin:hunter2 https://h/x", "hunter2", "curl -uadmin:[REDACTED] https://h/x"},
		{"curl -u without a user", "curl -u:hunter2 https://h/x", "hunter2", "curl -u:[REDACTED] https://h/x"},
		{"redis-cli -a", "redis-cli -h cache1 -a hunter2 info", "hunter2", "redis-cli -h cache1 -a [REDACTED] info"},
		{"redis-cli -a quoted", `redis-cli -a "two words" ping`, "two words", "redis-cli -a [REDACTED] ping"},
		{"sqlplus user/password@sid", "sqlplus -s scott/hunter2@ORCL @report.sql", "hunter2", "sqlplus -s scott/[REDACTED]@ORCL @report.sql"},
		{"oracle connect easy connect", "SQL> CONNECT system/hunter2@//db1:1521/XEPDB1", "hunter2", "SQL> CONNECT system/[REDACTED]@//db1:1521/XEPDB1"},
		{"expdp user/password@service", "expdp hr/Hunter2x@pdb1 directory=dp dumpfile=hr.dmp", "Hunter2x", "expdp hr/[REDACTED]@pdb1 directory=dp dumpfile=hr.dmp"},
		{"sshpass -p", "sshpass -p plainwords ssh db1", "plainwords", "sshpass -p [REDACTED] ssh db1"},
		{"sshpass -p quoted", "sshpass -p'two words' ssh db1", "two words", "sshpass -p[REDACTED] ssh db1"},
		{"mariadb -p quoted", "mariadb -h db -u app -p'S3cr3t Pass' shop", "S3cr3t Pass", "mariadb -h db -u app -p[REDACTED] shop"},
		{"go mysql dsn with @", "app:p@ss@tcp(db:3306)/shop", "p@ss", "app:[REDACTED]@tcp(db:3306)/shop"},
		{"go mysql dsn with two @", "source=app:P@ss@w0rd@tcp(db:3306)/shop?parseTime=true", "w0rd", "source=app:[REDACTED]@tcp(db:3306)/shop?parseTime=true"},
		{"escaped json password", `{\"password\":\"S3cr3tPass\"}`, "S3cr3tPass", `{\"password\":\"[REDACTED]\"}`},
		{"escaped json in json", `{"msg":"{\"password\":\"S3cr3tPass\",\"n\":1}"}`, "S3cr3tPass", `{"msg":"{\"password\":\"[REDACTED]\",\"n\":1}"}`},
		{"escaped json escaped quote", `{\"api_key\":\"a\\\"S3cr3t\"}`, "S3cr3t", `{\"api_key\":\"[REDACTED]\"}`},
		{"escaped json authorization", `{\"Authorization\":\"Bearer tok_9f8e7d6c5b4a\"}`, "tok_9f8e7d6c5b4a", `{\"Authorization\":\"[REDACTED]\"}`},
		{"escaped json cookie", `{\"cookie\":\"sid=38afes7a8\"}`, "38afes7a8", `{\"cookie\":\"[REDACTED]\"}`},
		{"url password with @", "fetching https://u:p@ss@host/x.tgz", "ss@host", "fetching https://u:[REDACTED]@host/x.tgz"},
		{"url password with two @", "amqp://svc:P@ss@w0rd@rabbit:5672/vhost", "w0rd", "amqp://svc:[REDACTED]@rabbit:5672/vhost"},
		{"github server token", "GITHUB_TOKEN ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "GITHUB_TOKEN [REDACTED]"},
		{"github stateless server token", "using ghs_123456_eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjM0NTYiLCJpbnN0YWxsYXRpb25faWQiOjc4OTAxMn0.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtYW5kLW1vcmUtYnl0ZXM now", "c2lnbmF0dXJl", "using [REDACTED] now"},
		{"github user token", "ghu_16C7e42F292c6912E7710c838347Ae178B4a", "ghu_16C7e42F292c6912E7710c838347Ae178B4a", "[REDACTED]"},
		{"github refresh token", "refresh with ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498", "ghr_1B4a2e77838347a7E420ce178F2E7c6912E169246c34E1ccbF66C46812d16D5B1A9Dc86A1498", "refresh with [REDACTED]"},
		{"stripe webhook secret", "webhook whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw ok", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "webhook [REDACTED] ok"},
		{"stripe webhook secret base64", "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", "b5sSYspob7oD", "[REDACTED]"},
		{"stripe cli webhook secret", "whsec_1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f", "1e2f3a4b5c6d", "[REDACTED]"},
		{"slack app token", "SLACK_APP xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0123456789abcdef", "SLACK_APP [REDACTED]"},
	}
	if len(tests) < 30 {
		t.Fatalf("need at least 30 secret shapes, have %d", len(tests))
	}
	leaked := 0
	for _, tc := range tests {
		if strings.Contains(String(tc.in), tc.secret) {
			leaked++
		}
	}
	reliability.Record(t, reliability.SectionSecrets, "redact.String (unit shapes)", map[string]any{"planted": len(tests), "leaked": leaked})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			if strings.Contains(got, tc.secret) {
				t.Fatalf("secret %q survived: %q", tc.secret, got)
			}
			if !strings.Contains(got, Marker) {
				t.Fatalf("no marker in %q", got)
			}
			if tc.want != "" && got != tc.want {
				t.Fatalf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if again := String(got); again != got {
				t.Fatalf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestStringKeepsOrdinaryText(t *testing.T) {
	ordinary := []string{
		"3f2504e0-4f89-11d3-9a0c-0305e82c3301",
		"order ORD-20261128-000042 created for user 42",
		"2026-11-28T14:03:11.123Z",
		"2026-11-28 14:03:11 [Warning] slow query 4.2s: SELECT id FROM payments WHERE status = 'TIMEOUT'",
		"payment-service-7d9f8c6b5-x2k4q.prod.svc.cluster.local",
		"connecting to 10.0.3.17:3306 and [2001:db8::1]:6379",
		"/var/log/app/order-service.log.1.gz",
		"SELECT o.id, p.status FROM orders o JOIN payments p ON p.order_id = o.id WHERE o.created_at >= '2026-11-28 14:00:00' LIMIT 20",
		"HikariPool-1 - Connection is not available, request timed out after 3000ms (total=50, active=50, idle=0, waiting=31)",
		"connection pool 50/50",
		"token bucket refill rate=100/s",
		"password reset email sent to user 42",
		"password reset email sent",
		"the password field is required",
		"2026-12-06T10:00:00Z auth: password changed for user 42",
		"requirepass is set; sentinel auth-pass checked",
		`{"ts":"2026-11-28T14:05:00Z","level":"INFO","service":"user-service","msg":"login ok","trace_id":"a1b2c3d4e5f60718"}`,
		"ts=2026-11-28T14:05:00Z level=warn service=gateway method=POST path=/api/checkout status=504 duration_ms=3012",
		"mail from alice@example.com to bob@example.org",
		"git@github.com:superbiz/superbiz.git",
		"https://grafana.example.com:3000/d/abc?orgId=1&from=now-6h",
		"java.lang.OutOfMemoryError: Java heap space at com.superbiz.payment.Reconciler.load(Reconciler.java:88)",
		"prompt_tokens=1200 completion_tokens=300 max_tokens=60000",
		"the bearer token expired; re-authentication required",
		"cache key user:42:profile miss",
		"ratio 3:4 at 12:30",
		"审计日志：用户 42 修改了密码",
		// Near misses of those shapes: words containing "pass", -p as a
		// port or mkdir flag, a flag naming a password file, an @ in a path.
		"bypass=1 compass=north passes=3",
		"tests pass: 12 fail: 0",
		"mysqldump --password-file /run/secrets/db shop",
		"mysql -h db -P 3306 -u ro -p shop",
		"mkdir -p /var/lib/mysql && ssh -p 2222 host",
		"mysql --password --user=ro shop",
		"mysql --port=3306 -h db --protocol=tcp",
		"x--password y and pre-token abc",
		"see https://example.com/users/a@b/profile",
		"curl -u admin https://h/x --unix-socket /run/docker.sock",
		"redis-cli -h cache1 --latency-history -i 5",
		"conn pool: node_modules/@babel/core loaded from /opt/app",
		"sqlplus -s /nolog @scripts/report.sql",
		"ghost_protocol_enabled=true",
		"whsec_short",
		`{\"user\":\"bob\",\"n\":1}`,
	}
	for _, s := range ordinary {
		if got := String(s); got != s {
			t.Errorf("ordinary text changed:\n in %q\nout %q", s, got)
		}
	}
}

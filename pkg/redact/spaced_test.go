package redact

import "testing"

// A secret-named key and its value separated by blanks only (shell export
// and setenv, env dumps, redis.conf, properties, .netrc) are masked; prose
// that names a secret word, and keys that only look secret, stay (issue
// 34: `export MY_SERVICE_DB_PASSWORD hunter2` was not masked).
func TestSpacedKeyBothSides(t *testing.T) {
	tests := []struct{ in, want string }{
		{"export MY_SERVICE_DB_PASSWORD hunter2", "export MY_SERVICE_DB_PASSWORD [REDACTED]"},
		{"  export MY_SERVICE_DB_PASSWORD 'hunter 2' # from vault", "  export MY_SERVICE_DB_PASSWORD '[REDACTED]' # from vault"},
		{"setenv DB_PASSWORD hunter2", "setenv DB_PASSWORD [REDACTED]"},
		{"declare -x API_TOKEN ghx1Abc9", "declare -x API_TOKEN [REDACTED]"},
		{"$ redis-cli CONFIG SET requirepass hunter2", "$ redis-cli CONFIG SET requirepass [REDACTED]"},
		{"requirepass hunter2", "requirepass [REDACTED]"},
		{`requirepass "foobared"`, `requirepass "[REDACTED]"`},
		{"masterauth hunter2", "masterauth [REDACTED]"},
		{"MY_SERVICE_DB_PASSWORD hunter2", "MY_SERVICE_DB_PASSWORD [REDACTED]"},
		{"PASSWORD hunter2", "PASSWORD [REDACTED]"},
		{"db.password hunter2", "db.password [REDACTED]"},
		{"spring.datasource.password\thunter2\r", "spring.datasource.password\t[REDACTED]\r"},
		{"apiToken 9f8e7d6c", "apiToken [REDACTED]"},
		{"password hunter2", "password [REDACTED]"},
		{"machine db.internal login app password hunter2", "machine db.internal login app password [REDACTED]"},
		{"token ghx1Abc9", "token [REDACTED]"},
		// Redis sentinel's auth-pass (sentinel.conf and SENTINEL SET), and a
		// redis.conf directive after a log prefix (issue 34).
		{"sentinel auth-pass mymaster s3cr3tPass", "sentinel auth-pass mymaster [REDACTED]"},
		{`sentinel auth-pass mymaster "s3cr3t Pass" # primary`, `sentinel auth-pass mymaster "[REDACTED]" # primary`},
		{"SENTINEL SET mymaster auth-pass s3cr3tPass", "SENTINEL SET mymaster auth-pass [REDACTED]"},
		{"2026-12-06T10:00:00Z redis.conf: requirepass s3cr3tPass", "2026-12-06T10:00:00Z redis.conf: requirepass [REDACTED]"},
		{"2026-12-06T10:00:00Z redis.conf: masterauth 'foobared'\r", "2026-12-06T10:00:00Z redis.conf: masterauth '[REDACTED]'\r"},
		// A well-known default password after a password word, anywhere on
		// the line: no prose word, unlike "password policy" (issue 34).
		{"password changeme", "password [REDACTED]"},
		{"Password ChangeMe", "Password [REDACTED]"},
		{"2026-12-06T10:00:00Z app: admin created with password changeme, rotate it", "2026-12-06T10:00:00Z app: admin created with password [REDACTED], rotate it"},
		{"keystore pass changeit", "keystore pass [REDACTED]"},
		{"db_password p@ssw0rd used", "db_password [REDACTED] used"},
		{"machine db.internal login app password letmein", "machine db.internal login app password [REDACTED]"},
		// Prose and keys that hold no secret stay.
		{"the password was reset", "the password was reset"},
		{"password policy", "password policy"},
		{"Password policy", "Password policy"},
		{"password changed for user bob", "password changed for user bob"},
		{"2024-05-01 12:00:01 INFO password changed for user bob", "2024-05-01 12:00:01 INFO password changed for user bob"},
		{"reset password", "reset password"},
		{"token 42", "token 42"},
		{"token expired", "token expired"},
		{"export DB_PASSWORD before starting the service", "export DB_PASSWORD before starting the service"},
		{"DB_PASSWORD is read at start", "DB_PASSWORD is read at start"},
		{"export PATH /usr/bin", "export PATH /usr/bin"},
		{"maxmemory 2gb", "maxmemory 2gb"},
		{"TOKEN_EXPIRED 401", "TOKEN_EXPIRED 401"},
		{"max_tokens 512", "max_tokens 512"},
		{"set password policy", "set password policy"},
		{"we set the token", "we set the token"},
		{"export DB_PASSWORD", "export DB_PASSWORD"},
		{"requirepass is not set in redis.conf", "requirepass is not set in redis.conf"},
		{"sentinel auth-pass is required for mymaster", "sentinel auth-pass is required for mymaster"},
		{"password reset email sent", "password reset email sent"},
		{"the password field is required", "the password field is required"},
		{"password changes are audited", "password changes are audited"},
		{"password changemeplease", "password changemeplease"},
		{"bypass changeme", "bypass changeme"},
		{"changeme is the default password", "changeme is the default password"},
	}
	for _, tc := range tests {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// A Hungarian-notation handle (mToken: one lower-case letter glued to
// "Token") is no secret key; qualified and longer-prefixed tokens are
// (issue 34: mToken was masked by the camelCase key rule). Android's
// dumpsys window writes mToken=WindowToken{b3f8a6f0 null}.
func TestHungarianTokenBothSides(t *testing.T) {
	keys := []struct {
		key    string
		secret bool
	}{
		{"mToken", false}, {"sToken", false}, {"mToken2", false},
		{"apiToken", true}, {"authToken", true}, {"accessToken", true}, {"sessionToken", true},
		{"mAccessToken", true}, {"mAuthToken", true}, {"mSessionToken", true}, {"mPassword", true},
		{"token", true}, {"Token", true}, {"x-token", true}, {"X_Token", true}, {"mtoken", false},
		{"myToken", true}, {"m_token", true}, {"MToken", true},
	}
	for _, k := range keys {
		if got := IsSecretKey(k.key); got != k.secret {
			t.Errorf("IsSecretKey(%q) = %v, want %v", k.key, got, k.secret)
		}
	}
	lines := []struct{ in, want string }{
		{"mToken=WindowToken{b3f8a6f0 null}", "mToken=WindowToken{b3f8a6f0 null}"},
		{`{"mToken":"android.os.BinderProxy@1a2b3c"}`, `{"mToken":"android.os.BinderProxy@1a2b3c"}`},
		{"mAuthToken=Hunter2xyz", "mAuthToken=[REDACTED]"},
		{`{"mAccessToken":"Hunter2xyz"}`, `{"mAccessToken":"[REDACTED]"}`},
		{"apiToken=Hunter2xyz", "apiToken=[REDACTED]"},
	}
	for _, tc := range lines {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

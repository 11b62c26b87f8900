package redact

import (
	"strings"
	"testing"
)

func TestIsSecretKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"password", true},
		{"PASSWORD", true},
		{"Passwd", true},
		{"pass", true},
		{"db_password", true},
		{"password_hash", true},
		{"secret", true},
		{"client_secret", true},
		{"token", true},
		{"access_token", true},
		{"refreshToken", true},
		{"api_key", true},
		{"apiKey", true},
		{"API-KEY", true},
		{"X-Api-Key", true},
		{"apikey", true},
		{"authorization", true},
		{"headers.Authorization", true},
		{"request.headers.authorization", true},
		{"cookie", true},
		{"Set-Cookie", true},
		{"private_key", true},
		{"privateKey", true},
		{"aws_secret_access_key", true},
		{"awsSecretAccessKey", true},
		{"PassWord", true}, // a column typed so in a view body (issue 34)
		{"userPassWd", true},
		{"Pass_Phrase", true},
		{"PassWord2", true},
		{"KeyWord", false},
		{"pass_through_count", false},
		{"min_pass", false}, // a count (issue 34)
		{"max-token", false},
		{"noPass", false},
		{"db_pass", true},
		{"min_password", true},
		{"credentials", true},
		{"authentication_string", true},
		{"mysql.user.authentication_string", true},
		{"token_count", false},
		{"max_tokens", false},
		{"tokens", false},
		{"keyspace", false},
		{"key", false},
		{"passenger", false},
		{"bypass_cache", false},
		{"api_keys", true},
		{"passwords", true},
		{"password2", true},
		{"myapp.token2", true},
		{"auth", true},
		{"oauth", false},
		{"max_tokens", false},
		{"token_count", false},
		{"service", false},
		{"msg", false},
		{"", false},
		{"user", false},
		{"HTTPHeader", false},
	}
	for _, tt := range tests {
		if got := IsSecretKey(tt.key); got != tt.want {
			t.Errorf("IsSecretKey(%q) = %v, want %v (words %q)", tt.key, got, tt.want, keyWords(tt.key))
		}
	}
}

// clean strips controls before it masks: a control character inside a
// secret's key or value cannot hide the secret from the rules and then
// disappear, leaving it readable.
func TestCleanStripsBeforeMasking(t *testing.T) {
	for _, in := range []string{
		"pass\x11word=hunter2",
		"api\x1b[0m_key: hunter2",
		"Authori\x07zation: Bearer hunter2abcdefghijkl",
	} {
		if got := clean(in); strings.Contains(got, "hunter2") {
			t.Errorf("clean(%q) = %q keeps the secret", in, got)
		}
	}
}

// Keep masks a secret a control character splits, and otherwise leaves the
// text (control characters included) as it was.
func TestKeepControls(t *testing.T) {
	if got := KeepControls("pass\x11word=hunter2"); strings.Contains(got, "hunter2") {
		t.Errorf("Keep kept a split secret: %q", got)
	}
	if got := KeepControls("tab\there \x1b[1mbold\x1b[0m password=hunter2"); got != "tab\there \x1b[1mbold\x1b[0m password="+Marker {
		t.Errorf("Keep changed more than the secret: %q", got)
	}
	out, err := JSON([]byte(`{"note":"pass\u0011word=hunter2","plain":"a\u0007b"}`))
	if err != nil || strings.Contains(string(out), "hunter2") || !strings.Contains(string(out), `"a\u0007b"`) {
		t.Errorf("JSON = %s, %v", out, err)
	}
}

package redact

import (
	"strings"
	"testing"
)

// A flag or key whose name only looks like a secret's keeps its value; the
// real ones beside it are still masked (issue 34: --min-pass 3 and
// Android's wtoken were masked).
func TestSecretNamesBothSides(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		// Command-line flags: a quantifier before the secret word makes a count.
		{"run --min-pass 3 --verbose", "run --min-pass 3 --verbose"},
		{"run --max-pass=5", "run --max-pass=5"},
		{"run --no-pass 3", "run --no-pass 3"},
		{"retry min_pass=3 max_pass=5", "retry min_pass=3 max_pass=5"},
		{"retry db_pass=Hunter2xyz", "retry db_pass=[REDACTED]"},
		{"limits max_token=5 num-tokens=3", "limits max_token=5 num-tokens=3"},
		{"limits last_token=abc123def", "limits last_token=[REDACTED]"},
		{"run --skip_password check", "run --skip_password check"},
		{"tool --bypass-cache yes", "tool --bypass-cache yes"},
		{"tool --bypass yes", "tool --bypass yes"},
		{"tool --pass-through yes", "tool --pass-through yes"},
		{"tool --token-count 5", "tool --token-count 5"},
		{"mysqldump --password Hunter2xyz", "mysqldump --password [REDACTED]"},
		{"backup --db-pass Hunter2xyz", "backup --db-pass [REDACTED]"},
		{"backup --pass Hunter2xyz", "backup --pass [REDACTED]"},
		{"backup --admin-min-pass Hunter2xyz", "backup --admin-min-pass Hunter2xyz"},
		{"backup --min-db-pass Hunter2xyz", "backup --min-db-pass [REDACTED]"},
		{"keytool -storepass Hunter2xyz", "keytool -storepass [REDACTED]"},
		{`exec ["--password", "Hunter2xyz"]`, `exec ["--password", "[REDACTED]"]`},
		{"run --api-key=Hunter2xyz", "run --api-key=[REDACTED]"},
		// key=value: one letter glued before "token" is a handle's name.
		{"opening app wtoken = AppWindowToken{9f4ef63 token=Token{a64f992}}", "opening app wtoken = AppWindowToken{9f4ef63 token=[REDACTED]"},
		{"wtoken=abc123def", "wtoken=abc123def"},
		{"token=abc123def", "token=[REDACTED]"},
		{"x-token=abc123def", "x-token=[REDACTED]"},
		{"X-Token: abc123def", "X-Token: [REDACTED]"},
		{"access_token=abc123def", "access_token=[REDACTED]"},
		{"apptoken=abc123def", "apptoken=[REDACTED]"},
		{"authtoken=abc123def", "authtoken=[REDACTED]"},
		{"a token=abc123def", "a token=[REDACTED]"},
		{"?wtoken=1&token=abc123def", "?wtoken=1&token=[REDACTED]"},
		{"2token=abc123def", "2token=[REDACTED]"},
	}
	for _, tc := range tests {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// The Loghub Android sample's window-token lines keep their wtoken.
func TestAndroidWindowTokenLine(t *testing.T) {
	line := "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogsopening app wtoken = AppWindowToken{9f4ef63 token=Token{a64f992 ActivityRecord{de9231d u0 com.tencent.qt.qtl/.activity.info.NewsDetailXmlActivity t761}}}, allDrawn= false"
	got := String(line)
	if !strings.Contains(got, "wtoken = AppWindowToken{9f4ef63") || !strings.Contains(got, "token="+Marker) {
		t.Errorf("got %q", got)
	}
}

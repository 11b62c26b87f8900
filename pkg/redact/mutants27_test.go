package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Behaviours a hand mutation pass (docs/MUTATION.md) found no test holding:
// each row fails with one planted mutant of redact.go or sinks.go.
func TestMutationPassRedaction(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	long := strings.Repeat("x ", 40) // puts the key past a rule's lead window
	for _, tt := range []struct{ name, in, want string }{
		// isBasicCredential: a DEL byte in the decoded text is no user:password
		{"basic with DEL", "sent Basic " + b64([]byte("user:pa\x7fss")), "sent Basic " + b64([]byte("user:pa\x7fss"))},
		{"basic user:password", "sent Basic " + b64([]byte("user:pass")), "sent Basic " + Marker},
		// looksLikeToken: under 16 characters, or one case without a digit, is prose
		{"bearer short", "using bearer abcd1234 now", "using bearer abcd1234 now"},
		{"bearer 16 with digit", "using bearer abcdefghijklmno1 now", "using bearer " + Marker + " now"},
		{"bearer lower-case word", "Bearer authenticationschemes apply", "Bearer authenticationschemes apply"},
		{"bearer upper-case word", "Bearer AUTHENTICATIONSCHEMES apply", "Bearer AUTHENTICATIONSCHEMES apply"},
		{"bearer mixed case", "using bearer AbcdefghIjklmnop now", "using bearer " + Marker + " now"},
		// applyLines: the regexp starts lead bytes before the trigger, so a key
		// whose trigger is not its first word is found after other text
		{"api_key after text", "request api_key=abc123 sent", "request api_key=" + Marker + " sent"},
		{"refresh_token after text", "INFO user refresh_token=abc123", "INFO user refresh_token=" + Marker},
		{"long flag after text", long + "--my-service-db-password hunter2", long + "--my-service-db-password " + Marker},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("%s: String(%q)\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
	}
}

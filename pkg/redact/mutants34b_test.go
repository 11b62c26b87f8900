package redact

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// The tests of this file kill mutants gremlins chose in keyed.go and
// redact.go in its whole-file run of issue 34 (docs/MUTATION.md, section
// "mutate34b"); each asserts a behaviour the rules promise at an edge the
// other tests did not reach.

// A bare key is made of ASCII letters, digits and "_-.@": the ends of each
// range (a, z, A, Z, 0, 9) belong to the key, so "password_a=x" and
// "token_9=x" are judged whole and masked; the bytes just outside the ranges
// end the key, so a key ending with one of them is no key.
func TestBareKeyByteRanges(t *testing.T) {
	m := Marker
	for _, tt := range []struct{ in, want string }{
		{"password_a=hunter2", "password_a=" + m},
		{"password_z=hunter2", "password_z=" + m},
		{"password_A=hunter2", "password_A=" + m},
		{"password_Z=hunter2", "password_Z=" + m},
		{"token_0=hunter2", "token_0=" + m},
		{"token_9=hunter2", "token_9=" + m},
		{"password_@=hunter2", "password_@=" + m},
		{"password_`=hunter2", "password_`=hunter2"},
		{"password_{=hunter2", "password_{=hunter2"},
		{"password_[=hunter2", "password_[=hunter2"},
		{"token_/=hunter2", "token_/=hunter2"},
	} {
		if got := NewKeyed(true).Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Escaped JSON is read at its own level wherever it stands: a member whose
// key opens the text (the backslash before its first quote is byte 0), a
// member of JSON escaped twice (three backslashes before each quote), and a
// single-quoted pair value that never closes (masked to the end, its quote
// kept).
func TestEscapedMemberEdges(t *testing.T) {
	m := Marker
	for _, tt := range []struct{ in, want string }{
		{`\"password\":\"hunter2\"`, `\"password\":\"` + m + `\"`},
		{`{\\\"password\\\":\\\"hunter2\\\"}`, `{\\\"password\\\":\\\"` + m + `\\\"}`},
		{`{\\\"token\\\":\\\"hunter2\\\",\\\"user\\\":\\\"bob\\\"}`, `{\\\"token\\\":\\\"` + m + `\\\",\\\"user\\\":\\\"bob\\\"}`},
		{`password='hunter2`, `password='` + m},
	} {
		if got := NewKeyed(true).Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// A rule that a trigger word gates per line (the MySQL client's -pPASSWORD
// only on lines that run mysql) masks the triggering line only: a line
// before it without the trigger keeps its -p flag (tar -pxf), also when
// other untriggered lines lie between. A trigger deep in a later line
// still finds its key (the window starts lead bytes before the trigger in
// that line, not in the text).
func TestRulesPerLine(t *testing.T) {
	m := Marker
	for _, tt := range []struct{ in, want string }{
		{"tar -pxf backup.tar\nmysql -uroot -pSecret1", "tar -pxf backup.tar\nmysql -uroot -p" + m},
		{"mysql -uroot -pSecret1\ntar -pxf backup.tar\nls -p\nmysql -pOther2", "mysql -uroot -p" + m + "\ntar -pxf backup.tar\nls -p\nmysql -p" + m},
		{"first line here\nconnecting with the db_password: hunter2", "first line here\nconnecting with the db_password: " + m},
		{"first line here\nconnecting with the db_password is 'hunter2'", "first line here\nconnecting with the db_password is '" + m + "'"},
		{"first line here\nthen x my_refresh_token: hunter2", "first line here\nthen x my_refresh_token: " + m},
		{"first line of the log\nrun the job with --my-service-db-password hunter2", "first line of the log\nrun the job with --my-service-db-password " + m},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// A one-byte trigger ('@', the Go MySQL DSN rule's) at the very end of a
// line or of the text ends the line's scan: the text comes back unchanged
// (the scan once restarted before the line's end would find the same '@'
// for ever).
func TestTriggerAtLineEnd(t *testing.T) {
	for _, in := range []string{"ops@", "reach ops@\nnext", "a@\nb@\nc@", "root:pw@tcp(db:3306)/shop and ops@"} {
		done := make(chan string, 1)
		go func() { done <- String(in) }()
		select {
		case got := <-done:
			want := in
			if strings.Contains(in, "pw@tcp") {
				want = "root:" + Marker + "@tcp(db:3306)/shop and ops@"
			}
			if got != want {
				t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("String(%q) did not return: the scan of a line ending with its trigger does not end", in)
		}
	}
}

// A flag glued to a word is no flag: "x--…-password v" keeps v, also when
// the flag starts exactly the rule's lead (64 bytes) before its trigger,
// where the window's first byte is the match's; the same flag after a space
// is masked.
func TestFlagAtWindowStart(t *testing.T) {
	flag := "--" + strings.Repeat("a", 61) + "-password"
	if strings.Index(flag, "password") != 64 {
		t.Fatalf("flag's trigger at %d, want the lead 64", strings.Index(flag, "password"))
	}
	for _, tt := range []struct{ in, want string }{
		// (a word after the value: alone on its line, "KEY value" is the
		// spaced key rule's)
		{"x" + flag + " hunter2 -v", "x" + flag + " hunter2 -v"},
		{"run " + flag + " hunter2 -v", "run " + flag + " " + Marker + " -v"},
		{"log line\nx" + flag + " hunter2 -v", "log line\nx" + flag + " hunter2 -v"},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// A bare bearer token is a token when it holds a digit or mixes cases, the
// ends of each range included ('0' or '9' as its only digit, 'A' or 'Z' as
// its only upper-case letter, 'a' or 'z' as its only lower-case one); a
// value of one case without a digit, or shorter than 16, is a word and
// stays.
func TestBearerTokenRangeEnds(t *testing.T) {
	for _, tok := range []string{
		"abcdefghijklmnop0", "abcdefghijklmnop9",
		"Abcdefghijklmnopq", "Zbcdefghijklmnopq",
		"aBCDEFGHIJKLMNOPQ", "zBCDEFGHIJKLMNOPQ",
	} {
		in := "using bearer " + tok + " now"
		if got, want := String(in), "using bearer "+Marker+" now"; got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	for _, word := range []string{"abcdefghijklmnop/", "abcdefghijklmnopq", "ABCDEFGHIJKLMNOPQ", "abcdefghijklmn1"} {
		in := "using bearer " + word + " now"
		if got := String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// A bare "Basic" credential is the base64 of user:password, a password
// with a space included; a control character in the decoded text makes it
// no credential.
func TestBasicCredentialSpace(t *testing.T) {
	for _, tt := range []struct {
		plain string
		mask  bool
	}{
		{"admin:correct horse", true},
		{"admin:correct\x1fhorse", false},
		{"admin:correct~horse", true},
	} {
		b64 := base64.StdEncoding.EncodeToString([]byte(tt.plain))
		in := "sent Basic " + b64 + " upstream"
		want := in
		if tt.mask {
			want = "sent Basic " + Marker + " upstream"
		}
		if got := String(in); got != want {
			t.Errorf("String(%q) (%q)\n got %q\nwant %q", in, tt.plain, got, want)
		}
	}
}

// A key whose last word is a number is judged by the word before it, a
// Chinese secret word too (数据库密码_2 is a password, like token_2).
func TestNumberedCJKKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"数据库密码_2", true},
		{"密码_10", true},
		{"数据库_2", false},
	} {
		if got := IsSecretKey(tt.key); got != tt.want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

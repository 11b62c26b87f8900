package redact

import "testing"

// The tests of this file kill or cover the mutants gremlins chose in this
// package (issue 34, docs/MUTATION.md): each asserts a behaviour the rules
// promise at an edge the other tests did not reach.

// A token named in prose is masked when it holds at least 8 characters
// mixing letters and digits (or is a token by looksLikeToken); plain words,
// letters alone, digits alone, or 7 characters stay.
func TestProseToken(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"rotated token Cn15ryPr9x ok", "rotated token " + Marker + " ok"},
		{"rotated token abcd1234 ok", "rotated token " + Marker + " ok"},
		{"rotated token 1234abcd ok", "rotated token " + Marker + " ok"},
		{"rotated token ABCD1234 ok", "rotated token " + Marker + " ok"},
		{"rotated token abc12345 ok", "rotated token " + Marker + " ok"},
		{"the token abcdefghij expired", "the token abcdefghij expired"},
		{"the token 1234567890 expired", "the token 1234567890 expired"},
		{"the token ABCDEFGHIJ expired", "the token ABCDEFGHIJ expired"},
		{"the token abc1234 expired", "the token abc1234 expired"},
		{"the token ..--__.. expired", "the token ..--__.. expired"},
		{"the token 9999.aaaa expired", "the token " + Marker + " expired"},
		{"the token zzzz0000 expired", "the token " + Marker + " expired"},
		{"the token ZZZZ9999 expired", "the token " + Marker + " expired"},
		{"the token AAAA0000 expired", "the token " + Marker + " expired"},
		{"the token aaaa~~~~ expired", "the token aaaa~~~~ expired"},
		{"the token 0000~~~~ expired", "the token 0000~~~~ expired"},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Full-width forms are folded to ASCII before the rules run, the first
// (U+FF01 '！') and the last (U+FF5E '～') of the range too, and the
// ideographic space U+3000: a value written with them is still masked.
func TestFullWidthRangeEnds(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"密码 ！abc123", "密码 " + Marker},
		{"密码 ～abc123", "密码 " + Marker},
		{"密码\u3000abc123", "密码 " + Marker},
		{"密码 ＂abc123", "密码 ＂abc123"},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

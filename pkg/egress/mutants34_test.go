package egress

import (
	"fmt"
	"strings"
	"testing"
)

// The tests of this file kill the mutants gremlins chose in this package
// (issue 34, docs/MUTATION.md): each asserts a behaviour the package's
// documentation promises at an edge the other tests did not reach.

// Userinfo keeps a scheme only when it is one (letters, digits, '+', '-',
// '.', at most 16 of them), so no userinfo text is kept in front of the
// marker by taking it for a scheme; whatever precedes the last '@' is
// hidden, even when that is nothing.
func TestUserinfoSchemes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"@h:1", Marker + "@h:1"},
		{"aAzZ09+-.://u:pw@h", "aAzZ09+-.://" + Marker + "@h"},
		{"abcdefghijklmnop://u:pw@h", "abcdefghijklmnop://" + Marker + "@h"},
		{"abcdefghijklmnopq://u:pw@h", Marker + "@h"},
		{"[x://u:pw@h", Marker + "@h"},
		{"h!tp://u:pw@h", Marker + "@h"},
		{"h_tp://u:pw@h", Marker + "@h"},
		{"h`tp://u:pw@h", Marker + "@h"},
		{"h{tp://u:pw@h", Marker + "@h"},
		{"h@tp://u:pw@h", Marker + "@h"},
		{"h[tp://u:pw@h", Marker + "@h"},
		{"h/tp://u:pw@h", Marker + "@h"},
		{"h:tp://u:pw@h", Marker + "@h"},
		{"h,tp://u:pw@h", Marker + "@h"},
		{"h*tp://u:pw@h", Marker + "@h"},
	} {
		if got := Userinfo(tt.in).String(); got != tt.want {
			t.Errorf("Userinfo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// DSN keeps the address of a DSN whose user is empty, and is Marker whole
// when the password still shows elsewhere (a password of one or two bytes
// is too short to judge that by).
func TestDSNEdges(t *testing.T) {
	for _, tt := range []struct{ dsn, password, want string }{
		{":pw1@tcp(db:3306)/shop", "pw1", ":" + Marker + "@tcp(db:3306)/shop"},
		{"u:hunter2x@tcp(hunter2x:3306)/shop", "hunter2x", Marker},
		{"u:abc@tcp(abc:3306)/shop", "abc", Marker},
		{"u:pw@tcp(pwdb:3306)/shop", "pw", "u:" + Marker + "@tcp(pwdb:3306)/shop"},
		{"/shop", "pw", Marker},
		{"@tcp(db)/shop", "pw", Marker},
	} {
		if got := DSN(tt.dsn, tt.password).String(); got != tt.want {
			t.Errorf("DSN(%q, %q) = %q, want %q", tt.dsn, tt.password, got, tt.want)
		}
	}
}

// LibPQ, like DSN, judges "the password still shows" only for a password
// of three bytes or more.
func TestLibPQShortPassword(t *testing.T) {
	for _, tt := range []struct{ dsn, password, want string }{
		{"host=pw password=pw dbname=shop", "pw", "host=pw password=" + Marker + " dbname=shop"},
		{"host=abc password=abc dbname=shop", "abc", Marker},
	} {
		if got := LibPQ(tt.dsn, tt.password).String(); got != tt.want {
			t.Errorf("LibPQ(%q, %q) = %q, want %q", tt.dsn, tt.password, got, tt.want)
		}
	}
}

// A credential is removed as a JSON string's content (escaped, and with
// "/" escaped too), and Body and Answer remove forms of exactly
// MinBodySecret bytes.
func TestCredentialForms(t *testing.T) {
	quoted := NewCredential("", `Hun"ter2`, "")
	slashed := NewCredential("", "Hun/ter2", "")
	four := NewCredential("", "abcd", "")
	for _, tt := range []struct{ name, got, want string }{
		{"json escaped", quoted.Literal(`{"m":"Hun\"ter2"}`), `{"m":"` + Marker + `"}`},
		{"json escaped answer", quoted.Answer(`echo Hun\"ter2`), "echo " + Marker},
		{"slash escaped", slashed.Literal(`{"m":"Hun\/ter2"}`), `{"m":"` + Marker + `"}`},
		{"body of four bytes", string(four.Body([]byte("got abcd"))), "got " + Marker},
		{"answer of four bytes", four.Answer("got abcd"), "got " + Marker},
		{"token as written", NewCredential("", "", "tok-12345").Answer("got tok-12345"), "got " + Marker},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// JSON.Shown strips a string's terminal escapes and keeps the document
// valid; the absent document stays absent.
func TestJSONShown(t *testing.T) {
	j, err := MaskJSON([]byte(`{"m":"a\u001b]0;owned\u0007b","password":"Cn25ry"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := string(j.Shown().Bytes())
	if strings.Contains(got, `\u001b`) || strings.Contains(got, `\u0007`) || strings.Contains(got, "Cn25ry") || !strings.Contains(got, `"m":"a`) {
		t.Errorf("Shown = %s", got)
	}
	if !(JSON{}).Shown().IsZero() {
		t.Errorf("the absent document shown is %s", (JSON{}).Shown().Bytes())
	}
}

// A Secret shows the redacted mark in every printed and encoded form, and
// nothing when unset; Format writes a value's masked text under the
// caller's verb, Go syntax for %#v, and no value for any other verb.
func TestSecretForms(t *testing.T) {
	s := NewSecret("Hunter2Alpaca")
	if s.IsZero() || s.Reveal() != "Hunter2Alpaca" || !NewSecret("").IsZero() {
		t.Errorf("IsZero/Reveal: %v %q %v", s.IsZero(), s.Reveal(), NewSecret("").IsZero())
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, got, want string }{
		{"String", s.String(), Marker},
		{"unset String", NewSecret("").String(), ""},
		{"GoString", s.GoString(), `egress.Secret("` + Marker + `")`},
		{"MarshalJSON", string(b), `"` + Marker + `"`},
		{"%v", fmt.Sprintf("%v", formatted{URL("http://u:pw12@h")}), "http://u:" + Marker + "@h"},
		{"%q", fmt.Sprintf("%q", formatted{URL("http://u:pw12@h")}), `"http://u:` + Marker + `@h"`},
		{"%#v", fmt.Sprintf("%#v", formatted{URL("http://u:pw12@h")}), "formatted{}"},
		{"%d", fmt.Sprintf("%d", formatted{URL("http://u:pw12@h")}), "%!d(redacted)"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// A struct that holds a Secret, printed under any verb, never shows the
// value: %d, %x and %+v walk into the struct's fields, where a Stringer is
// not asked (the logs folder's entry holds a VictoriaLogs token this way).
func TestSecretInAStructUnderEveryVerb(t *testing.T) {
	v := struct {
		Name  string
		Token Secret
	}{"vl", NewSecret("Hunter2Alpaca")}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%o", "%t", "%10.3s"} {
		if got := fmt.Sprintf(verb, v); strings.Contains(got, "Hunter2Alpaca") || strings.Contains(got, fmt.Sprintf("%x", "Hunter2Alpaca")) ||
			strings.Contains(got, fmt.Sprintf("%X", "Hunter2Alpaca")) {
			t.Errorf("%s shows the secret: %s", verb, got)
		}
	}
}

// formatted is a value holding a credential, shown through Format.
type formatted struct{ shown Text }

func (v formatted) Format(f fmt.State, verb rune) { Format(f, verb, v.shown, "formatted{}") }

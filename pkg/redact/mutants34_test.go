package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

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

// JSON held in JSON strings is opened as a document down to maxNestedJSON
// levels (a masked member is written compact, as the encoder writes it);
// deeper, the string is masked as text and keeps its own spacing.
func TestNestedJSONDepth(t *testing.T) {
	const inner = `{"password": "hunter2"}`
	wrap := func(doc string, levels int) []byte {
		for range levels {
			b, err := json.Marshal(map[string]string{"m": doc})
			if err != nil {
				t.Fatal(err)
			}
			doc = string(b)
		}
		return []byte(doc)
	}
	unwrap := func(doc []byte, levels int) string {
		s := string(doc)
		for range levels {
			var m map[string]string
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatalf("unwrap %q: %v", s, err)
			}
			s = m["m"]
		}
		return s
	}
	for _, tt := range []struct {
		levels int
		want   string
	}{
		{1, `{"password":"` + Marker + `"}`},
		{maxNestedJSON, `{"password":"` + Marker + `"}`},
		{maxNestedJSON + 1, `{"password": "` + Marker + `"}`},
		{maxNestedJSON + 2, `{"password": "` + Marker + `"}`},
	} {
		out, err := JSON(wrap(inner, tt.levels))
		if err != nil {
			t.Fatal(err)
		}
		if got := unwrap(out, tt.levels); got != tt.want {
			t.Errorf("%d levels: innermost %q, want %q", tt.levels, got, tt.want)
		}
	}
}

// A string value holding a JSON array is opened like one holding an
// object (its masked member written compact); a string that only looks
// like the start of a document, or a bare scalar, is masked as text.
func TestNestedJSONArray(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"m":"[ {\"password\": \"x\"} ]"}`, `{"m":"[{\"password\":\"` + Marker + `\"}]"}`},
		{`{"m":"{ \"password\": \"x\" }"}`, `{"m":"{\"password\":\"` + Marker + `\"}"}`},
		{`{"m":"[","n":"{"}`, `{"m":"[","n":"{"}`},
		{`{"m":"password=x y"}`, `{"m":"password=` + Marker + ` y"}`},
	} {
		out, err := JSON([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.want {
			t.Errorf("JSON(%s)\n got %s\nwant %s", tt.in, out, tt.want)
		}
	}
}

// Keyed.Text finds a secret member or pair wherever it stands: at the very
// start of the text, after a separator that starts the text, after a key
// of exactly maxKeyBytes bytes (a longer one is prose), and it stops a
// value where its quotes or the text end.
func TestKeyedEdges(t *testing.T) {
	long := strings.Repeat("a", maxKeyBytes-len("_password")) + "_password"
	for _, tt := range []struct {
		name  string
		pairs bool
		in    string
		want  string
	}{
		{"member first", false, `"password":"hunter2"`, `"password":"` + Marker + `"`},
		{"colon first", false, `: "password":"hunter2"`, `: "password":"` + Marker + `"`},
		{"space colon first", false, ` : {"password":"hunter2"}`, ` : {"password":"` + Marker + `"}`},
		{"equals first", true, `=x password=hunter2`, `=x password=` + Marker},
		{"pair first", true, `password=hunter2 user=bob`, `password=` + Marker + ` user=bob`},
		{"space equals first", true, ` =x`, ` =x`},
		{"double colon", false, `a::"password":"hunter2"`, `a::"password":"` + Marker + `"`},
		{"key of maxKeyBytes", false, `{"` + long + `":"hunter2"}`, `{"` + long + `":"` + Marker + `"}`},
		{"key over maxKeyBytes", false, `{"x` + long + `":"hunter2"}`, `{"x` + long + `":"hunter2"}`},
		{"prefix before quote", false, `x"password":"hunter2"`, `x"password":"` + Marker + `"`},
		{"escaped member", false, `{\"token\":\"hunter2\",\"user\":\"bob\"}`, `{\"token\":\"` + Marker + `\",\"user\":\"bob\"}`},
		{"escaped key of maxKeyBytes", false, `{\"` + long + `\":\"hunter2\"}`, `{\"` + long + `\":\"` + Marker + `\"}`},
		{"escaped scalar", false, `{\"token\":12345,\"user\":\"bob\"}`, `{\"token\":\"` + Marker + `\",\"user\":\"bob\"}`},
		{"value spaces to end", false, `"password":   `, `"password":   `},
		{"value cut after spaces", false, `"password": "hunt`, `"password": "` + Marker},
		{"backslash to end", false, `"password":\`, `"password":\`},
		{"empty quoted pair", true, `password='' user=bob`, `password='' user=bob`},
		{"single-quoted pair", true, `password='hunter2' user=bob`, `password='` + Marker + `' user=bob`},
		{"quoted key pair", true, `'secret'='hunter2'`, `'secret'='` + Marker + `'`},
		{"escaped quote in bare-key value", true, `password=\"hunter2\" user=bob`, `password=\"` + Marker + `\" user=bob`},
	} {
		if got := NewKeyed(tt.pairs).Text(tt.in); got != tt.want {
			t.Errorf("%s: Text(%q)\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// A bare key is read back at most maxKeyBytes bytes from its '=': a longer
// run is judged by its last maxKeyBytes bytes only ("assword_aaa…" is no
// secret name), one of exactly maxKeyBytes whole.
func TestBareKeyBound(t *testing.T) {
	over := "password_" + strings.Repeat("a", maxKeyBytes-len("password"))
	exact := "password_" + strings.Repeat("a", maxKeyBytes-len("password_"))
	for _, tt := range []struct{ in, want string }{
		{over + "=v1", over + "=v1"},
		{exact + "=v1", exact + "=" + Marker},
	} {
		if got := NewKeyed(true).Text(tt.in); got != tt.want {
			t.Errorf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// One Keyed remembers a verdict per key, and at most maxKnownKeys of them.
func TestKeyedMemoBounded(t *testing.T) {
	k := NewKeyed(false)
	if !k.Secret("password") || len(k.known) != 1 {
		t.Fatalf("verdict not remembered: %v", k.known)
	}
	for i := range maxKnownKeys + 10 {
		k.Secret(fmt.Sprintf("key%d", i))
	}
	if len(k.known) != maxKnownKeys {
		t.Errorf("memo holds %d verdicts, want the bound %d", len(k.known), maxKnownKeys)
	}
}

// A key whose last word is a number is judged by the word before it
// (token_2 is a token); a key that is only a number is no secret.
func TestNumberedKeys(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"token_2", true},
		{"auth_10", true},
		{"token2", true},
		{"2", false},
		{"x_2", false},
		{"max_tokens_2", false},
	} {
		if got := IsSecretKey(tt.key); got != tt.want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// Rule edges: upper-case letters at the ends of A–Z are lower-cased before
// the triggers are searched (first and later upper-case letters alike); a
// word-start rule does not match after a letter or digit (the ends of each
// range included) but does after the bytes next to the ranges; "pass:" keeps
// a number (its digits' ends included) and masks anything else; two
// triggers of one rule on two lines are both masked; KeepControls masks a
// secret a control character splits and keeps other controls.
func TestRuleEdges(t *testing.T) {
	m := Marker
	for _, tt := range []struct{ in, want string }{
		{"pAss: hunter2", "pAss: " + m},
		{"X pAss: hunter2", "X pAss: " + m},
		{"authoriZation: abcdef", "authoriZation: " + m},
		{"X authoriZation: abcdef", "X authoriZation: " + m},
		{"apass: hunter2", "apass: hunter2"},
		{"zpass: hunter2", "zpass: hunter2"},
		{"Apass: hunter2", "Apass: hunter2"},
		{"Zpass: hunter2", "Zpass: hunter2"},
		{"0pass: hunter2", "0pass: hunter2"},
		{"9pass: hunter2", "9pass: hunter2"},
		{"`pass: hunter2", "`pass: " + m},
		{"{pass: hunter2", "{pass: " + m},
		{"@pass: hunter2", "@pass: " + m},
		{"[pass: hunter2", "[pass: " + m},
		{"/pass: hunter2", "/pass: " + m},
		{":pass: hunter2", ":pass: " + m},
		{"pass: 0", "pass: 0"},
		{"pass: 9", "pass: 9"},
		{"pass: 12.5", "pass: 12.5"},
		{"pass: -3", "pass: -3"},
		{"pass: +3", "pass: +3"},
		{"pass: /3", "pass: " + m},
		{"pass: 3:", "pass: " + m},
		{"pass: 3a", "pass: " + m},
		{"pass: ", "pass: "},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789\nsee gho_abcdefghijklmnopqrstuvwxyz0123456789", m + "\nsee " + m},
	} {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"pass\x11word=hunter2", "password=" + m},
		{"a\x1b[31mb password=x", "a\x1b[31mb password=" + m},
		{"a\x1b[31mb", "a\x1b[31mb"},
	} {
		if got := KeepControls(tt.in); got != tt.want {
			t.Errorf("KeepControls(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Separators never make empty words: a run of them, or one at either end,
// leaves a two-word secret name whole (api__key, api_key_, _api_key).
func TestKeySeparatorRuns(t *testing.T) {
	for _, key := range []string{"api__key", "api_key_", "_api_key", "private--key", "session..token"} {
		if !IsSecretKey(key) {
			t.Errorf("IsSecretKey(%q) = false, want true", key)
		}
	}
}

// An upper-case run followed by a capitalised word splits before the
// word's first letter (SESSIONToken is session + token), so the name is
// judged by its words.
func TestUpperRunSplit(t *testing.T) {
	for _, key := range []string{"SESSIONToken", "SIGNINGKey", "CLIENTSecret", "HTTPPassword"} {
		if !IsSecretKey(key) {
			t.Errorf("IsSecretKey(%q) = false, want true", key)
		}
	}
}

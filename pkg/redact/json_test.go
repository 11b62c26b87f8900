package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		secrets []string
	}{
		{"clean kept byte for byte", "{\n  \"a\": 1,\n  \"b\": [true, null, \"x\"]\n}", "{\n  \"a\": 1,\n  \"b\": [true, null, \"x\"]\n}", nil},
		{"string value", `{"sql":"SELECT 1 -- password=hunter2x","n":1.50}`, `{"sql":"SELECT 1 -- password=[REDACTED]","n":1.50}`, []string{"hunter2x"}},
		{"secret key masks the value", `{"headers":{"Authorization":"opaque"},"api_key":"plain","password_reset_count":3}`, `{"headers":{"Authorization":"[REDACTED]"},"api_key":"[REDACTED]","password_reset_count":3}`, []string{"opaque", "plain"}},
		{"empty secret kept", `{"password":""}`, `{"password":""}`, nil},
		{"array under secret key", `{"token":["ghp_1234567890abcdefghijABCDEFGHIJ123456"]}`, `{"token":["[REDACTED]"]}`, []string{"ghp_"}},
		{"name redacted", `{"password=hunter2x":1}`, `{"password=[REDACTED]":1}`, []string{"hunter2x"}},
		{"nested json string", `{"content":"{\"query\":\"password:\",\"previous_turn\":{\"token\":\"abc123\"}}"}`, `{"content":"{\"query\":\"password:\",\"previous_turn\":{\"token\":\"[REDACTED]\"}}"}`, []string{"abc123"}},
		{"nested json clean kept", `{"content":"{ \"a\" : 1 }","x":"password=s3cretPw"}`, `{"content":"{ \"a\" : 1 }","x":"password=[REDACTED]"}`, []string{"s3cretPw"}},
		{"nested not json is text", `{"content":"{not json password=s3cretPw"}`, `{"content":"{not json password=[REDACTED]"}`, []string{"s3cretPw"}},
		{"tool call arguments", `{"message":{"tool_calls":[{"id":"call_1","name":"query_mysql","arguments":{"input":{"sql":"SELECT * FROM t WHERE dsn='app:pw9@tcp(db)/x'"}}}]}}`, `{"message":{"tool_calls":[{"id":"call_1","name":"query_mysql","arguments":{"input":{"sql":"SELECT * FROM t WHERE dsn='[REDACTED]'"}}}]}}`, []string{"pw9"}},
		{"top-level string", `"Bearer abcdefghijklmnop1234"`, `"Bearer [REDACTED]"`, []string{"abcdefghijklmnop1234"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := JSON([]byte(tc.in))
			if err != nil {
				t.Fatalf("JSON(%s): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Fatalf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON out: %s", got)
			}
			for _, s := range tc.secrets {
				if strings.Contains(string(got), s) {
					t.Fatalf("secret %q survived: %s", s, got)
				}
			}
			again, err := JSON(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestJSONRefusesNonJSON(t *testing.T) {
	for _, in := range []string{"", "{", `{"a":1} {"b":2}`, `{"a":1} x`, "password=x"} {
		if out, err := JSON([]byte(in)); err == nil {
			t.Errorf("JSON(%q) = %q, want an error", in, out)
		}
	}
}

func TestJSONUnchangedIsSameSlice(t *testing.T) {
	in := []byte(`{"a":"plain text","b":[1,2]}`)
	out, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if &out[0] != &in[0] {
		t.Fatal("JSON copied an unchanged document")
	}
}

// TestCleanJSONStripsControls: CleanJSON masks like JSON and strips the
// control characters and escape sequences JSON keeps for the store.
func TestCleanJSONStripsControls(t *testing.T) {
	in := []byte(`{"a":"\u001b[31mred\u0007","pass\u0011word":"x","token":"y"}`)
	out, err := CleanJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"red","password":"` + Marker + `","token":"` + Marker + `"}`; string(out) != want {
		t.Fatalf("CleanJSON = %s, want %s", out, want)
	}
	kept, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(kept), `\u001b[31m`) {
		t.Fatalf("JSON stripped controls: %s", kept)
	}
}

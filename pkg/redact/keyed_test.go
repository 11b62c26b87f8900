package redact

import (
	"encoding/json"
	"testing"
)

// TestKeyedJSONMembers: members named like a secret are masked at any depth
// and quote level, valid JSON stays valid, and other members stay readable.
func TestKeyedJSONMembers(t *testing.T) {
	const m = Marker
	tests := []struct{ in, want string }{
		{`{"password":"x"}`, `{"password":"` + m + `"}`},
		{`{ "Password" : "hunter2", "user": "bob"}`, `{ "Password" : "` + m + `", "user": "bob"}`},
		{`{"headers":{"Authorization":"Basic YWxhZGRpbjpvcGVu","Accept":"*/*"}}`, `{"headers":{"Authorization":"` + m + `","Accept":"*/*"}}`},
		{`{"api_key": 12345, "n": 1}`, `{"api_key": "` + m + `", "n": 1}`},
		{`{"credentials":{"user":"a","pw":"b"},"ok":true}`, `{"credentials":"` + m + `","ok":true}`},
		{`{"token":{"v":"x","w":[1,2]},"n":1}`, `{"token":"` + m + `","n":1}`},
		{`{"tokens":["a","b"]}`, `{"tokens":["a","b"]}`},
		{`{"session_token":["a","b"],"x":1}`, `{"session_token":"` + m + `","x":1}`},
		{`{"body":"{\"password\":\"hunter2\",\"n\":1}"}`, `{"body":"{\"password\":\"` + m + `\",\"n\":1}"}`},
		{`{"body":"{\"token\":42}"}`, `{"body":"{\"token\":\"` + m + `\"}"}`},
		{`{"password":"a\"b\\"}`, `{"password":"` + m + `"}`},
		{`{"password":"a\"b","user":"x"}`, `{"password":"` + m + `","user":"x"}`},
		{`{"password":null}`, `{"password":null}`},
		{`{"token_count":5,"max_tokens":7}`, `{"token_count":5,"max_tokens":7}`},
		{`{"token.value":"x"}`, `{"token.value":"` + m + `"}`},
		{`{"a":"b","c":"d"}`, `{"a":"b","c":"d"}`},
		{`{"password":"abc`, `{"password":"` + m},
		{`{"secret":{"a":[1,{"b":"}"}]`, `{"secret":"` + m + `"`},
		{`payload={"cookie":"sid=1"} tail`, `payload={"cookie":"` + m + `"} tail`},
		{`time "12:30": x`, `time "12:30": x`},
		{`password=abc`, `password=abc`}, // pairs only when asked for
		{`no json here`, `no json here`},
	}
	for _, tt := range tests {
		got := NewKeyed(false).Text(tt.in)
		if got != tt.want {
			t.Errorf("Text(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
		if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
			t.Errorf("valid JSON %s became invalid: %s", tt.in, got)
		}
	}
}

// TestKeyedPairs: with pairs, key=value forms are masked too; prose and
// near-miss keys are kept.
func TestKeyedPairs(t *testing.T) {
	m := NewKeyed(true)
	cases := []struct{ in, want string }{
		{`password=abc,user=bob next`, `password=[REDACTED] next`},
		{`a=1 'secret'='x y' b=2`, `a=1 'secret'='[REDACTED]' b=2`},
		{`url?user=a&api_key=xyz&page=2`, `url?user=a&api_key=[REDACTED]&page=2`},
		{`{"token" : 12345, "n": 1}`, `{"token" : "[REDACTED]", "n": 1}`},
		{`token: abc in prose`, `token: abc in prose`}, // left to String
		{`token_count=5 max_tokens=7 keyspace=ks`, `token_count=5 max_tokens=7 keyspace=ks`},
		{`password=[REDACTED] password=`, `password=[REDACTED] password=`},
		{`no pairs here`, `no pairs here`},
	}
	for _, c := range cases {
		if got := m.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
	for k, want := range map[string]bool{"headers.Authorization": true, "token.value": true, "auth.credentials.password": true, "a.b": false, "tokens_used": false} {
		if got := m.Secret(k); got != want {
			t.Errorf("Secret(%q) = %v", k, got)
		}
	}
	if got := m.Field("db.password", "x"); got != Marker {
		t.Errorf("Field(db.password) = %q", got)
	}
	if got := m.Field("body", `{"token":"x"}`); got != `{"token":"`+Marker+`"}` {
		t.Errorf("Field(body) = %q", got)
	}
}

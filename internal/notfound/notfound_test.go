package notfound

import (
	"strings"
	"testing"
)

func TestErrorShape(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"choices and a close one", &Error{Kind: "log source", Name: "ap", Valid: []string{"app", "db"}},
			`unknown log source "ap"; valid: app, db; did you mean "app"?`},
		{"choices, none close", &Error{Kind: "tool", Name: "query_redis", Valid: []string{"query_logs", "read_skill"}},
			`unknown tool "query_redis"; valid: query_logs, read_skill`},
		{"where and a hint", &Error{Kind: "run", Name: "r_nope", Where: "/tmp/s.db", Hint: "`superbiz runs` lists the runs"},
			"unknown run \"r_nope\" in /tmp/s.db\nhint: `superbiz runs` lists the runs"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	tests := []struct {
		name    string
		choices []string
		want    string
		ok      bool
	}{
		{"diagnose-redis-timeot", []string{"diagnose-redis-timeout", "diagnose-jvm-memory-risk"}, "diagnose-redis-timeout", true},
		{"diagnose-redis", []string{"diagnose-redis-timeout", "diagnose-jvm-memory-risk"}, "diagnose-redis-timeout", true},
		{"zzz", []string{"app", "db"}, "", false},
		{"APP", []string{"app"}, "app", true},
		{strings.Repeat("a", 65), []string{strings.Repeat("a", 64) + "b"}, "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.name, tt.choices)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

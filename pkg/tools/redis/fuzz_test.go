package redis

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// The parsers of Redis's text answers never panic, bound what they keep,
// and a slowlog entry's shown command never holds an argument after the
// subcommand.
func FuzzParsers(f *testing.F) {
	f.Add("# Memory\r\nused_memory:1024\r\nmaxmemory_policy:allkeys-lru\r\n# Commandstats\r\ncmdstat_get:calls=3,usec=9,usec_per_call=3.00,rejected_calls=0,failed_calls=0\r\n", "SET", "k", "v")
	f.Add("id=3 addr=127.0.0.1:5 laddr=127.0.0.1:6379 fd=8 name= age=9 idle=2 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1 qbuf=26 qbuf-free=20448 argv-mem=10 multi-mem=0 rbs=1024 rbp=0 obl=0 oll=0 omem=0 tot-mem=22298 events=r cmd=client|list user=diag redir=-1 resp=2\n", "CONFIG", "SET", "requirepass")
	f.Add("07c3 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460\n", "ECHO", "... (40 more arguments)", "x")
	f.Fuzz(func(t *testing.T, text, a0, a1, a2 string) {
		info := parseInfo(text)
		_ = commandStats(info["commandstats"])
		for _, c := range clientsOf(text).OldestIdle {
			if len(c.Addr) > maxFieldBytes+len("…") || !utf8.ValidString(c.Addr) && utf8.ValidString(text) {
				t.Fatalf("client addr not clipped: %q", c.Addr)
			}
		}
		if n := parseClusterNodes(text); len(n) > maxNodes {
			t.Fatalf("%d cluster nodes kept", len(n))
		}
		args := []string{a0, a1, a2}
		name := commandName(args)
		// the fixed placeholder holds no argument, whatever letters it shares with one
		if a2 != "" && name != unreadableCommand && strings.Contains(name, a2) && !strings.Contains(strings.ToLower(a0+"|"+a1), a2) {
			t.Fatalf("command %q shows the argument %q", name, a2)
		}
		if n := argCount(args, 0); n < 2 && !strings.HasPrefix(a2, "...") {
			t.Fatalf("argCount(%q) = %d, want at least 2", args, n)
		}
		if _, err := json.Marshal(clientsOf(text)); err != nil {
			t.Fatal(err)
		}
	})
}

// The slowlog's count of arguments reads Redis's "... (N more arguments)"
// placeholder, and the command name keeps a container's subcommand only.
func TestArgCountAndName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		argc int64
		n    int
		name string
	}{
		{[]string{"SET", "k", "v"}, 0, 2, "set"},
		{[]string{"CONFIG", "SET", "requirepass", "x"}, 0, 3, "config|set"},
		{[]string{"AUTH", "hunter2"}, 0, 1, "auth"},
		{[]string{"get", "session:1"}, 0, 1, "get"},
		{append(append([]string{"MSET"}, make([]string, 31)...), "... (9 more arguments)"), 0, 40, "mset"},
		{[]string{"HSET", "k"}, 7, 6, "hset"},
		{[]string{"CLIENT", "hunter2 with spaces"}, 0, 1, "client"},
		{nil, 0, 0, ""},
	} {
		if n := argCount(tc.args, tc.argc); n != tc.n {
			t.Errorf("argCount(%q, %d) = %d, want %d", tc.args, tc.argc, n, tc.n)
		}
		if name := commandName(tc.args); name != tc.name {
			t.Errorf("commandName(%q) = %q, want %q", tc.args, name, tc.name)
		}
	}
}

// A [[redis]] url is checked at load: its scheme, host, no password in it,
// and go-redis's own reading (a cluster URL's addr= parameters).
func TestURLProblem(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"redis://127.0.0.1:6379/0", ""},
		{"rediss://diag@cache.internal:6380", ""},
		{"redis://diag@10.0.0.1:7000?addr=10.0.0.2:7000&addr=10.0.0.3:7000", ""},
		{"", "is empty"},
		{"http://h:6379", `scheme "http" not supported`},
		{"redis://diag:Hunter2Secret@h:6379", "must not carry a password"},
		{"redis://h:6379?password=Hunter2Secret", "must not carry a password parameter"},
		{"redis://h:6379/notadb", "invalid database number"},
		{"redis://h:6379?bogus=1", "unexpected option"},
		{"redis:///", "has no host"},
	} {
		got := URLProblem(tc.url)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("URLProblem(%q) = %q, want %q", tc.url, got, tc.want)
		}
		if strings.Contains(got, "Hunter2Secret") {
			t.Errorf("URLProblem(%q) shows the password: %q", tc.url, got)
		}
	}
}

package redis

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/redistest"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Test credentials and the token a slow command carries.
const (
	diagUser     = "diag"
	diagPassword = "diag-Pw-4f1e"
	slowToken    = "tok-SLOWLOG-SECRET-9c2d"
)

// diagACL is the diagnostic user's line of redis.conf.
var diagACL = "user " + diagUser + " on >" + diagPassword + " " + ACLRules

// toolFor builds query_redis over one source as user with password.
func toolFor(t *testing.T, url, password string) *Tool {
	t.Helper()
	src := Source{Name: "cache", URL: url, Timeout: 5 * time.Second}
	if password != "" {
		src.PasswordEnv, src.Secret = "REDIS_PASSWORD", egress.NewSecret(password)
	}
	tool, err := New([]Source{src})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = tool.Close() })
	return tool
}

// call runs one view and returns the outcome and its result's JSON.
func call(t *testing.T, tool *Tool, view string) (tools.Outcome, string) {
	t.Helper()
	c, err := tool.Canonical(json.RawMessage(`{"view":"` + view + `"}`))
	if err != nil {
		t.Fatalf("Canonical(%s): %v", view, err)
	}
	out := tool.Execute(context.Background(), tools.Call{Input: c.Input, MaxBytes: 8192})
	b, err := json.Marshal(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	return out, string(b)
}

// mustSay runs a setup command as the default user.
func mustSay(t *testing.T, addr string, args ...string) {
	t.Helper()
	if _, err := redistest.Command(addr, args...); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// Every view answers as the read-only diagnostic user of SPEC's ACL line
// on a real redis-server; the slowlog shows the command and its argument
// count, never the token among its arguments.
func TestViewsAsDiagnosticUser(t *testing.T) {
	srv := redistest.Start(t, diagACL, "enable-debug-command local")
	mustSay(t, srv.Addr, "CONFIG", "SET", "slowlog-log-slower-than", "0")
	mustSay(t, srv.Addr, "SET", "session:42", slowToken)
	mustSay(t, srv.Addr, "CONFIG", "SET", "slowlog-log-slower-than", "10000")
	_, _ = redistest.Command(srv.Addr, "NOSUCHCOMMAND") // an errorstat
	tool := toolFor(t, srv.URL(diagUser), diagPassword)

	for _, tc := range []struct {
		view   string
		status tools.EvidenceStatus
		want   []string
	}{
		{ViewInfo, tools.EvidenceFound, []string{`"maxmemory_policy":"noeviction"`, `"evicted_keys":"0"`, `"rejected_connections":"0"`, `"role":"master"`, `"errorstat_ERR":"count=`, `"command":"set"`, `"mode":"standalone"`}},
		{ViewSlowlog, tools.EvidenceFound, []string{`"command":"set","args":2`, `"command":"config|set","args":3`, "never shown"}},
		{ViewLatency, tools.NoEvidence, []string{`"monitoring":"disabled"`, `"coverage":"none"`, "unknown, not healthy"}},
		{ViewClients, tools.EvidenceFound, []string{`"by_user":{"diag":1`, `"by_state":{"normal":1}`, `"cmd":"client|list"`}},
		{ViewMemory, tools.EvidenceFound, []string{`"peak.allocated":`, `"dataset.bytes":`, `"keys.count":1`}},
		{ViewCluster, tools.NoEvidence, []string{`"enabled":false`, "cluster support is disabled"}},
	} {
		out, got := call(t, tool, tc.view)
		if out.Status != tc.status {
			t.Errorf("%s: status %s (%s %v), want %s: %s", tc.view, out.Status, out.ErrorCode, out.Detail, tc.status, got)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: result lacks %s:\n%s", tc.view, w, got)
			}
		}
		if strings.Contains(got, slowToken) || strings.Contains(got, "session:42") {
			t.Errorf("%s: the result shows a slow command's argument:\n%s", tc.view, got)
		}
		if tc.view == ViewLatency && !strings.Contains(out.EmptyWindow, "latency monitoring is disabled") {
			t.Errorf("latency with monitoring off: EmptyWindow %q, want the unknown", out.EmptyWindow)
		}
	}

	// Monitoring on and a spike: the event is evidence.
	mustSay(t, srv.Addr, "CONFIG", "SET", "latency-monitor-threshold", "10")
	mustSay(t, srv.Addr, "DEBUG", "SLEEP", "0.05")
	out, got := call(t, tool, ViewLatency)
	if out.Status != tools.EvidenceFound || !strings.Contains(got, `"event":"command"`) || !strings.Contains(got, `"monitoring":"enabled"`) || out.EmptyWindow != "" {
		t.Errorf("latency after a 50 ms command with monitoring on: %s %q\n%s", out.Status, out.EmptyWindow, got)
	}
}

// The diagnostic user may not write; the default user (all permissions)
// may, and ACL DRYRUN says so.
func TestWriteAccess(t *testing.T) {
	srv := redistest.Start(t, diagACL)
	for _, tc := range []struct {
		user, password, verdict, how string
	}{
		{diagUser, diagPassword, WriteRefused, "GETDEL (a write) was refused with NOPERM"},
		{"", "", WriteAllowed, `ACL DRYRUN says user "default" may run SET, DEL, FLUSHALL`},
	} {
		tool := toolFor(t, srv.URL(tc.user), tc.password)
		verdict, how, err := tool.WriteAccess(context.Background(), "cache")
		if err != nil || verdict != tc.verdict || how != tc.how {
			t.Errorf("user %q: %q %q %v, want %q %q", tc.user, verdict, how, err, tc.verdict, tc.how)
		}
	}
	if n, err := redistest.Command(srv.Addr, "DBSIZE"); err != nil || n != "0" {
		t.Errorf("the probes left keys: DBSIZE %s %v", n, err)
	}
}

// A wrong password, an unreachable server and a cancelled call are
// errors with their codes, naming the node; never an empty answer.
func TestFailures(t *testing.T) {
	srv := redistest.Start(t, diagACL)
	tool := toolFor(t, srv.URL(diagUser), "wrong-password")
	out, _ := call(t, tool, ViewInfo)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), "node "+srv.Addr) {
		t.Errorf("wrong password: %s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
	good := toolFor(t, srv.URL(diagUser), diagPassword)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, _ := good.Canonical(json.RawMessage(`{"view":"info"}`))
	if out := good.Execute(ctx, tools.Call{Input: c.Input}); out.ErrorCode != tools.CodeCancelled {
		t.Errorf("cancelled call: %s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
	srv.Stop()
	out, _ = call(t, good, ViewSlowlog)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), srv.Addr) {
		t.Errorf("stopped server: %s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
}

// On a 3-master cluster every master answers each view, the slowlog of
// each holds its own slow command without its token, and a standalone URL
// to one node says its answer is that node's only.
func TestCluster(t *testing.T) {
	nodes := redistest.Cluster(t, 3, diagACL)
	for _, n := range nodes {
		mustSay(t, n.Addr, "CONFIG", "SET", "slowlog-log-slower-than", "0")
		mustSay(t, n.Addr, "ECHO", slowToken)
	}
	url := nodes[0].URL(diagUser) + "?addr=" + nodes[1].Addr + "&addr=" + nodes[2].Addr
	tool := toolFor(t, url, diagPassword)
	out, got := call(t, tool, ViewSlowlog)
	if out.Status != tools.EvidenceFound || strings.Count(got, `"addr":`) != 3 || strings.Count(got, `"command":"echo","args":1`) != 3 || !strings.Contains(got, `"mode":"cluster"`) {
		t.Errorf("cluster slowlog: %s %v\n%s", out.Status, out.Detail, got)
	}
	if strings.Contains(got, slowToken) {
		t.Errorf("cluster slowlog shows the token:\n%s", got)
	}
	out, got = call(t, tool, ViewCluster)
	if out.Status != tools.EvidenceFound || !strings.Contains(got, `"cluster_state":"ok"`) || strings.Count(got, `"flags":"`) != 3 {
		t.Errorf("cluster view: %s %v\n%s", out.Status, out.Detail, got)
	}
	single := toolFor(t, nodes[0].URL(diagUser), diagPassword)
	if _, got := call(t, single, ViewInfo); !strings.Contains(got, `"cluster_node":true`) || !strings.Contains(got, "one node of a Redis Cluster") {
		t.Errorf("standalone URL to a cluster node does not say its answer is partial:\n%s", got)
	}
	nodes[2].Stop()
	out, _ = call(t, tool, ViewMemory)
	if out.Status != tools.StatusError || !strings.Contains(out.Detail.Error(), nodes[2].Addr) {
		t.Errorf("a master down: %s %s %v, want an error naming %s", out.Status, out.ErrorCode, out.Detail, nodes[2].Addr)
	}
}

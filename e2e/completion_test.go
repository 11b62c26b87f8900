package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestCompletion drives cobra's __complete through the built binary: run
// IDs (runs show, replay) and sessions (--session) newest first with their
// queries, log sources, playbooks, tools and -o values; with no store yet
// nothing is offered and no store is created.
func TestCompletion(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	complete := func(args ...string) []string {
		t.Helper()
		r := e.run(t, append([]string{"__complete"}, args...)...)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.code != 0 || len(lines) == 0 || (lines[len(lines)-1] != ":36" && lines[len(lines)-1] != ":4") {
			t.Fatalf("want candidates and directive 36 (no files, keep order) or 4 (no files): %s", r)
		}
		return lines[:len(lines)-1]
	}
	if got := complete("runs", "show", ""); len(got) != 0 {
		t.Errorf("no store: %q, want nothing", got)
	}
	if _, err := os.Stat(e.vars["SUPERBIZ_DB"]); !os.IsNotExist(err) {
		t.Errorf("completion created the run store: %v", err)
	}

	first := e.run(t, "diagnose", "--demo", "-o", "json")
	// An MCP client's direct tool call is stored as a TOOL_CALL run, which
	// `runs show` shows and `replay` refuses.
	s, stderr := mcpSession(t, e, nil, "--demo", "mcp")
	if res := callTool(t, s, "query_logs", inPaymentErrors); res.IsError {
		t.Fatalf("query_logs over MCP: %q\n%s", resultText(res), stderr)
	}
	_ = s.Close()
	second := e.run(t, "diagnose", "--demo", "-o", "json")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("demo runs: %s\n%s", first, second)
	}
	runs := decodeOutput(t, first).RunID
	newer := decodeOutput(t, second).RunID
	const query = "\tpayment timeouts on order-service since 14:00, many 504s …"
	want := []string{newer + query, runs + query}
	if got := complete("replay", ""); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replay offers:\n%q\nwant only the DIAGNOSIS runs\n%q", got, want)
	}
	shown := complete("runs", "show", "")
	if len(shown) != 3 || shown[0] != want[0] || shown[2] != want[1] || !strings.Contains(shown[1], "\tquery_logs ") {
		t.Errorf("runs show offers:\n%q\nwant the three runs, the tool call between the diagnoses", shown)
	}
	if got := complete("replay", runs, ""); len(got) != 0 {
		t.Errorf("replay's second argument: %q, want nothing", got)
	}
	sessions := complete("chat", "--session", "")
	if len(sessions) != 3 || !strings.HasPrefix(sessions[0], "s_") || !strings.HasSuffix(sessions[0], query) || !strings.HasSuffix(sessions[2], query) || sessions[0] == sessions[2] {
		t.Errorf("chat --session: %q, want the three sessions (the MCP server's between the diagnoses'), newest first", sessions)
	}
	if got := complete("runs", "--session", ""); strings.Join(got, "\n") != strings.Join(sessions, "\n") {
		t.Errorf("runs --session: %q, want %q", got, sessions)
	}

	checks := map[string][]string{
		"logs inspect": {"demo\t"},
		"skills show":  {"diagnose-redis-timeout\tRedis commands time out", "diagnose-payment-timeout\t"},
		"tools call":   {"lookup_knowledge\t", "query_logs\t", "query_mysql\t", "read_skill\t"},
	}
	for cmd, wants := range checks {
		got := strings.Join(complete(append([]string{"--demo"}, append(strings.Fields(cmd), "")...)...), "\n")
		for _, w := range wants {
			if !strings.Contains("\n"+got, "\n"+w) {
				t.Errorf("%s: %q lacks %q", cmd, got, w)
			}
		}
	}
	if got := complete("runs", "-o", ""); len(got) != 4 || !strings.HasPrefix(got[2], "json\t") || !strings.HasPrefix(got[3], "wide\t") {
		t.Errorf("-o: %q, want text, markdown, json and wide", got)
	}
}

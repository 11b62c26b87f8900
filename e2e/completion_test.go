package e2e

import (
	"os"
	"regexp"
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
	const query = "payment timeouts on ord" // the description is clipped to 60 bytes
	ago := regexp.MustCompile(`^\d+[sm] ago · SUCCESS · `)
	described := func(cands []string, names ...string) bool {
		if len(cands) != len(names) {
			return false
		}
		for i, c := range cands {
			name, desc, _ := strings.Cut(c, "\t")
			if name != names[i] || !ago.MatchString(strings.TrimPrefix(desc, "newest, 3 · ")) {
				return false
			}
		}
		return true
	}
	// By number: last (the newest is the second diagnosis), then 3, 2, 1.
	got := complete("replay", "")
	if !described(got, "last", "3", "1") || !strings.Contains(got[1], query) || !strings.Contains(got[2], query) {
		t.Errorf("replay offers:\n%q\nwant last and the DIAGNOSIS runs by number, each with its age, outcome and query", got)
	}
	shown := complete("runs", "show", "")
	if !described(shown, "last", "3", "2", "1") || !strings.Contains(shown[2], "query_logs ") {
		t.Errorf("runs show offers:\n%q\nwant last and the three runs by number, the tool call between the diagnoses", shown)
	}
	// Typed as an ID, the IDs.
	if got := complete("replay", "r_"); !described(got, newer, runs) || !strings.Contains(got[0], query) {
		t.Errorf("replay r_ offers:\n%q\nwant the DIAGNOSIS runs' IDs", got)
	}
	if got := complete("replay", runs, ""); len(got) != 0 {
		t.Errorf("replay's second argument: %q, want nothing", got)
	}
	sessions := complete("chat", "--session", "")
	const sessionQuery = "\tpayment timeouts on order-service since 14:00, many 504s …"
	if len(sessions) != 3 || !strings.HasPrefix(sessions[0], "s_") || !strings.HasSuffix(sessions[0], sessionQuery) || !strings.HasSuffix(sessions[2], sessionQuery) || sessions[0] == sessions[2] {
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

package tmux

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// talliedModel asks the demo workspace's logs, runbooks and database one
// question each, a turn at a time, then never answers in time (the run
// is cancelled while it waits).
func talliedModel(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	calls := []ollamatest.ToolCall{
		{ID: "call_tally001", Name: "query_logs", Args: `{"input":{"service":"payment-service","level":"ERROR","since":"1h","limit":5}}`},
		{ID: "call_tally002", Name: "lookup_knowledge", Args: `{"previous_observation":{"tool_call_id":"call_tally001","evaluation":"GAINED"},"input":{"query":"payment timeout"}}`},
		{ID: "call_tally003", Name: "query_mysql", Args: `{"previous_observation":{"tool_call_id":"call_tally002","evaluation":"GAINED"},"input":{"sql":"SELECT status, count(*) FROM payments GROUP BY status"}}`},
	}
	srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		done := toolResults(req)
		if done < len(calls) {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{calls[done]}, PromptEvalCount: 3000, EvalCount: 40, FirstByteDelay: 300 * time.Millisecond}
		}
		return ollamatest.Turn{Content: []string{"{}"}, FirstByteDelay: 60 * time.Second}
	})
	return srv
}

// What each call found, as the demo workspace answers the three questions:
// the first payment-service error of the last hour (a time of day, the
// window's own day), the best runbook section and its score, the rows.
var talliedLines = []*regexp.Regexp{
	regexp.MustCompile(`query_logs .*→ EVIDENCE_FOUND · [1-9]\d* matched, first 14:\d\d:\d\d\b`),
	regexp.MustCompile(`lookup_knowledge .*→ EVIDENCE_FOUND · top: payment-timeout\.md#\S+ \(\d+(\.\d+)?\)`),
	regexp.MustCompile(`query_mysql .*→ EVIDENCE_FOUND · 3 rows\b`),
}

// missingTallies names the tool lines of screen that lack their tally.
func missingTallies(screen string) []string {
	var missing []string
	for _, rx := range talliedLines {
		if !rx.MatchString(screen) {
			missing = append(missing, rx.String())
		}
	}
	return missing
}

// The live view ends each tool row with what the call found and its footer
// says which key cancels; the rows stay after Ctrl-C, above the cancelled
// end that counts the calls that had gathered evidence.
func TestLiveViewTalliesInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	srv := talliedModel(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "superbiz.db")
	p := session(t, tmux, cleanEnv(dir)+bin+" diagnose --demo --db "+db+" --host "+srv.URL()+
		" 'why do checkout payments fail?'; echo EXIT=$?; sleep 60")
	p.waitFor(`q or ctrl\+c cancel`, 20*time.Second)
	p.waitFor(`query_mysql .*→ EVIDENCE_FOUND`, 30*time.Second)
	live := p.waitFor(`waiting for the model`, 10*time.Second)
	t.Logf("live:\n%s", live)
	if m := missingTallies(live); len(m) > 0 || strings.Contains(live, "EXIT=") {
		t.Fatalf("the live view lacks %q:\n%s", m, live)
	}
	p.run("send-keys", "-t", p.name, "C-c")
	end := p.waitFor(`EXIT=\d+`, 20*time.Second)
	t.Logf("after ctrl+c:\n%s", end)
	if m := missingTallies(end); len(m) > 0 || !strings.Contains(end, "EXIT=130") ||
		!strings.Contains(end, "CANCELLED · 3 of 3 tool calls had gathered evidence") {
		t.Fatalf("the cancelled screen lacks %q or the count of calls with evidence:\n%s", m, end)
	}
}

// With stderr not a terminal, the progress lines end the same way, and the
// [done] line of the run cancelled by Ctrl-C says how many calls had
// gathered evidence.
func TestLinePrinterTalliesInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	srv := talliedModel(t)
	dir := t.TempDir()
	db, progress := filepath.Join(dir, "superbiz.db"), filepath.Join(dir, "progress.txt")
	p := session(t, tmux, cleanEnv(dir)+bin+" diagnose --demo --db "+db+" --host "+srv.URL()+
		" 'why do checkout payments fail?' 2>"+progress+"; echo EXIT=$?; sleep 60")
	deadline := time.Now().Add(30 * time.Second)
	var lines []byte
	for time.Now().Before(deadline) && !regexp.MustCompile(`\[tool\] query_mysql`).Match(lines) {
		time.Sleep(100 * time.Millisecond)
		lines, _ = os.ReadFile(progress)
	}
	if m := missingTallies(string(lines)); len(m) > 0 {
		t.Fatalf("the progress lines lack %q:\n%s", m, lines)
	}
	p.run("send-keys", "-t", p.name, "C-c")
	screen := p.waitFor(`EXIT=\d+`, 20*time.Second)
	lines, err := os.ReadFile(progress)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress lines:\n%s", lines)
	done := regexp.MustCompile(`(?m)^\[done\] ✗ CANCELLED .* · 3 of 3 tool calls had gathered evidence$`)
	if m := missingTallies(string(lines)); len(m) > 0 || !strings.Contains(screen, "EXIT=130") || !done.Match(lines) {
		t.Fatalf("after ctrl+c the progress lines lack %q or the [done] count (screen:\n%s):\n%s", m, screen, lines)
	}
}

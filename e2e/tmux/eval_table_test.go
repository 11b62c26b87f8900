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

// missedCauseModel answers the built-in pack db-pool-exhaustion with its
// two evidence calls, then a SUCCESS whose root cause names none of the
// pack's cause words (a bad deploy), which the semantic guard lets
// through: an eval FAIL whose outcome is the expected one.
func missedCauseModel(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	calls := []ollamatest.ToolCall{
		{ID: "call_1", Name: "lookup_knowledge", Args: `{"input":{"query":"orders-api 500 errors"}}`},
		{ID: "call_2", Name: "query_logs", Args: `{"previous_observation":{"tool_call_id":"call_1","evaluation":"GAINED"},"input":{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z","service":"orders-api","level":"ERROR"}}`},
	}
	draft := `{"conclusion":{"summary":"A bad deploy of orders-api broke the checkout flow.","root_cause":"A bad deploy of orders-api broke the checkout flow.","confidence":"MEDIUM"},` +
		`"analysis":[{"type":"FINDING","claim":"orders-api logged errors every minute from 09:05.","tool_call_ids":["call_2"],"scope":"app logs"}],` +
		`"action_plan":[{"priority":"P1","step":"Restart the service.","risk":"LOW"}],"recommendations":[],"limitations":{"scope":"the configured sources in the incident window","missing_info":[]}}`
	srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		if strings.Contains(string(req.Format), `"verdict"`) {
			return ollamatest.Turn{Content: []string{`{"verdict":"SUPPORTED","reasons":["scripted verdict"]}`}}
		}
		done := toolResults(req)
		if done < len(calls) {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{calls[done]}, PromptEvalCount: 900, EvalCount: 40}
		}
		return ollamatest.Turn{Content: []string{draft}, PromptEvalCount: 900, EvalCount: 200}
	})
	return srv
}

// eval's table at 80 columns: no line wraps, and the row of a pack that
// failed with the expected outcome says why (the cause words missed) in
// the row itself, the full reason under it; piped, the row keeps every
// word (issue 40 #16).
func TestEvalTableAt80InTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	srv := missedCauseModel(t)
	dir := t.TempDir()
	piped := filepath.Join(dir, "eval.txt")
	c := cleanEnv(dir) + bin + " eval --suite builtin --filter db-pool-exhaustion --host " + srv.URL()
	p := session80(t, tmux, c+"; "+c+" > "+piped+" 2>/dev/null; echo EXIT=$?; sleep 60")
	p.waitFor(`EXIT=\d+`, 60*time.Second)
	joined := p.run("capture-pane", "-p", "-J", "-S", "-", "-t", p.name)
	t.Logf("80 columns:\n%s", joined)
	noWrappedLine(t, joined, 80)
	row := regexp.MustCompile(`(?m)^FAIL +db-pool-exhaustion +\d+/2 +\d+ +\S+ +SUCCESS · cause words missed`)
	if !row.MatchString(joined) {
		t.Errorf("the FAIL row does not say the cause words were missed")
	}
	if !regexp.MustCompile(`(?m)^ +root_cause: none of \["pool"`).MatchString(joined) {
		t.Errorf("the full reason is not under the row")
	}
	text, err := os.ReadFile(piped)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("piped:\n%s", text)
	if !regexp.MustCompile(`(?m)^FAIL +db-pool-exhaustion .*SUCCESS · cause words missed, evidence missing$`).Match(text) {
		t.Errorf("the piped FAIL row lacks its whole reason:\n%s", text)
	}
}

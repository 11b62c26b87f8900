package cmd

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/internal/vlogstest"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// vlTurns are a diagnosis that reads the shop's errors from VictoriaLogs
// and cites them.
func vlTurns() []ollamatest.Turn {
	draft := `{"conclusion":{"summary":"Checkout fails: the payment gateway times out.","root_cause":"The payment gateway times out, so checkout requests fail.","confidence":"MEDIUM"},` +
		`"analysis":[{"type":"FINDING","claim":"checkout logged 40 ERROR entries 'Upstream payment timeout after <N>ms' between 09:00 and 09:30.","scope":"log source shop (VictoriaLogs), service checkout","tool_call_ids":["call_v1"]}],` +
		`"action_plan":[{"priority":"P1","step":"Check the payment gateway's health and raise its timeout alert.","risk":"LOW"}],"recommendations":["Alert on checkout error rate."],` +
		`"limitations":{"scope":"one VictoriaLogs source.","missing_info":["the gateway's own logs"]}}`
	return []ollamatest.Turn{
		{ToolCalls: []ollamatest.ToolCall{{ID: "call_v1", Name: logtool.ToolName, Args: `{"input":{"source":"shop","level":"ERROR","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:30:00Z"}}`}}},
		{Content: []string{draft}},
		{Content: []string{`{"verdict":"SUPPORTED","reasons":["the finding matches the cited entries"]}`}},
	}
}

// Checkout errors kept in VictoriaLogs, diagnosed through each model wire
// on a real single node read with a bearer token: the released diagnosis
// cites query_logs on the victorialogs source, the model received the
// entries and their method, and no token shows anywhere. The run is then
// frozen into an eval pack (the recorded call, not the server) and graded
// again with the server gone.
func TestVictoriaLogsDiagnosisThroughEachProvider(t *testing.T) {
	testenv.SkipShort(t, "starts a real VictoriaLogs server")
	const token = "vl-Scenario-Token-8c21"
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		vl := vlogstest.Single(t)
		start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
		var lines []string
		for i := range 120 {
			at := start.Add(time.Duration(i) * 15 * time.Second).Format(time.RFC3339)
			if i%3 == 0 {
				lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"error","service":"checkout","namespace":"shop","msg":"Upstream payment timeout after %dms"}`, at, 3000+i))
			} else {
				lines = append(lines, fmt.Sprintf(`{"ts":%q,"level":"info","service":"cart","namespace":"shop","msg":"item added"}`, at))
			}
		}
		vlogstest.Ingest(t, vl, lines, "service", "namespace")
		dir := t.TempDir()
		cfg := filepath.Join(dir, "superbiz.toml")
		fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = []\n\n[[logs]]\nname = \"shop\"\nbackend = \"victorialogs\"\nurl = %q\nbearer_token_env = \"VL_TOKEN\"\nfilter = '{namespace=\"shop\"}'\ntimezone = \"UTC\"\n", vl.URL))
		srv := providertest.Start(t, prov)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		env["VL_TOKEN"] = token
		env["SUPERBIZ_CONFIG"] = cfg
		srv.Script(vlTurns()...)
		code, out, errOut := cli(t, env, "diagnose", "-o", "json", "why does checkout fail?")
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		got := decodeDiagnosed(t, out)
		if got.ReleaseOutcome != "SUCCESS" || len(got.Checks) != 1 || got.Checks[0].Tool != logtool.ToolName || got.Checks[0].EvidenceStatus != "EVIDENCE_FOUND" {
			t.Fatalf("outcome %s, checks %+v\n%s\n%s", got.ReleaseOutcome, got.Checks, out, errOut)
		}
		if len(got.Result.Findings) != 1 || !strings.Contains(strings.Join(got.Result.Findings[0].Sources, ","), logtool.ToolName) {
			t.Errorf("the finding does not cite query_logs: %+v", got.Result.Findings)
		}
		observations := toolMessages(srv)
		for _, want := range []string{`"matched":40`, `Upstream payment timeout after`, `"method":"victorialogs: matched by stats count()`} {
			if !strings.Contains(observations, want) {
				t.Errorf("the model did not receive %s:\n%.3000s", want, observations)
			}
		}
		for _, b := range append(srv.Bodies(), []byte(out+errOut)) {
			if strings.Contains(string(b), token) {
				t.Fatalf("the token reached the model or the output")
			}
		}
		vl.Stop(t)
		packAndGrade(t, env, srv, vlTurns(), dir, "checkout-timeout", "payment gateway", "query_logs shop: 1 recorded call(s)", "SUPERBIZ_CONFIG", "VL_TOKEN")
	})
}

package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
)

// The path an on-call engineer takes, end to end on real servers: a firing
// Alertmanager alert starts the diagnosis; the agent reads the runbook, the
// service's logs and the metrics of a real Prometheus; the released
// diagnosis cites the metrics call (and the logs call) it rests on.
func TestAlertMetricsLogsRunbookDiagnosis(t *testing.T) {
	prom := promtest.Prometheus(t, promtest.PromOptions{})
	am := promtest.StartAlertmanager(t)
	am.Post(t, promtest.Alert{
		Labels:      map[string]string{"alertname": "CheckoutLatencyHigh", "service": "checkout", "severity": "critical"},
		Annotations: map[string]string{"summary": "checkout p99 above 2s"},
		StartsAt:    promtest.SpikeAt,
	})
	am.WaitFiring(t, 1)

	dir := t.TempDir()
	fixture.WriteFile(t, filepath.Join(dir, "runbooks", "checkout-latency.md"), "# CheckoutLatencyHigh\n\n"+
		"## Symptoms\n\nCheckout p99 latency above 2 s; customers see slow payment pages.\n\n"+
		"## Checks\n\nQuery checkout_latency_p99_seconds around the alert and look for upstream payment timeouts in the checkout logs.\n")
	var logLines strings.Builder
	for i := range 6 {
		at := promtest.SpikeAt.Add(time.Duration(i*15) * time.Second)
		fmt.Fprintf(&logLines, `{"ts":%q,"level":"ERROR","service":"checkout","msg":"upstream payment-service timeout after 3000ms","order_id":%d}`+"\n", at.Format(time.RFC3339), 1000+i)
		fmt.Fprintf(&logLines, `{"ts":%q,"level":"INFO","service":"checkout","msg":"order placed","order_id":%d}`+"\n", at.Add(-5*time.Minute).Format(time.RFC3339), 2000+i)
	}
	fixture.WriteFile(t, filepath.Join(dir, "logs", "checkout.log"), logLines.String())
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = [%q]\n\n[[logs]]\nname = \"app\"\npaths = [%q]\n\n[[metrics]]\nname = \"prom\"\nurl = %q\n\n[alerts]\nurl = %q\n",
		filepath.Join(dir, "runbooks"), filepath.Join(dir, "logs", "*.log"), prom.URL, am.URL))

	window := fmt.Sprintf(`"start":%q,"end":%q`, promtest.Start.Format(time.RFC3339), promtest.End.Format(time.RFC3339))
	prev := func(id string) string {
		return `"previous_observation":{"tool_call_id":"` + id + `","evaluation":"GAINED"},`
	}
	draft := `{"conclusion":{"summary":"Checkout p99 latency spiked to 4.8 s at 09:10 while checkout timed out calling payment-service.","root_cause":"Upstream payment-service timeouts slowed checkout at 09:10.","confidence":"MEDIUM"},` +
		`"analysis":[{"type":"FINDING","claim":"checkout_latency_p99_seconds peaked at 4.8 s at 09:10, 0.2 s otherwise.","scope":"prom, service checkout, 09:00-09:30","tool_call_ids":["call_m1"]},` +
		`{"type":"FINDING","claim":"checkout logged 6 upstream payment-service timeouts after 3000 ms from 09:10.","scope":"app logs, service checkout, 09:00-09:30","tool_call_ids":["call_l1"]}],` +
		`"action_plan":[{"priority":"P1","step":"Check payment-service latency and errors at 09:10.","risk":"LOW"}],"recommendations":["Alert on payment-service p99 as well."],` +
		`"limitations":{"scope":"checkout metrics and logs between 09:00 and 09:30.","missing_info":["payment-service metrics"]}}`
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_k1", Name: "lookup_knowledge", Args: `{"input":{"query":"CheckoutLatencyHigh checkout latency"}}`}}},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_l1", Name: "query_logs",
			Args: `{` + prev("call_k1") + `"input":{"service":"checkout","level":"ERROR",` + window + `}}`}}},
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_m1", Name: "query_metrics",
			Args: fmt.Sprintf(`{`+prev("call_l1")+`"input":{"query":%q,%s}}`, promtest.LatencySelector, window)}}},
		ollamatest.Turn{Content: []string{draft}},
		ollamatest.Turn{Content: []string{`{"verdict":"SUPPORTED","reasons":["both findings match the cited summaries"]}`}},
	)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	env["SUPERBIZ_NOW"] = promtest.SpikeAt.Add(6 * time.Hour).Format(time.RFC3339)
	code, out, errOut := cli(t, env, "--config", cfg, "diagnose", "-o", "json", "--alert", "CheckoutLatencyHigh")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var got struct {
		ReleaseOutcome string `json:"release_outcome"`
		Checks         []struct {
			Tool           string `json:"tool"`
			EvidenceStatus string `json:"evidence_status"`
		} `json:"checks"`
		Result struct {
			Findings []struct {
				Sources []string `json:"sources"`
				Checks  []string `json:"checks"`
			} `json:"findings"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var tools []string
	for _, c := range got.Checks {
		if c.EvidenceStatus != "EVIDENCE_FOUND" {
			t.Errorf("check %s: %s, want EVIDENCE_FOUND", c.Tool, c.EvidenceStatus)
		}
		tools = append(tools, c.Tool)
	}
	if got.ReleaseOutcome != "SUCCESS" || strings.Join(tools, ",") != "lookup_knowledge,query_logs,query_metrics" {
		t.Fatalf("outcome %s, checks %v\n%s", got.ReleaseOutcome, tools, out)
	}
	cited := map[string]bool{}
	for _, f := range got.Result.Findings {
		for _, s := range f.Sources {
			cited[s] = true
		}
	}
	if !cited["query_metrics"] || !cited["query_logs"] {
		t.Errorf("findings cite %v, want query_metrics and query_logs\n%s", cited, out)
	}
	// Each finding names its checks in one safe line with the tool's tally.
	lines := map[string]string{}
	for _, f := range got.Result.Findings {
		for _, c := range f.Checks {
			lines[strings.Fields(c)[0]] = c
		}
	}
	if l := lines["query_logs"]; !regexp.MustCompile(`^query_logs \S+ service=checkout ERROR .* · 6 matched, first 09:10:00$`).MatchString(l) {
		t.Errorf("query_logs check line %q, want the input summary, its matched count and the first match's time\n%s", l, out)
	}
	if l := lines["query_metrics"]; !regexp.MustCompile(`^query_metrics .* · 1 series, max 4\.8$`).MatchString(l) || strings.Contains(out, "call_m1") {
		t.Errorf("query_metrics check line %q, want the query, its series count and maximum, no Tool Call ID\n%s", l, out)
	}
	reqs := srv.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("the model was never called")
	}
	var first, observations string
	for _, m := range reqs[0].Messages {
		if m.Role == "user" && first == "" {
			first = m.Content
		}
	}
	for _, req := range reqs {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				observations += m.Content
			}
		}
	}
	for _, want := range []string{"CheckoutLatencyHigh", "checkout p99 above 2s", promtest.SpikeAt.Format(time.RFC3339)} {
		if !strings.Contains(first, want) {
			t.Errorf("the first user message lacks %q:\n%s", want, first)
		}
	}
	for _, want := range []string{`"max":4.8`, "upstream payment-service timeout", "checkout-latency.md"} {
		if !strings.Contains(observations, want) {
			t.Errorf("the model did not receive %q in the observations", want)
		}
	}
}

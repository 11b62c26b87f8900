package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/reliability"
)

// metricsWindow is the incident's window as query_metrics members.
func metricsWindow() string {
	return fmt.Sprintf(`"start":%q,"end":%q`, promtest.Start.Format(time.RFC3339), promtest.End.Format(time.RFC3339))
}

// metricsObservation decodes the result of a query_metrics observation.
type metricsObservation struct {
	EvidenceStatus string `json:"evidence_status"`
	ErrorCode      string `json:"error_code"`
	Result         struct {
		Step        string            `json:"step"`
		TotalSeries int               `json:"total_series"`
		Series      []json.RawMessage `json:"series"`
	} `json:"result"`
}

// Through `superbiz tools call`, against real Prometheus and VictoriaMetrics
// serving the same history: the summary finds the spike's value and minute,
// an empty selector is NO_EVIDENCE (exit 0), a syntax error is ERROR
// INVALID_INPUT (exit 2) with the server's message on stderr, and both
// servers give the same summaries for the same queries (selectors and
// aggregations; range functions such as max_over_time(x[5m]) may differ,
// since VictoriaMetrics' windows include their left edge and keep __name__).
func TestToolsCallQueryMetrics(t *testing.T) {
	prom := promtest.Prometheus(t, promtest.PromOptions{})
	vm := promtest.VictoriaMetrics(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = []\n\n[[metrics]]\nname = \"prom\"\nurl = %q\n\n[[metrics]]\nname = \"vm\"\nurl = %q\n", prom.URL, vm.URL))
	env := diagnoseEnv(t)
	call := func(input string) (int, metricsObservation, string) {
		t.Helper()
		code, out, errOut := cli(t, env, "--config", cfg, "-o", "json", "tools", "call", "query_metrics", input)
		var o metricsObservation
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q: %v", input, code, out, errOut, err)
		}
		return code, o, errOut
	}
	summaries := map[string][]string{}
	for _, src := range []string{"prom", "vm"} {
		for _, q := range []string{promtest.LatencySelector, promtest.HeapSelector, "sum by (service) (" + promtest.HeapSelector + ")"} {
			code, o, errOut := call(fmt.Sprintf(`{"source":%q,"query":%q,%s}`, src, q, metricsWindow()))
			if code != ExitOK || o.EvidenceStatus != "EVIDENCE_FOUND" || len(o.Result.Series) != 1 {
				t.Fatalf("%s %s: exit %d %+v, stderr %q", src, q, code, o, errOut)
			}
			summaries[src] = append(summaries[src], string(o.Result.Series[0]))
		}
		var spike struct {
			Max    float64 `json:"max"`
			MaxAt  string  `json:"max_at"`
			Change string  `json:"change_at"`
		}
		if err := json.Unmarshal([]byte(summaries[src][0]), &spike); err != nil {
			t.Fatal(err)
		}
		if spike.Max != promtest.SpikeValue || spike.MaxAt != "2026-01-15T09:10:00Z" || spike.Change != "2026-01-15T09:10:00Z" {
			t.Errorf("%s latency: %s, want max %g at 09:10 and the largest change at 09:10", src, summaries[src][0], promtest.SpikeValue)
		}

		code, o, errOut := call(fmt.Sprintf(`{"source":%q,"query":"no_such_metric{service=\"checkout\"}",%s}`, src, metricsWindow()))
		if code != ExitOK || o.EvidenceStatus != "NO_EVIDENCE" || o.Result.TotalSeries != 0 {
			t.Errorf("%s empty selector: exit %d %+v, stderr %q; want NO_EVIDENCE, exit 0", src, code, o, errOut)
		}

		code, o, errOut = call(fmt.Sprintf(`{"source":%q,"query":"sum(rate(checkout_latency_p99_seconds[5m])",%s}`, src, metricsWindow()))
		if code != ExitUsage || o.EvidenceStatus != "ERROR" || o.ErrorCode != "INVALID_INPUT" ||
			!strings.Contains(errOut, "query_metrics rejected the input (INVALID_INPUT): query_metrics "+src+": HTTP 4") {
			t.Errorf("%s syntax error: exit %d %+v, stderr %q; want ERROR INVALID_INPUT, exit 2, the server's message", src, code, o, errOut)
		}
	}
	for i := range summaries["prom"] {
		if summaries["prom"][i] != summaries["vm"][i] {
			t.Errorf("query %d: Prometheus and VictoriaMetrics summaries differ:\nprom %s\nvm   %s", i, summaries["prom"][i], summaries["vm"][i])
		}
	}
}

// Prometheus behind basic auth (--web.config.file, bcrypt): the password
// from password_env works; a wrong one is ERROR UNAVAILABLE naming HTTP 401
// and where the password comes from; an unset variable is refused before
// any request (exit 2) naming the variable. doctor says the same, and the
// password appears in no output and not in the run store.
func TestMetricsAuth(t *testing.T) {
	prom := promtest.Prometheus(t, promtest.PromOptions{BasicAuth: true})
	model := ollamatest.New(t)
	env, dir := doctorEnv(t, model.URL())
	env["SUPERBIZ_DB"] = filepath.Join(dir, "superbiz.db")
	fixture.WriteFile(t, filepath.Join(dir, "superbiz.toml"), fmt.Sprintf("[knowledge]\npaths = []\n\n[[metrics]]\nname = \"prom\"\nurl = %q\nusername = %q\npassword_env = \"PROM_PASSWORD\"\n", prom.URL, prom.Username))
	input := fmt.Sprintf(`{"query":%q,%s}`, promtest.LatencySelector, metricsWindow())
	var shown strings.Builder

	env["PROM_PASSWORD"] = prom.Password
	code, out, errOut := cli(t, env, "-o", "json", "tools", "call", "query_metrics", input)
	shown.WriteString(out + errOut)
	if code != ExitOK || !strings.Contains(out, `"evidence_status":"EVIDENCE_FOUND"`) {
		t.Errorf("right password: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, out, errOut = cli(t, env, "doctor")
	shown.WriteString(out + errOut)
	if l := line(t, out, "ok  ", "metrics prom"); !strings.Contains(l, "answers the query vector(1)") || !strings.Contains(l, `basic "grafana" with the password from $PROM_PASSWORD`) {
		t.Errorf("doctor with the right password: %q", l)
	}

	env["PROM_PASSWORD"] = "wrong-" + prom.Password
	code, out, errOut = cli(t, env, "-o", "json", "tools", "call", "query_metrics", input)
	shown.WriteString(out + errOut)
	if code != ExitUnavailable || !strings.Contains(out, `"error_code":"UNAVAILABLE"`) || !strings.Contains(errOut, "HTTP 401") ||
		!strings.Contains(errOut, `refused the credentials (check username "grafana" and the password in $PROM_PASSWORD)`) {
		t.Errorf("wrong password: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = cli(t, env, "doctor")
	shown.WriteString(out + errOut)
	if code != ExitFailed || !strings.Contains(line(t, out, "FAIL", "metrics prom"), "HTTP 401") || !strings.Contains(hintAfter(t, out, "metrics prom"), "refused the credentials") {
		t.Errorf("doctor with a wrong password: exit %d\n%s", code, out)
	}

	delete(env, "PROM_PASSWORD")
	code, out, errOut = cli(t, env, "-o", "json", "tools", "call", "query_metrics", input)
	if code != ExitUsage || !strings.Contains(errOut, "metrics[0].password_env in "+filepath.Join(dir, "superbiz.toml")+" names $PROM_PASSWORD, which is not set") {
		t.Errorf("unset variable: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = cli(t, env, "doctor")
	if code != ExitFailed || !strings.Contains(line(t, out, "FAIL", "metrics prom"), "names $PROM_PASSWORD, which is not set") {
		t.Errorf("doctor with the variable unset: exit %d\n%s", code, out)
	}

	store, err := os.ReadFile(env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	for sink, text := range map[string]string{
		"metrics basic-auth password: tools call and doctor output": shown.String(),
		"metrics basic-auth password: run store file":               string(store),
	} {
		leaked := strings.Count(text, prom.Password)
		reliability.Record(t, reliability.SectionSecrets, sink, map[string]any{"planted": 1, "leaked": leaked})
		if leaked > 0 {
			t.Errorf("%s shows the password %d time(s)", sink, leaked)
		}
	}
}

// --demo points every tool at the demo workspace, which has no metrics
// server: a configured [[metrics]] source is not offered there.
func TestDemoHasNoMetricsSource(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "superbiz.toml")
	fixture.WriteFile(t, cfg, "[[metrics]]\nname = \"prom\"\nurl = \"http://127.0.0.1:9\"\n")
	env := diagnoseEnv(t)
	for args, want := range map[string]bool{"--demo": false, "": true} {
		argv := []string{"--config", cfg, "tools", "list", "-o", "json"}
		if args != "" {
			argv = append(argv, args)
		}
		code, out, errOut := cli(t, env, argv...)
		var defs []struct {
			Name string `json:"name"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &defs) != nil {
			t.Fatalf("tools list %s: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
		offered := false
		for _, d := range defs {
			offered = offered || d.Name == "query_metrics"
		}
		if offered != want {
			t.Errorf("tools list %s: query_metrics offered %v, want %v", args, offered, want)
		}
	}
}

// A diagnosis that rests on a query_metrics call against real Prometheus:
// the model receives the spike's summary (09:10, 4.8), cites the call, and
// the release publishes the finding with query_metrics as its source.
func TestDiagnosisCitesMetrics(t *testing.T) {
	prom := promtest.Prometheus(t, promtest.PromOptions{})
	cfg := filepath.Join(t.TempDir(), "superbiz.toml")
	fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = []\n\n[[metrics]]\nname = \"prom\"\nurl = %q\n", prom.URL))
	draft := `{"conclusion":{"summary":"Checkout p99 latency spiked to 4.8 s at 09:10 and was back to 0.2 s by 09:12.","root_cause":"A latency spike in checkout at 09:10; its trigger is not in the metrics checked.","confidence":"LOW"},` +
		`"analysis":[{"type":"FINDING","claim":"checkout_latency_p99_seconds peaked at 4.8 s at 09:10 (largest change +4.6 s at 09:10), 0.2 s otherwise.","scope":"prom, service checkout, 09:00-09:30","tool_call_ids":["call_m1"]}],` +
		`"action_plan":[{"priority":"P2","step":"Look at what checkout called at 09:10.","risk":"LOW"}],"recommendations":["Alert on checkout p99 above 2 s."],` +
		`"limitations":{"scope":"checkout p99 latency between 09:00 and 09:30.","missing_info":["logs and traces of checkout at 09:10"]}}`
	srv := ollamatest.New(t)
	srv.Script(
		ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_m1", Name: "query_metrics",
			Args: fmt.Sprintf(`{"input":{"query":%q,%s}}`, promtest.LatencySelector, metricsWindow())}}},
		ollamatest.Turn{Content: []string{draft}},
		ollamatest.Turn{Content: []string{`{"verdict":"SUPPORTED","reasons":["the finding matches the cited summary"]}`}},
	)
	env := diagnoseEnv(t)
	env["OLLAMA_HOST"] = srv.URL()
	env["SUPERBIZ_NOW"] = "2026-01-15T09:40:00Z"
	code, out, errOut := cli(t, env, "--config", cfg, "diagnose", "-o", "json", "checkout was slow around 09:10 this morning")
	if code != ExitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var got struct {
		Checks []struct {
			Tool           string `json:"tool"`
			EvidenceStatus string `json:"evidence_status"`
		} `json:"checks"`
		Result struct {
			Findings []struct {
				Sources []string `json:"sources"`
			} `json:"findings"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Checks) != 1 || got.Checks[0].Tool != "query_metrics" || got.Checks[0].EvidenceStatus != "EVIDENCE_FOUND" ||
		len(got.Result.Findings) != 1 || len(got.Result.Findings[0].Sources) != 1 || got.Result.Findings[0].Sources[0] != "query_metrics" {
		t.Errorf("checks %+v, findings %+v: want one query_metrics check cited by the finding\n%s", got.Checks, got.Result.Findings, out)
	}
	var observation string
	for _, req := range srv.ChatRequests() {
		for _, m := range req.Messages {
			if m.Role == "tool" {
				observation = m.Content
			}
		}
	}
	if !strings.Contains(observation, `"max":4.8`) || !strings.Contains(observation, `"max_at":"2026-01-15T09:10:00Z"`) {
		t.Errorf("the model did not receive the spike's summary: %s", observation)
	}
}

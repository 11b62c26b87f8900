package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/promtest"
)

// `diagnose --alert NAME` and chat's "/alert NAME" give the run's
// build_timeline the series the alert's rule compares, as `timeline
// --alert` watches it (one path: usecase.ResolveAlert). The alert comes
// without a generatorURL (as vmalert or a relay sends it), so the rule's
// expression is read from the real Prometheus' rules (/api/v1/rules): the
// model is offered build_timeline watching "HighLatency expression", and
// the call it makes reads that series from the [[metrics]] source.
func TestDiagnoseFromAlertWatchesItsRule(t *testing.T) {
	prom, am := promtest.FiringRuleAlert(t, alertStart)
	env := diagnoseEnv(t)
	cfg := filepath.Join(t.TempDir(), "superbiz.toml")
	toml := "[knowledge]\npaths = []\n\n[alerts]\nurl = \"" + am.URL + "\"\ntimeout = \"10s\"\n\n[[metrics]]\nname = \"prom\"\nurl = \"" + prom.URL + "\"\n"
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfg
	env["SUPERBIZ_NOW"] = alertStart.Add(3 * time.Hour).Format(time.RFC3339)
	for _, fe := range []struct {
		name, stdin string
		args        []string
	}{
		{name: "diagnose", args: []string{"diagnose", "--alert", "HighLatency", "-o", "json"}},
		{name: "chat", stdin: "/alert HighLatency\n", args: []string{"chat", "-o", "json"}},
	} {
		t.Run(fe.name, func(t *testing.T) {
			alertWatchedBy(t, env, fe.stdin, fe.args...)
		})
	}
}

// alertWatchedBy runs args (stdin the messages) on a model that calls
// build_timeline once and checks that the call watched the alert's rule.
func alertWatchedBy(t *testing.T, env map[string]string, stdin string, args ...string) {
	t.Helper()
	srv := ollamatest.New(t)
	srv.Script(ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_t1", Name: "build_timeline", Args: `{"input":{"since":"1h"}}`}}})
	srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn { return ollamatest.Turn{Content: []string{noConclusion}} })
	env = maps.Clone(env)
	env["OLLAMA_HOST"] = srv.URL()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, func(k string) string { return env[k] })
	out, errOut := stdout.String(), stderr.String()
	if want := map[bool]int{true: ExitOK, false: ExitFallback}[stdin != ""]; code != want { // chat's fallback is an answer
		t.Fatalf("exit %d, want %d\n%s\n%s", code, want, out, errOut)
	}
	reqs := srv.ChatRequests()
	offered := ""
	for _, tool := range reqs[0].Tools {
		if tool.Function.Name == "build_timeline" {
			offered = tool.Function.Description
		}
	}
	if !strings.Contains(offered, "the metrics that left their recent band (HighLatency expression)") {
		t.Fatalf("build_timeline is not offered watching the alert's expression: %q\n%s", offered, errOut)
	}
	var res struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	_, shown, _ := cli(t, env, "runs", "show", res.RunID, "-o", "json")
	var run struct {
		Invocations []struct {
			Tool        string `json:"tool"`
			Observation struct {
				Result struct {
					Coverage []struct {
						Detector, Source, Status, Note string
					} `json:"coverage"`
				} `json:"result"`
			} `json:"observation"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(shown), &run); err != nil {
		t.Fatal(err)
	}
	watched := false
	for _, inv := range run.Invocations {
		for _, c := range inv.Observation.Result.Coverage {
			// the series holds no sample: read, and said empty
			if inv.Tool == "build_timeline" && c.Detector == "metric_shift" && c.Source == "HighLatency expression" && c.Status == "empty" {
				watched = true
			}
		}
	}
	if !watched {
		t.Fatalf("the build_timeline call did not read the alert's expression:\n%s", shown)
	}
}

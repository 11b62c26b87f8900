package cmd

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// kubernetesTurns are a diagnosis of a crash-looping pod in namespace ns
// that follows the playbook's order: the pods first, then the Warning
// events (judging the pods' answer), and a draft citing both.
func kubernetesTurns(ns string) []ollamatest.Turn {
	draft := `{"conclusion":{"summary":"checkout-7d9f restarts in a loop: its container is killed for memory (OOMKilled, exit 137).","root_cause":"The checkout container exceeds its memory limit and is OOMKilled (exit code 137), so the pod is in CrashLoopBackOff.","confidence":"MEDIUM"},` +
		`"analysis":[{"type":"FINDING","claim":"Pod checkout-7d9f is in CrashLoopBackOff with 6 restarts; its last termination was OOMKilled with exit code 137.","scope":"namespace ` + ns + `, pods","tool_call_ids":["call_k1"]},` +
		`{"type":"FINDING","claim":"A Warning BackOff event about pod checkout-7d9f repeated 14 times in the last hour.","scope":"namespace ` + ns + `, Warning events, last hour","tool_call_ids":["call_k2"]}],` +
		`"action_plan":[{"priority":"P1","step":"Raise the checkout container's memory limit or find what grew its memory.","risk":"LOW"}],"recommendations":["Alert on OOMKilled terminations."],` +
		`"limitations":{"scope":"the pods and Warning events of one namespace.","missing_info":["the container's logs before the kill"]}}`
	return []ollamatest.Turn{
		{ToolCalls: []ollamatest.ToolCall{{ID: "call_k1", Name: kubetool.ToolName, Args: `{"input":{"source":"prod","view":"pods","namespace":"` + ns + `"}}`}}},
		{ToolCalls: []ollamatest.ToolCall{{ID: "call_k2", Name: kubetool.ToolName,
			Args: `{"input":{"source":"prod","view":"events","namespace":"` + ns + `","type":"Warning"},"previous_observation":{"tool_call_id":"call_k1","evaluation":"GAINED"}}`}}},
		{Content: []string{draft}},
		{Content: []string{`{"verdict":"SUPPORTED","reasons":["the findings match the cited pods and events"]}`}},
	}
}

// A pod that crash-loops for memory, diagnosed through each model wire on
// the real API server of .ci/kubernetes.sh read by the read-only account:
// the released diagnosis (SUCCESS) cites both query_kubernetes calls, the
// model received the pod's reason, last termination and the Warning event,
// and no environment value or annotation shows anywhere. The run is then
// frozen into an eval pack (the recorded answers, not the cluster) and
// graded again with the configuration gone.
func TestKubernetesDiagnosisThroughEachProvider(t *testing.T) {
	reader := kubetest.Kubeconfig(t, kubetest.EnvReader)
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		adm := kubetest.NewAdmin(t)
		ns := adm.Namespace("shop")
		now := time.Now()
		crashed := map[string]any{"terminated": map[string]any{"reason": "OOMKilled", "exitCode": 137,
			"startedAt": kubetest.Time(now.Add(-9 * time.Minute)), "finishedAt": kubetest.Time(now.Add(-8 * time.Minute))}}
		adm.Pod(ns, "checkout-7d9f", "node-a", map[string]any{"phase": "Running", "containerStatuses": []any{
			kubetest.ContainerStatus(false, 6, map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}}, crashed)}})
		adm.Pod(ns, "cart-5c4b", "node-a", map[string]any{"phase": "Running", "startTime": kubetest.Time(now.Add(-2 * time.Hour)), "containerStatuses": []any{
			kubetest.ContainerStatus(true, 0, map[string]any{"running": map[string]any{"startedAt": kubetest.Time(now.Add(-2 * time.Hour))}}, nil)}})
		adm.Event(ns, "checkout-7d9f.backoff", "Pod", "checkout-7d9f", "Warning", "BackOff", "Back-off restarting failed container app in pod checkout-7d9f", 14, now.Add(-40*time.Minute), now.Add(-2*time.Minute))

		dir := t.TempDir()
		cfg := filepath.Join(dir, "superbiz.toml")
		fixture.WriteFile(t, cfg, fmt.Sprintf("[knowledge]\npaths = []\n\n[[kubernetes]]\nname = \"prod\"\nkubeconfig = %q\n", reader))
		srv := providertest.Start(t, prov)
		env := diagnoseEnv(t)
		maps.Copy(env, srv.Env())
		env["SUPERBIZ_CONFIG"] = cfg
		srv.Script(kubernetesTurns(ns)...)
		code, out, errOut := cli(t, env, "diagnose", "-o", "json", "why does checkout keep restarting in namespace "+ns+"?")
		if code != ExitOK {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		got := decodeDiagnosed(t, out)
		if got.ReleaseOutcome != "SUCCESS" || len(got.Checks) != 2 {
			t.Fatalf("outcome %s, checks %+v\n%s\n%s", got.ReleaseOutcome, got.Checks, out, errOut)
		}
		for _, c := range got.Checks {
			if c.Tool != kubetool.ToolName || c.EvidenceStatus != "EVIDENCE_FOUND" {
				t.Errorf("check %+v, want query_kubernetes EVIDENCE_FOUND", c)
			}
		}
		if len(got.Result.Findings) != 2 {
			t.Fatalf("findings %+v", got.Result.Findings)
		}
		for _, f := range got.Result.Findings {
			if !strings.Contains(strings.Join(f.Sources, ","), kubetool.ToolName) {
				t.Errorf("a finding does not cite query_kubernetes: %+v", f)
			}
		}
		observations := toolMessages(srv)
		for _, want := range []string{`"name":"checkout-7d9f"`, `"reason":"CrashLoopBackOff"`, `"reason":"OOMKilled"`, `"exit_code":137`, `"restarts":6`, `"reason":"BackOff"`, `"count":14`} {
			if !strings.Contains(observations, want) {
				t.Errorf("the model did not receive %s:\n%.3000s", want, observations)
			}
		}
		// the pods answer lists the crashing pod before the healthy one
		if i, j := strings.Index(observations, "checkout-7d9f"), strings.Index(observations, "cart-5c4b"); i < 0 || j < 0 || i > j {
			t.Errorf("the unhealthy pod is not listed first:\n%.3000s", observations)
		}
		for _, b := range append(srv.Bodies(), []byte(out+errOut)) {
			if strings.Contains(string(b), "Hunter2Secret") {
				t.Fatalf("an environment value or an annotation reached the model or the output")
			}
		}

		// Frozen, then graded with the configuration (and so the cluster) gone.
		packAndGrade(t, env, srv, kubernetesTurns(ns), dir, "checkout-oom", "OOMKilled", "query_kubernetes prod: 2 recorded call(s)", "SUPERBIZ_CONFIG")
	})
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/kubetest"
)

// `superbiz timeline` with a [[kubernetes]] source, on the real API server:
// the rollout in the window is a deploy, the OOMKilled pod a restart, its
// BackOff a k8s_warning, each citing the run's own query_kubernetes call
// (the run shows that call with that view); `replay` derives the same
// events from the recorded observations, even after the cluster's events
// are gone.
func TestTimelineKubernetesEventsAndReplay(t *testing.T) {
	t.Parallel()
	adm := kubetest.NewAdmin(t)
	reader := kubetest.Kubeconfig(t, kubetest.EnvReader)
	ns := adm.Namespace("tl")
	now := time.Now().UTC().Truncate(time.Second)
	adm.Deployment(ns, "checkout", []string{"registry.example/checkout:1.4.0", "registry.example/checkout:1.5.0"}, nil)
	adm.Pod(ns, "checkout-oom", "node-a", map[string]any{"phase": "Running", "containerStatuses": []any{kubetest.ContainerStatus(true, 2,
		map[string]any{"running": map[string]any{"startedAt": kubetest.Time(now.Add(-4 * time.Minute))}},
		map[string]any{"terminated": map[string]any{"reason": "OOMKilled", "exitCode": 137, "finishedAt": kubetest.Time(now.Add(-5 * time.Minute))}})}})
	adm.Event(ns, "oom.backoff", "Pod", "checkout-oom", "Warning", "BackOff", "Back-off restarting failed container app", 3, now.Add(-4*time.Minute), now.Add(-time.Minute))

	e := newEnv(t, "http://127.0.0.1:1")
	cfg := filepath.Join(e.dir, "superbiz.toml")
	body := "[knowledge]\npaths = []\n\n[[kubernetes]]\nname = \"prod\"\nkubeconfig = \"" + reader + "\"\nnamespaces = [\"" + ns + "\"]\n"
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	e.vars["SUPERBIZ_CONFIG"] = cfg
	r := e.run(t, "timeline", "--start", now.Add(-time.Hour).Format(time.RFC3339), "--end", now.Add(2*time.Minute).Format(time.RFC3339), "-o", "json")
	var tl timelineJSON
	if err := json.Unmarshal([]byte(r.stdout), &tl); err != nil || r.code != 0 {
		t.Fatalf("%v\n%s", err, r)
	}
	show := e.run(t, "runs", "show", tl.RunID, "-o", "json")
	var run struct {
		ToolCalls []struct {
			ID    string          `json:"tool_call_id"`
			Tool  string          `json:"tool"`
			Input json.RawMessage `json:"input"`
		} `json:"invocations"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &run); err != nil || show.code != 0 {
		t.Fatalf("runs show: %v\n%s", err, show)
	}
	views := map[string]string{}
	for _, c := range run.ToolCalls {
		var in struct {
			View string `json:"view"`
		}
		if c.Tool == "query_kubernetes" && json.Unmarshal(c.Input, &in) == nil {
			views[c.ID] = in.View
		}
	}
	wantView := map[string]string{"deploy": "rollouts", "restart": "pods", "k8s_warning": "events"}
	var kinds []string
	for _, ev := range tl.Events {
		kinds = append(kinds, ev.Kind)
		if views[ev.ToolCallID] != wantView[ev.Kind] || ev.Source != "prod" || ev.Service != "checkout" && ev.Kind == "deploy" {
			t.Errorf("event %+v cites %q (view %q), want a query_kubernetes %s call of the run: %s", ev, ev.ToolCallID, views[ev.ToolCallID], wantView[ev.Kind], show.stdout)
		}
	}
	// the warning (4 minutes ago) and the restart (5) before the two revisions (now)
	if want := []string{"restart", "k8s_warning", "deploy", "deploy"}; !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v\n%s", kinds, want, r.stdout)
	}

	// the cluster forgets its events: replay reads the recorded ones
	adm.Do("DELETE", "/api/v1/namespaces/"+ns+"/events/oom.backoff", nil, nil)
	rep := e.run(t, "replay", tl.RunID, "-o", "json")
	var out struct {
		Identical   bool     `json:"identical"`
		Differences []string `json:"differences"`
		Result      struct {
			Timeline timelineJSON `json:"timeline"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &out); err != nil || rep.code != 0 {
		t.Fatalf("replay: %v\n%s", err, rep)
	}
	if !out.Identical || !reflect.DeepEqual(out.Result.Timeline.Events, tl.Events) || !reflect.DeepEqual(out.Result.Timeline.Coverage, tl.Coverage) {
		t.Errorf("replay: identical %v %q\n%+v\nwant\n%+v", out.Identical, out.Differences, out.Result.Timeline, tl)
	}
}

package timeline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/pkg/tools"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// kubeIncident writes, on the real API server of .ci/kubernetes.sh, a
// rollout of checkout (revision 2 replacing 1.4.0 with 1.5.0), a checkout
// pod OOMKilled 10 minutes before now and one whose last crash is 2 hours
// old, and Warning events: BackOff of the OOMKilled pod 9 minutes before
// now, FailedScheduling 30 minutes before, Unhealthy seen since 3 hours
// before, one Warning wholly before the window and a Normal event. It
// returns the namespace and the creation time of revision 2.
func kubeIncident(t *testing.T, now time.Time) (string, time.Time) {
	adm := kubetest.NewAdmin(t)
	ns := adm.Namespace("tl")
	adm.Deployment(ns, "checkout", []string{"registry.example/checkout:1.4.0", "registry.example/checkout:1.5.0"}, []map[string]any{
		kubetest.Condition("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet checkout-2 has successfully progressed."),
	})
	var rs struct {
		Metadata struct {
			UID               string    `json:"uid"`
			CreationTimestamp time.Time `json:"creationTimestamp"`
		} `json:"metadata"`
	}
	adm.Do("GET", "/apis/apps/v1/namespaces/"+ns+"/replicasets/checkout-2", nil, &rs)
	pod := func(name string, finished time.Time, reason string, code int) {
		adm.Do("POST", "/api/v1/namespaces/"+ns+"/pods", map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": name, "ownerReferences": []any{map[string]any{
				"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "checkout-2", "uid": rs.Metadata.UID, "controller": true}}},
			"spec": map[string]any{"nodeName": "node-a", "containers": []any{map[string]any{"name": "app", "image": "registry.example/checkout:1.5.0"}}},
		}, nil)
		adm.Do("PATCH", "/api/v1/namespaces/"+ns+"/pods/"+name+"/status", map[string]any{"status": map[string]any{
			"phase": "Running", "containerStatuses": []any{kubetest.ContainerStatus(true, 3,
				map[string]any{"running": map[string]any{"startedAt": kubetest.Time(finished.Add(time.Second))}},
				map[string]any{"terminated": map[string]any{"reason": reason, "exitCode": code, "finishedAt": kubetest.Time(finished)}})},
		}}, nil)
	}
	pod("checkout-2-oom", now.Add(-10*time.Minute), "OOMKilled", 137)
	pod("checkout-2-old", now.Add(-2*time.Hour), "Error", 1)
	adm.Event(ns, "oom.backoff", "Pod", "checkout-2-oom", "Warning", "BackOff", "Back-off restarting failed container app", 5, now.Add(-9*time.Minute), now.Add(-time.Minute))
	adm.Event(ns, "pending.sched", "Pod", "checkout-2-pending", "Warning", "FailedScheduling", "0/3 nodes are available: 3 Insufficient memory.", 2, now.Add(-30*time.Minute), now.Add(-25*time.Minute))
	adm.Event(ns, "dep.unhealthy", "Deployment", "checkout", "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 40, now.Add(-3*time.Hour), now.Add(-20*time.Minute))
	adm.Event(ns, "old.mount", "Pod", "checkout-2-old", "Warning", "FailedMount", "MountVolume.SetUp failed", 1, now.Add(-5*time.Hour), now.Add(-4*time.Hour))
	adm.Event(ns, "oom.pulled", "Pod", "checkout-2-oom", "Normal", "Pulled", "Successfully pulled image", 1, now.Add(-8*time.Minute), now.Add(-8*time.Minute))
	return ns, rs.Metadata.CreationTimestamp
}

// kubeTool is build_timeline over query_kubernetes of the read-only
// account, limited to ns.
func kubeTool(t *testing.T, ns string) *Tool {
	t.Helper()
	kt, err := kubetool.New([]kubetool.Source{{Name: "prod", Kubeconfig: kubetest.Kubeconfig(t, kubetest.EnvReader), Namespaces: []string{ns}, Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := NewTool([]tools.Adapter{kt}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tool.WithKubernetes([]string{"prod"})
}

// The Kubernetes detectors on a real API server: the revision created in
// the window is a deploy with the images it replaced, the pod whose last
// termination is in the window a restart at that time (its service the
// Deployment owning it), each Warning event of the window a k8s_warning at
// its first time (the window's start for one seen since before it); the
// crash and the Warning before the window and the Normal event are none.
// Every event cites the call, in one time order, every detector covered.
func TestKubernetesEventsOnRealServer(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	ns, rev2 := kubeIncident(t, now)
	start, end := now.Add(-time.Hour), now.Add(2*time.Minute)
	in := fmt.Sprintf(`{"start":%q,"end":%q}`, stamp(start), stamp(end))
	out, tl := runTool(t, kubeTool(t, ns), in, now, 256<<10)
	if out.Status != tools.EvidenceFound {
		t.Fatalf("status %s %s (%v)", out.Status, out.ErrorCode, out.Detail)
	}
	type want struct {
		at            time.Time
		kind          Kind
		service       string
		summary       string
		before, after string // a deploy's images, JSON as the event gives them
	}
	wants := []want{
		{start, KubeWarning, "checkout", "Unhealthy on Deployment/checkout (40×, first seen " + stamp(now.Add(-3*time.Hour)), "", ""},
		{now.Add(-30 * time.Minute), KubeWarning, "", "FailedScheduling on Pod/checkout-2-pending (2×, last", "", ""},
		{now.Add(-10 * time.Minute), Restart, "checkout", "pod " + ns + "/checkout-2-oom restarted (3 restarts; last OOMKilled, exit 137)", "", ""},
		{now.Add(-9 * time.Minute), KubeWarning, "checkout", "BackOff on Pod/checkout-2-oom (5×, last", "", ""},
		{rev2, Deploy, "checkout", "Deployment " + ns + "/checkout revision 1: registry.example/checkout:1.4.0", "null", `"registry.example/checkout:1.4.0"`},
		{rev2, Deploy, "checkout", "Deployment " + ns + "/checkout revision 2: registry.example/checkout:1.5.0 (was registry.example/checkout:1.4.0)",
			`"registry.example/checkout:1.4.0"`, `"registry.example/checkout:1.5.0"`},
	}
	if len(tl.Events) != len(wants) {
		t.Fatalf("%d events, want %d:\n%s", len(tl.Events), len(wants), mustJSON(t, tl.Events))
	}
	for i, w := range wants {
		e := tl.Events[i]
		// the revision's time is the server's: within one second of what it says
		if e.At.Sub(w.at).Abs() > time.Second || e.Kind != w.kind || e.Service != w.service || !strings.HasPrefix(e.Summary, w.summary) || e.Source != "prod" || e.ToolCallID != "call_7" {
			t.Errorf("event %d = %+v\nwant at %s %s service %q summary %q…", i, e, w.at, w.kind, w.service, w.summary)
		}
		if w.kind == Deploy && (mustJSON(t, e.Before) != w.before || mustJSON(t, e.After) != w.after) {
			t.Errorf("deploy %d: before %s after %s, want %s and %s", i, mustJSON(t, e.Before), mustJSON(t, e.After), w.before, w.after)
		}
	}
	detectors := map[string]Status{}
	for _, c := range tl.Coverage {
		detectors[c.Detector] = c.Status
	}
	for _, d := range KubeDetectors {
		if detectors[d] != Read {
			t.Errorf("coverage of %s = %q, want read: %s", d, detectors[d], mustJSON(t, tl.Coverage))
		}
	}
}

// A cluster the account may not read is each detector's failed coverage
// line, never "nothing happened"; and an empty namespace is empty.
func TestKubernetesCoverageSaysWhatWasNotRead(t *testing.T) {
	adm := kubetest.NewAdmin(t)
	now := time.Now().UTC().Truncate(time.Second)
	in := fmt.Sprintf(`{"start":%q,"end":%q}`, stamp(now.Add(-time.Hour)), stamp(now))

	kt, err := kubetool.New([]kubetool.Source{{Name: "prod", Kubeconfig: adm.Token(adm.Namespace("nobody"), t.TempDir()), Timeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := NewTool([]tools.Adapter{kt}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runTool(t, tool.WithKubernetes([]string{"prod"}), in, now, 0)
	if out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), "k8s_deploy prod: the call failed (UNAVAILABLE)") {
		t.Errorf("a refused account: %s %v, want UNAVAILABLE naming each detector", out.ErrorCode, out.Detail)
	}

	out, tl := runTool(t, kubeTool(t, adm.Namespace("quiet")), in, now, 0)
	if out.Status != tools.NoEvidence || len(tl.Coverage) != 3 {
		t.Fatalf("empty namespace: %s %v %s", out.Status, out.Detail, mustJSON(t, tl))
	}
	for _, c := range tl.Coverage {
		if c.Status != Empty {
			t.Errorf("coverage %+v, want empty", c)
		}
	}
}

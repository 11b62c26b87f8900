package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/pkg/tools"
)

// shop is the fixture of the real-server tests: one namespace with failing
// and healthy pods, events in and out of the window, a Deployment with two
// revisions, and two nodes, one under memory pressure.
type shop struct {
	ns, empty string
	nodes     [2]string
	now       time.Time
}

var (
	shopOnce sync.Once
	shopFix  shop
)

// shopFixture writes the fixture once per test binary, as the admin.
func shopFixture(t *testing.T) shop {
	t.Helper()
	adm := kubetest.NewAdmin(t)
	shopOnce.Do(func() {
		now := time.Now().UTC().Truncate(time.Second)
		f := shop{ns: adm.Namespace("shop"), empty: adm.Namespace("quiet"), now: now}
		started := kubetest.Time(now.Add(-2 * time.Hour))
		adm.Pod(f.ns, "web-crash", "node-a", map[string]any{
			"phase": "Running", "startTime": started,
			"containerStatuses": []any{kubetest.ContainerStatus(false, 7,
				map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container"}},
				map[string]any{"terminated": map[string]any{"reason": "Error", "exitCode": 1, "startedAt": kubetest.Time(now.Add(-11 * time.Minute)), "finishedAt": kubetest.Time(now.Add(-10 * time.Minute)),
					"message": "panic: connect to postgres://app:Hunter2Secret@db:5432/shop: connection refused\ngoroutine 1 [running]:"}})},
		})
		adm.Pod(f.ns, "worker-oom", "node-b", map[string]any{
			"phase": "Running", "startTime": started,
			"containerStatuses": []any{kubetest.ContainerStatus(true, 3,
				map[string]any{"running": map[string]any{"startedAt": kubetest.Time(now.Add(-4 * time.Minute))}},
				map[string]any{"terminated": map[string]any{"reason": "OOMKilled", "exitCode": 137, "startedAt": kubetest.Time(now.Add(-30 * time.Minute)), "finishedAt": kubetest.Time(now.Add(-5 * time.Minute))}})},
		})
		adm.Pod(f.ns, "api-ok", "node-b", map[string]any{
			"phase": "Running", "startTime": started,
			"containerStatuses": []any{kubetest.ContainerStatus(true, 0, map[string]any{"running": map[string]any{"startedAt": started}}, nil)},
		})
		adm.Event(f.ns, "web-crash.backoff", "Pod", "web-crash", "Warning", "BackOff", "Back-off restarting failed container app in pod web-crash", 12, now.Add(-40*time.Minute), now.Add(-3*time.Minute))
		adm.Event(f.ns, "worker-oom.unhealthy", "Pod", "worker-oom", "Warning", "Unhealthy", "Readiness probe failed: GET /health?password=Hunter2Secret returned 503", 4, now.Add(-20*time.Minute), now.Add(-6*time.Minute))
		adm.Event(f.ns, "api-ok.pulled", "Pod", "api-ok", "Normal", "Pulled", "Successfully pulled image", 1, now.Add(-2*time.Minute), now.Add(-2*time.Minute))
		adm.Event(f.ns, "web-crash.old", "Pod", "web-crash", "Warning", "FailedMount", "MountVolume.SetUp failed", 1, now.Add(-5*time.Hour), now.Add(-4*time.Hour))
		adm.Deployment(f.ns, "checkout", []string{"registry.example/checkout:1.4.0", "registry.example/checkout:1.5.0"}, []map[string]any{
			kubetest.Condition("Progressing", "True", "NewReplicaSetAvailable", "ReplicaSet checkout-2 has successfully progressed."),
			kubetest.Condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
		})
		f.nodes = [2]string{kubetest.Unique("node-pressure"), kubetest.Unique("node-fine")}
		adm.Node(f.nodes[0], []map[string]any{{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}}, []map[string]any{
			kubetest.Condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
			kubetest.Condition("MemoryPressure", "True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available"),
			kubetest.Condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		})
		adm.Node(f.nodes[1], nil, []map[string]any{
			kubetest.Condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
			kubetest.Condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "ok"),
		})
		shopFix = f
	})
	if shopFix.ns == "" {
		t.Fatal("the fixture was not written (an earlier test failed writing it)")
	}
	return shopFix
}

// newTool builds the tool on one source.
func newTool(t *testing.T, s Source) *Tool {
	t.Helper()
	if s.Name == "" {
		s.Name = "test"
	}
	if s.Timeout == 0 {
		s.Timeout = 20 * time.Second
	}
	tool, err := New([]Source{s})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// run canonicalises input and executes it at now, as the harness does.
func run(ctx context.Context, t *testing.T, tool *Tool, now time.Time, input string) (tools.Outcome, Result) {
	t.Helper()
	c, err := tool.Canonical(json.RawMessage(input))
	if err != nil {
		t.Fatalf("Canonical(%s): %v", input, err)
	}
	out := tool.Execute(ctx, tools.Call{Input: c.Input, Now: now, MaxBytes: 64 << 10})
	res, _ := out.Result.(Result)
	return out, res
}

// observed is an outcome as JSON, to look for what must never leave.
func observed(t *testing.T, out tools.Outcome) string {
	t.Helper()
	b, err := json.Marshal(out.Result)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + " " + out.EmptyWindow
}

// The four views on a real API server read as the read-only account: the
// failing pods first with their reasons and last terminations, the Warning
// events of the window first, the Deployment's two revisions with their
// images, the node under pressure; no environment value, annotation or
// secret-looking text leaves.
func TestViewsOnRealServer(t *testing.T) {
	f := shopFixture(t)
	tool := newTool(t, Source{Kubeconfig: kubetest.Kubeconfig(t, kubetest.EnvReader)})
	ctx := context.Background()

	out, res := run(ctx, t, tool, f.now, `{"view":"pods","namespace":"`+f.ns+`"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 3 || res.Returned != 3 || res.Truncated || res.Coverage != coverageData {
		t.Fatalf("pods: %s %v %+v", out.Status, out.Detail, res)
	}
	if res.Context != "superbiz-reader" {
		t.Errorf("context = %q, want the kubeconfig's current one", res.Context)
	}
	crash, oom, ok := res.Pods[0], res.Pods[1], res.Pods[2]
	if crash.Name != "web-crash" || crash.Reason != "CrashLoopBackOff" || crash.Restarts != 7 || crash.Ready != "0/1" ||
		crash.LastTermination == nil || crash.LastTermination.Reason != "Error" || crash.LastTermination.ExitCode != 1 ||
		crash.LastTermination.FinishedAt != kubetest.Time(f.now.Add(-10*time.Minute)) || crash.Node != "node-a" || crash.Phase != "Running" {
		t.Errorf("first pod = %+v %+v, want web-crash in CrashLoopBackOff, 7 restarts, last Error exit 1", crash, crash.LastTermination)
	}
	// the termination message, its credential masked, on one line
	if lt := crash.LastTermination; lt == nil || !strings.HasPrefix(lt.Message, "panic: connect to postgres://") || !strings.Contains(lt.Message, "connection refused goroutine 1") ||
		strings.Contains(lt.Message, "Hunter2Secret") {
		t.Errorf("last termination message = %+v, want the panic on one line, its password masked", lt)
	}
	if oom.Name != "worker-oom" || oom.Restarts != 3 || oom.Ready != "1/1" || oom.LastTermination == nil || oom.LastTermination.Reason != "OOMKilled" || oom.LastTermination.ExitCode != 137 {
		t.Errorf("second pod = %+v, want worker-oom with its OOMKilled exit 137", oom)
	}
	if ok.Name != "api-ok" || ok.Restarts != 0 || ok.Reason != "" || ok.LastTermination != nil || ok.StartedAt != kubetest.Time(f.now.Add(-2*time.Hour)) {
		t.Errorf("healthy pod last = %+v", ok)
	}

	out, res = run(ctx, t, tool, f.now, `{"view":"events","namespace":"`+f.ns+`"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 3 {
		t.Fatalf("events: %s %v %+v", out.Status, out.Detail, res)
	}
	var order []string
	for _, e := range res.Events {
		order = append(order, e.Type+" "+e.Reason)
	}
	if strings.Join(order, ", ") != "Warning BackOff, Warning Unhealthy, Normal Pulled" {
		t.Errorf("events order = %v, want Warning first, newest first, the 4 h old one left out", order)
	}
	if e := res.Events[0]; e.Object != "Pod/web-crash" || e.Count != 12 || e.FirstSeen != kubetest.Time(f.now.Add(-40*time.Minute)) || e.LastSeen != kubetest.Time(f.now.Add(-3*time.Minute)) {
		t.Errorf("BackOff event = %+v", e)
	}
	out, res = run(ctx, t, tool, f.now, `{"view":"events","namespace":"`+f.ns+`","type":"Normal"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 1 || res.Events[0].Reason != "Pulled" {
		t.Errorf("Normal events: %s %+v", out.Status, res)
	}
	out, res = run(ctx, t, tool, f.now, `{"view":"events","namespace":"`+f.ns+`","start":"`+kubetest.Time(f.now.Add(-6*time.Hour))+`","end":"`+kubetest.Time(f.now.Add(-3*time.Hour))+`"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 1 || res.Events[0].Reason != "FailedMount" {
		t.Errorf("events of an earlier window: %s %+v", out.Status, res)
	}

	// the revisions were created after f.now was read: a clock a minute
	// later has them in its last hour
	out, res = run(ctx, t, tool, f.now.Add(time.Minute), `{"view":"rollouts","namespace":"`+f.ns+`","name":"checkout"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 2 {
		t.Fatalf("rollouts: %s %v %+v", out.Status, out.Detail, res)
	}
	cur, prev := res.Rollouts[0], res.Rollouts[1]
	if cur.Revision != 2 || cur.Deployment != "checkout" || strings.Join(cur.Images, ",") != "registry.example/checkout:1.5.0" || cur.Replicas != 2 || cur.Ready != 1 || cur.Available != 1 || len(cur.Conditions) != 2 {
		t.Errorf("current revision = %+v", cur)
	}
	if prev.Revision != 1 || strings.Join(prev.Images, ",") != "registry.example/checkout:1.4.0" || prev.Replicas != 0 || len(prev.Conditions) != 0 {
		t.Errorf("previous revision = %+v", prev)
	}
	if !cur.InWindow || !prev.InWindow {
		t.Errorf("revisions created now are not marked in the window: %+v", res.Rollouts)
	}
	out, res = run(ctx, t, tool, f.now.Add(3*time.Hour), `{"view":"rollouts","namespace":"`+f.ns+`"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 2 || res.Rollouts[0].InWindow {
		t.Errorf("rollouts 3 h later: %s %+v, want both revisions, neither in the window", out.Status, res)
	}

	out, res = run(ctx, t, tool, f.now, `{"view":"nodes","name":"`+f.nodes[0]+`"}`)
	if out.Status != tools.EvidenceFound || res.Matched != 1 {
		t.Fatalf("nodes: %s %v %+v", out.Status, out.Detail, res)
	}
	// the API server's TaintNodesByCondition admission adds
	// node.kubernetes.io/not-ready at creation: the taints hold ours among theirs
	if n := res.Nodes[0]; !n.Ready || len(n.Conditions) != 1 || n.Conditions[0].Type != "MemoryPressure" || n.Conditions[0].Status != "True" ||
		!slices.Contains(n.Taints, "node.kubernetes.io/memory-pressure:NoSchedule") || n.Unschedulable {
		t.Errorf("node under pressure = %+v", n)
	}
	out, res = run(ctx, t, tool, f.now, `{"view":"nodes","name":"`+f.nodes[1]+`"}`)
	if out.Status != tools.EvidenceFound || len(res.Nodes) != 1 || len(res.Nodes[0].Conditions) != 0 {
		t.Errorf("healthy node: %+v", res)
	}

	for _, input := range []string{`{"view":"pods","namespace":"` + f.ns + `"}`, `{"view":"events","namespace":"` + f.ns + `"}`, `{"view":"rollouts","namespace":"` + f.ns + `"}`} {
		out, _ := run(ctx, t, tool, f.now, input)
		if s := observed(t, out); strings.Contains(s, "Hunter2Secret") || strings.Contains(s, "DB_PASSWORD") || strings.Contains(s, "API_TOKEN") {
			t.Errorf("%s: an environment value, annotation or secret left: %s", input, s)
		}
	}
}

// A namespace with nothing in the window is NO_EVIDENCE with coverage
// "none" and the account of what was read; Warning events asked in a window
// that held only a Normal one are a real negative (coverage "data").
func TestEmptyScopeOnRealServer(t *testing.T) {
	f := shopFixture(t)
	tool := newTool(t, Source{Kubeconfig: kubetest.Kubeconfig(t, kubetest.EnvReader)})
	for _, view := range []string{"pods", "events", "rollouts"} {
		out, res := run(context.Background(), t, tool, f.now, `{"view":"`+view+`","namespace":"`+f.empty+`"}`)
		if out.Status != tools.NoEvidence || res.Coverage != tools.CoverageNone || res.Matched != 0 || !strings.Contains(out.EmptyWindow, "namespace "+f.empty) {
			t.Errorf("%s in an empty namespace: %s %q %+v", view, out.Status, out.EmptyWindow, res)
		}
	}
	out, res := run(context.Background(), t, tool, f.now, `{"view":"events","namespace":"`+f.ns+`","type":"Warning","start":"`+kubetest.Time(f.now.Add(-150*time.Second))+`","end":"`+kubetest.Time(f.now)+`"}`)
	if out.Status != tools.NoEvidence || res.Coverage != coverageData || out.EmptyWindow != "" {
		t.Errorf("no Warning beside a Normal event: %s %q %+v", out.Status, out.EmptyWindow, res)
	}
	if !strings.Contains(out.EmptyWindow+res.Start, kubetest.Time(f.now.Add(-150*time.Second))) {
		t.Errorf("the window is not said: %+v", res)
	}
}

// A namespace outside the source's allowlist is NOT_ALLOWED; without a
// namespace the call reads the allowlisted ones only.
func TestNamespaceAllowlistOnRealServer(t *testing.T) {
	f := shopFixture(t)
	tool := newTool(t, Source{Kubeconfig: kubetest.Kubeconfig(t, kubetest.EnvReader), Namespaces: []string{f.empty}})
	out, _ := run(context.Background(), t, tool, f.now, `{"view":"pods","namespace":"`+f.ns+`"}`)
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeNotAllowed || !strings.Contains(out.Detail.Error(), f.empty) {
		t.Errorf("namespace outside the allowlist: %s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
	out, res := run(context.Background(), t, tool, f.now, `{"view":"pods"}`)
	if out.Status != tools.NoEvidence || res.Matched != 0 {
		t.Errorf("pods of the allowlist only: %s %+v", out.Status, res)
	}
}

// An account the API server does not know, or one bound to nothing, is
// UNAVAILABLE with the context and the refused request named.
func TestRefusedAccountOnRealServer(t *testing.T) {
	f := shopFixture(t)
	adm := kubetest.NewAdmin(t)
	dir := t.TempDir()
	cases := []struct {
		name, kubeconfig, want string
	}{
		{"unknown token", kubetest.WriteKubeconfig(t, dir, "stranger", adm.Host(), "not-a-token"), "401"},
		{"no role", adm.Token(f.ns, dir), "may not list pods in namespace " + f.ns + " (403)"},
	}
	for _, c := range cases {
		tool := newTool(t, Source{Kubeconfig: c.kubeconfig})
		out, _ := run(context.Background(), t, tool, f.now, `{"view":"pods","namespace":"`+f.ns+`"}`)
		ctxName := tool.sources[0].cluster.context
		if out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), c.want) || !strings.Contains(out.Detail.Error(), "context "+ctxName) {
			t.Errorf("%s: %s %v, want UNAVAILABLE naming %q and the context", c.name, out.ErrorCode, out.Detail, c.want)
		}
	}
}

// An API server that never answers ends the call at the source's timeout
// (TIMEOUT); a caller's cancel mid-list ends it at once (CANCELLED).
func TestHangingServer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	path := kubetest.WriteKubeconfig(t, t.TempDir(), "hanging", srv.URL, "t")
	tool := newTool(t, Source{Kubeconfig: path, Timeout: 300 * time.Millisecond})
	out, _ := run(context.Background(), t, tool, time.Now(), `{"view":"pods","namespace":"shop"}`)
	if out.ErrorCode != tools.CodeTimeout || !strings.Contains(out.Detail.Error(), "300ms") {
		t.Errorf("hanging server: %s %v, want TIMEOUT naming the timeout", out.ErrorCode, out.Detail)
	}
	tool = newTool(t, Source{Kubeconfig: path, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	out, _ = run(ctx, t, tool, time.Now(), `{"view":"events"}`)
	if out.ErrorCode != tools.CodeCancelled {
		t.Errorf("cancelled mid-list: %s %v, want CANCELLED", out.ErrorCode, out.Detail)
	}
	// a stop signal cancels with a cause, which the HTTP client reports
	// instead of context.Canceled: still CANCELLED, never UNAVAILABLE
	cctx, cancelCause := context.WithCancelCause(context.Background())
	time.AfterFunc(100*time.Millisecond, func() { cancelCause(errors.New("received interrupt")) })
	out, _ = run(cctx, t, tool, time.Now(), `{"view":"events"}`)
	if out.ErrorCode != tools.CodeCancelled {
		t.Errorf("cancelled with a cause mid-list: %s %v, want CANCELLED", out.ErrorCode, out.Detail)
	}
}

// A list longer than a page is read page by page with continue tokens; one
// longer than the scan bound stops there (coverage "partial"), and the
// answer lists at most limit pods and fits the byte cap (truncated).
func TestHugeListBoundedOnRealServer(t *testing.T) {
	adm := kubetest.NewAdmin(t)
	ns := adm.Namespace("bulk")
	var wg sync.WaitGroup
	for i := range 45 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			adm.Pod(ns, "p-"+strconv.Itoa(i), "node-a", map[string]any{"phase": "Running",
				"containerStatuses": []any{kubetest.ContainerStatus(false, i, map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff"}}, nil)}})
		}()
	}
	wg.Wait()
	tool := newTool(t, Source{Kubeconfig: kubetest.Kubeconfig(t, kubetest.EnvReader)})
	tool.pageSize = 10

	out, res := run(context.Background(), t, tool, time.Now(), `{"view":"pods","namespace":"`+ns+`","limit":5}`)
	if out.Status != tools.EvidenceFound || res.Matched != 45 || res.Returned != 5 || !res.Truncated || res.Coverage != coverageData || res.Pods[0].Name != "p-44" {
		t.Errorf("paged list, limit 5: %s %+v", out.Status, res)
	}
	tool.maxScan = 25
	out, res = run(context.Background(), t, tool, time.Now(), `{"view":"pods","namespace":"`+ns+`","limit":100}`)
	if out.Status != tools.EvidenceFound || res.Matched != 25 || res.Coverage != tools.CoveragePartial {
		t.Errorf("list past the scan bound: %s matched %d coverage %s", out.Status, res.Matched, res.Coverage)
	}
	c, err := tool.Canonical(json.RawMessage(`{"view":"pods","namespace":"` + ns + `","limit":100}`))
	if err != nil {
		t.Fatal(err)
	}
	small := tool.Execute(context.Background(), tools.Call{Input: c.Input, Now: time.Now(), MaxBytes: 1500})
	b, _ := json.Marshal(small.Result)
	if r := small.Result.(Result); len(b) > 1500 || !r.Truncated || r.Returned >= 25 || r.Returned != len(r.Pods) {
		t.Errorf("byte cap 1500: %d bytes, %+v", len(b), r)
	}
}

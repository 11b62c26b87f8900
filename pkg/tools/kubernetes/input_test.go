package kubernetes

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/superbiz/superbiz/internal/kubetest"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/tools"
)

// offline is a tool on a kubeconfig whose server nothing listens on: the
// input checks need no cluster.
func offline(t testing.TB, namespaces ...string) *Tool {
	t.Helper()
	path := kubetest.WriteKubeconfig(t, t.TempDir(), "offline", testenv.ClosedURL(t), "t")
	tool, err := New([]Source{{Name: "prod", Kubeconfig: path, Namespaces: namespaces, Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// Canonical refuses what Kubernetes would not accept or the view cannot
// use, naming the member, and fills the defaults.
func TestCanonical(t *testing.T) {
	tool := offline(t, "shop")
	for _, c := range []struct {
		input, want string
	}{
		{`{"view":"pods"}`, `{"source":"prod","view":"pods","limit":20}`},
		{`{"view":" events ","namespace":"shop","type":"Warning","start":"2026-01-15T09:00:00Z","end":"2026-01-15T11:00:00+01:00","limit":5}`,
			`{"source":"prod","view":"events","namespace":"shop","type":"Warning","start":"2026-01-15T09:00:00Z","end":"2026-01-15T10:00:00Z","limit":5}`},
		{`{"view":"rollouts","name":"checkout","selector":"tier in (web,api)"}`, `{"source":"prod","view":"rollouts","selector":"tier in (web,api)","name":"checkout","limit":20}`},
		{``, "empty input"},
		{`{"view":"logs"}`, `view "logs" is not one of pods, events, rollouts, nodes`},
		{`{"view":"pods","namespace":"Shop_1"}`, `namespace "Shop_1" is not a namespace name`},
		{`{"view":"nodes","namespace":"shop"}`, "nodes belong to no namespace"},
		{`{"view":"pods","name":"a/b"}`, `name "a/b" is not a Kubernetes object name`},
		{`{"view":"pods","selector":"app in ("}`, "is not a label selector"},
		{`{"view":"pods","selector":"` + strings.Repeat("a", 513) + `"}`, "longer than 512"},
		{`{"view":"pods","type":"Warning"}`, "type is for the events view only"},
		{`{"view":"events","type":"Error"}`, `type "Error" is neither Warning nor Normal`},
		{`{"view":"pods","limit":101}`, "limit 101 is out of range: use 1 to 100"},
		{`{"view":"pods","start":"2026-01-15T09:00:00Z"}`, "give both start and end"},
		{`{"view":"pods","start":"2026-01-01T00:00:00Z","end":"2026-01-15T00:00:00Z"}`, "longer than this source's max_window 168h"},
		{`{"view":"pods","verb":"delete"}`, "allowed members: source, view"},
		{`{"view":"pods","source":"dev"}`, `unknown kubernetes source "dev"`},
	} {
		got, err := tool.Canonical(json.RawMessage(c.input))
		if strings.HasPrefix(c.want, "{") {
			if err != nil || string(got.Input) != c.want {
				t.Errorf("%s: %s %v, want %s", c.input, got.Input, err, c.want)
			}
			continue
		}
		if !errors.Is(err, tools.ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want INVALID_INPUT saying %q", c.input, err, c.want)
		}
	}
}

// A namespace outside the allowlist is NOT_ALLOWED at execution, before any
// request (the server here would refuse the connection: UNAVAILABLE).
func TestOutsideAllowlistSendsNothing(t *testing.T) {
	tool := offline(t, "shop")
	c, err := tool.Canonical(json.RawMessage(`{"view":"pods","namespace":"kube-system"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := tool.Execute(t.Context(), tools.Call{Input: c.Input, Now: time.Now()})
	if out.ErrorCode != tools.CodeNotAllowed || !strings.Contains(out.Detail.Error(), `namespace "kube-system" is outside kubernetes source prod's namespaces (shop)`) {
		t.Errorf("got %s %v", out.ErrorCode, out.Detail)
	}
	c, _ = tool.Canonical(json.RawMessage(`{"view":"pods","namespace":"shop"}`))
	if out := tool.Execute(t.Context(), tools.Call{Input: c.Input, Now: time.Now()}); out.ErrorCode != tools.CodeUnavailable || !strings.Contains(out.Detail.Error(), "context offline") {
		t.Errorf("allowed namespace on a closed port: %s %v, want UNAVAILABLE naming the context", out.ErrorCode, out.Detail)
	}
}

// FuzzProjections: any JSON the API server sends as a pod, an event or a
// node projects without panicking, every text bounded and free of control
// characters.
func FuzzProjections(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"p","namespace":"n","ownerReferences":[{"kind":"ReplicaSet","name":"r","controller":true}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}},"lastState":{"terminated":{"reason":"OOMKilled","exitCode":137,"message":"panic: db_password=hunter2\n\u001b[31mgoroutine 1"}}}]}}`))
	f.Add([]byte(`{"involvedObject":{"kind":"Pod","name":"p"},"type":"Warning","reason":"BackOff","message":"x\u001b[31m password=hunter2","count":2,"series":{"count":9,"lastObservedTime":"2026-01-15T09:00:00.000000Z"}}`))
	f.Add([]byte(`{"metadata":{"name":"n1"},"spec":{"unschedulable":true,"taints":[{"key":"k","value":"v","effect":"NoSchedule"}]},"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var p corev1.Pod
		var e corev1.Event
		var n corev1.Node
		texts := []string{}
		if json.Unmarshal(raw, &p) == nil {
			pod := podOf(&p)
			texts = append(texts, pod.Reason)
			if pod.LastTermination != nil {
				texts = append(texts, pod.LastTermination.Reason, pod.LastTermination.Message)
			}
		}
		if json.Unmarshal(raw, &e) == nil {
			ev := eventOf(&e)
			texts = append(texts, ev.Message, ev.Reason, ev.Object, ev.Type)
		}
		if json.Unmarshal(raw, &n) == nil {
			node := nodeOf(&n)
			texts = append(texts, node.Taints...)
			for _, c := range node.Conditions {
				texts = append(texts, c.Type, c.Reason, c.Message)
			}
		}
		for _, s := range texts {
			if len(s) > MaxText || strings.ContainsAny(s, "\x1b\n\r") {
				t.Fatalf("text not bounded or not stripped: %q", s)
			}
		}
	})
}

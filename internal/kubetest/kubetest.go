// Package kubetest gives tests a real Kubernetes API server's accounts
// (the ones .ci/kubernetes.sh starts and exports) and writes their
// fixtures through the API as an admin: pods whose /status says
// CrashLoopBackOff or OOMKilled, events, a Deployment with its ReplicaSet
// revisions, nodes under pressure. Nothing here is a fake: every object is
// the API server's.
package kubetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/superbiz/superbiz/internal/testenv"
)

// The variables .ci/kubernetes.sh exports.
const (
	EnvAdmin  = "SUPERBIZ_TEST_KUBECONFIG"
	EnvReader = "SUPERBIZ_TEST_KUBE_READER_KUBECONFIG"
	EnvPower  = "SUPERBIZ_TEST_KUBE_POWER_KUBECONFIG"
)

// Kubeconfig is the path in the variable env, or the test stops (a skip,
// a failure under CI) when .ci/kubernetes.sh was not sourced.
func Kubeconfig(t testing.TB, env string) string {
	t.Helper()
	testenv.SkipShort(t, "runs against a real Kubernetes API server")
	p := os.Getenv(env)
	if p == "" {
		testenv.Missing(t, env+" not set: source .ci/kubernetes.sh to run the tests on a real API server", ".ci/run must source .ci/kubernetes.sh")
	}
	return p
}

// Admin writes fixtures through the API server with the admin's kubeconfig.
type Admin struct {
	t      testing.TB
	host   string
	http   *http.Client
	config *rest.Config
}

// NewAdmin connects as the admin of .ci/kubernetes.sh.
func NewAdmin(t testing.TB) *Admin {
	t.Helper()
	path := Kubeconfig(t, EnvAdmin)
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("client of %s: %v", path, err)
	}
	return &Admin{t: t, host: cfg.Host, http: hc, config: cfg}
}

// Host is the API server's URL.
func (a *Admin) Host() string { return a.host }

// Do sends body (JSON-encoded unless nil) with method to path; PATCH sends
// a JSON merge patch. It fails the test on any answer but 2xx, and decodes
// the answer into out unless out is nil.
func (a *Admin) Do(method, path string, body, out any) {
	a.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, a.host+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: read the answer: %v", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		a.t.Fatalf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: decode: %v", method, path, err)
		}
	}
}

// Unique is a name no other test run on the same server uses: prefix and
// random hex.
func Unique(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// Namespace creates a namespace of a unique name with the default
// ServiceAccount a bare control plane does not create (a pod is refused
// without it), and returns its name.
func (a *Admin) Namespace(prefix string) string {
	a.t.Helper()
	ns := Unique(prefix)
	a.Do("POST", "/api/v1/namespaces", obj("v1", "Namespace", ns, ""), nil)
	a.Do("POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", obj("v1", "ServiceAccount", "default", ns), nil)
	return ns
}

// obj is the start of an object: apiVersion, kind and metadata.
func obj(apiVersion, kind, name, namespace string) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
}

// Pod creates a pod of one container (with an environment value and an
// annotation that must never leave) on node, then sets its /status:
// phase, and the container's ready flag, restarts, state and last state.
func (a *Admin) Pod(ns, name, node string, status map[string]any) {
	a.t.Helper()
	p := obj("v1", "Pod", name, ns)
	p["metadata"].(map[string]any)["annotations"] = map[string]string{"note": "annotation-Hunter2Secret"}
	p["metadata"].(map[string]any)["labels"] = map[string]string{"app": "shop"}
	p["spec"] = map[string]any{
		"nodeName": node,
		"containers": []any{map[string]any{
			"name": "app", "image": "registry.example/shop/" + name + ":1.0",
			"env": []any{map[string]any{"name": "DB_PASSWORD", "value": "env-Hunter2Secret"}},
		}},
	}
	a.Do("POST", "/api/v1/namespaces/"+ns+"/pods", p, nil)
	a.Do("PATCH", "/api/v1/namespaces/"+ns+"/pods/"+name+"/status", map[string]any{"status": status}, nil)
}

// ContainerStatus is the status of the container "app" for Pod.
func ContainerStatus(ready bool, restarts int, state, lastState map[string]any) map[string]any {
	s := map[string]any{"name": "app", "image": "registry.example/shop/app:1.0", "imageID": "", "ready": ready, "restartCount": restarts, "state": state}
	if lastState != nil {
		s["lastState"] = lastState
	}
	return s
}

// Time writes t as the API does.
func Time(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Event creates a core/v1 event about the pod involved in ns.
func (a *Admin) Event(ns, name, kind, involved, typ, reason, message string, count int, first, last time.Time) {
	a.t.Helper()
	e := obj("v1", "Event", name, ns)
	e["involvedObject"] = map[string]any{"kind": kind, "name": involved, "namespace": ns}
	e["type"], e["reason"], e["message"], e["count"] = typ, reason, message, count
	e["firstTimestamp"], e["lastTimestamp"] = Time(first), Time(last)
	e["source"] = map[string]any{"component": "kubelet"}
	a.Do("POST", "/api/v1/namespaces/"+ns+"/events", e, nil)
}

// Deployment creates a Deployment at the current revision current and one
// ReplicaSet per image (revision i+1 runs images[i]), with their statuses
// and the Deployment's Progressing and Available conditions.
func (a *Admin) Deployment(ns, name string, images []string, conditions []map[string]any) {
	a.t.Helper()
	labels := map[string]string{"app": name}
	template := func(image string) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"labels": labels},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "app", "image": image,
				"env": []any{map[string]any{"name": "API_TOKEN", "value": "env-Hunter2Secret"}},
			}}},
		}
	}
	d := obj("apps/v1", "Deployment", name, ns)
	d["metadata"].(map[string]any)["annotations"] = map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(len(images)), "note": "annotation-Hunter2Secret"}
	d["spec"] = map[string]any{"replicas": 2, "selector": map[string]any{"matchLabels": labels}, "template": template(images[len(images)-1])}
	var created struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	a.Do("POST", "/apis/apps/v1/namespaces/"+ns+"/deployments", d, &created)
	a.Do("PATCH", "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name+"/status", map[string]any{"status": map[string]any{
		"replicas": 2, "readyReplicas": 1, "availableReplicas": 1, "conditions": conditions,
	}}, nil)
	for i, image := range images {
		rsName := fmt.Sprintf("%s-%d", name, i+1)
		rs := obj("apps/v1", "ReplicaSet", rsName, ns)
		meta := rs["metadata"].(map[string]any)
		meta["annotations"] = map[string]string{"deployment.kubernetes.io/revision": fmt.Sprint(i + 1)}
		meta["labels"] = labels
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": created.Metadata.UID, "controller": true}}
		replicas := 0
		if i == len(images)-1 {
			replicas = 2
		}
		rs["spec"] = map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": labels}, "template": template(image)}
		a.Do("POST", "/apis/apps/v1/namespaces/"+ns+"/replicasets", rs, nil)
		ready := min(replicas, 1)
		a.Do("PATCH", "/apis/apps/v1/namespaces/"+ns+"/replicasets/"+rsName+"/status", map[string]any{"status": map[string]any{
			"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready,
		}}, nil)
	}
}

// Node creates a node with taints and sets its conditions; the test
// deletes it at its end (nodes belong to no namespace).
func (a *Admin) Node(name string, taints []map[string]any, conditions []map[string]any) {
	a.t.Helper()
	n := obj("v1", "Node", name, "")
	n["spec"] = map[string]any{"taints": taints}
	a.Do("POST", "/api/v1/nodes", n, nil)
	a.t.Cleanup(func() { a.Do("DELETE", "/api/v1/nodes/"+name, nil, nil) })
	a.Do("PATCH", "/api/v1/nodes/"+name+"/status", map[string]any{"status": map[string]any{"conditions": conditions}}, nil)
}

// Condition is a node's or a Deployment's condition.
func Condition(typ, status, reason, message string) map[string]any {
	now := Time(time.Now())
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
		"lastTransitionTime": now, "lastHeartbeatTime": now, "lastUpdateTime": now}
}

// Token asks the API server for a token of a new ServiceAccount of ns
// bound to nothing, and writes a kubeconfig for it in dir: an account that
// may do nothing at all.
func (a *Admin) Token(ns, dir string) string {
	a.t.Helper()
	sa := Unique("nobody")
	a.Do("POST", "/api/v1/namespaces/"+ns+"/serviceaccounts", obj("v1", "ServiceAccount", sa, ns), nil)
	var tr struct {
		Status struct {
			Token string `json:"token"`
		} `json:"status"`
	}
	req := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": map[string]any{"expirationSeconds": 3600}}
	a.Do("POST", "/api/v1/namespaces/"+ns+"/serviceaccounts/"+sa+"/token", req, &tr)
	return WriteKubeconfig(a.t, dir, sa, a.host, tr.Status.Token)
}

// WriteKubeconfig writes a kubeconfig for server with a bearer token in
// dir, its context named ctxName, and returns its path.
func WriteKubeconfig(t testing.TB, dir, ctxName, server, token string) string {
	t.Helper()
	p := filepath.Join(dir, ctxName+".kubeconfig")
	body := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: u
  user:
    token: %s
contexts:
- name: %s
  context:
    cluster: c
    user: u
current-context: %s
`, server, token, ctxName, ctxName)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

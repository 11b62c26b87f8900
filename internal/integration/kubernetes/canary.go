package kubernetes

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/localserver"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// The variables the canary hook reads the test cluster from
// (.ci/kubernetes.sh exports them): the admin that writes the fixtures,
// and the read-only account the tool reads them as.
const (
	EnvCanaryAdmin  = "SUPERBIZ_TEST_KUBECONFIG"
	EnvCanaryReader = "SUPERBIZ_TEST_KUBE_READER_KUBECONFIG"
)

// canaryTimeout bounds planting the fixtures and removing them.
const canaryTimeout = 60 * time.Second

// canaryAdmin writes a canary fixture through the API server as the admin.
type canaryAdmin struct {
	host string
	http *http.Client
}

// do sends body as JSON (a merge patch for PATCH) with method to path and
// decodes the answer into out unless it is nil; any answer but 2xx is an
// error quoting the server's answer.
func (a canaryAdmin) do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.host+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
		}
	}
	return nil
}

// meta is an object's apiVersion, kind and metadata.
func meta(apiVersion, kind, name, namespace string, extra map[string]any) map[string]any {
	m := map[string]any{"name": name}
	if namespace != "" {
		m["namespace"] = namespace
	}
	for k, v := range extra {
		m[k] = v
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": m}
}

// canaryContainer is a container whose environment value, command and
// arguments hold line: what a cluster holds and the tool never shows.
func canaryContainer(line string) map[string]any {
	return map[string]any{
		"name": "app", "image": "registry.example/shop/app:1.0",
		"command": []string{"/bin/app", line}, "args": []string{"--note", line},
		"env": []any{map[string]any{"name": "DB_PASSWORD", "value": line}},
	}
}

// PlantCanaries writes lines into a namespace and a node of their own on
// the API server .ci/kubernetes.sh starts, where a cluster keeps such
// text: each line is a Warning event's message, a container's termination
// message (what it wrote to /dev/termination-log, or its log tail), a
// Deployment's Progressing condition message and a node condition's
// message (node-problem-detector writes kernel lines there) — all of
// which query_kubernetes shows — and a pod's and a Deployment's
// annotation, a container's environment value, command and arguments and
// a node's annotation, which it never reads. (Labels and taints cannot
// hold these shapes: their values are at most 63 of [A-Za-z0-9._-].)
// The calls read every view as the read-only account; Stop deletes the
// node and the namespace.
func (Source) PlantCanaries(_ string, lines []string) (p integration.Planted, err error) {
	adminPath, readerPath := os.Getenv(EnvCanaryAdmin), os.Getenv(EnvCanaryReader)
	if adminPath == "" || readerPath == "" {
		return p, fmt.Errorf("%w: %s and %s are not set (source .ci/kubernetes.sh)", localserver.ErrMissing, EnvCanaryAdmin, EnvCanaryReader)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", adminPath)
	if err != nil {
		return p, fmt.Errorf("plant canaries: read %s: %w", adminPath, err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return p, fmt.Errorf("plant canaries: client of %s: %w", adminPath, err)
	}
	a := canaryAdmin{host: cfg.Host, http: hc}
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return p, fmt.Errorf("plant canaries: %w", err)
	}
	ns, node := "canary-"+hex.EncodeToString(suffix[:]), "canary-node-"+hex.EncodeToString(suffix[:])
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
		defer cancel()
		return errors.Join(a.do(ctx, http.MethodDelete, "/api/v1/nodes/"+node, nil, nil), a.do(ctx, http.MethodDelete, "/api/v1/namespaces/"+ns, nil, nil))
	}
	ctx, cancel := context.WithTimeout(context.Background(), canaryTimeout)
	defer cancel()
	now := time.Now().UTC().Truncate(time.Second)
	if err := plantCluster(ctx, a, ns, node, lines, now); err != nil {
		return p, errors.Join(fmt.Errorf("plant canaries in Kubernetes: %w", err), stop())
	}
	window := func(view string, extra map[string]any) json.RawMessage {
		in := map[string]any{"source": "canary", "view": view, "limit": 50,
			"start": now.Add(-time.Hour).Format(time.RFC3339), "end": now.Add(24 * time.Hour).Format(time.RFC3339)}
		for k, v := range extra {
			in[k] = v
		}
		b, _ := json.Marshal(in)
		return b
	}
	return integration.Planted{
		Config: fmt.Sprintf("[[kubernetes]]\nname = \"canary\"\nkubeconfig = %q\nnamespaces = [%q]\n", readerPath, ns),
		Calls: []json.RawMessage{
			window("events", map[string]any{"namespace": ns}),
			window("pods", map[string]any{"namespace": ns}),
			window("rollouts", map[string]any{"namespace": ns}),
			window("nodes", map[string]any{"name": node}),
		},
		Stop: stop,
	}, nil
}

// plantCluster writes the fixtures of PlantCanaries: per line a pod (its
// /status with the line as the last termination's message), a Warning
// event about it, a Deployment with one ReplicaSet revision (its
// Progressing condition's message the line); and one node whose
// conditions carry the lines.
func plantCluster(ctx context.Context, a canaryAdmin, ns, node string, lines []string, now time.Time) error {
	stamp := func(t time.Time) string { return t.Format(time.RFC3339) }
	steps := []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/v1/namespaces", meta("v1", "Namespace", ns, "", nil)},
		{"POST", "/api/v1/namespaces/" + ns + "/serviceaccounts", meta("v1", "ServiceAccount", "default", ns, nil)},
	}
	add := func(method, path string, body any) {
		steps = append(steps, struct {
			method, path string
			body         any
		}{method, path, body})
	}
	var conditions []any
	nodeNotes := map[string]string{}
	for i, line := range lines {
		name := fmt.Sprintf("canary-%02d", i)
		notes := map[string]any{"annotations": map[string]string{"note": line}}
		pod := meta("v1", "Pod", name, ns, notes)
		pod["spec"] = map[string]any{"nodeName": node, "containers": []any{canaryContainer(line)}}
		add("POST", "/api/v1/namespaces/"+ns+"/pods", pod)
		add("PATCH", "/api/v1/namespaces/"+ns+"/pods/"+name+"/status", map[string]any{"status": map[string]any{
			"phase": "Running", "startTime": stamp(now.Add(-time.Hour)),
			"containerStatuses": []any{map[string]any{
				"name": "app", "image": "registry.example/shop/app:1.0", "imageID": "", "ready": false, "restartCount": 3,
				"state":     map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": line}},
				"lastState": map[string]any{"terminated": map[string]any{"reason": "Error", "exitCode": 1, "message": line, "finishedAt": stamp(now.Add(-2 * time.Minute))}},
			}},
		}})
		ev := meta("v1", "Event", name, ns, nil)
		ev["involvedObject"] = map[string]any{"kind": "Pod", "name": name, "namespace": ns}
		ev["type"], ev["reason"], ev["message"], ev["count"] = "Warning", "BackOff", line, 3
		ev["firstTimestamp"], ev["lastTimestamp"] = stamp(now.Add(-10*time.Minute)), stamp(now.Add(-time.Minute))
		ev["source"] = map[string]any{"component": "kubelet"}
		add("POST", "/api/v1/namespaces/"+ns+"/events", ev)
		labels := map[string]string{"app": name}
		template := map[string]any{"metadata": map[string]any{"labels": labels, "annotations": map[string]string{"note": line}},
			"spec": map[string]any{"containers": []any{canaryContainer(line)}}}
		dep := meta("apps/v1", "Deployment", name, ns, map[string]any{"annotations": map[string]string{kubetool.RevisionAnnotation: "1", "note": line}})
		dep["spec"] = map[string]any{"replicas": 1, "selector": map[string]any{"matchLabels": labels}, "template": template}
		add("POST", "/apis/apps/v1/namespaces/"+ns+"/deployments", dep)
		add("PATCH", "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name+"/status", map[string]any{"status": map[string]any{
			"replicas": 1, "conditions": []any{map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
				"message": line, "lastUpdateTime": stamp(now), "lastTransitionTime": stamp(now)}},
		}})
		conditions = append(conditions, map[string]any{"type": fmt.Sprintf("NodeProblem%02d", i), "status": "True", "reason": "ProblemDetected",
			"message": line, "lastHeartbeatTime": stamp(now), "lastTransitionTime": stamp(now)})
		nodeNotes[fmt.Sprintf("note-%02d", i)] = line
	}
	add("POST", "/api/v1/nodes", meta("v1", "Node", node, "", map[string]any{"annotations": nodeNotes}))
	add("PATCH", "/api/v1/nodes/"+node+"/status", map[string]any{"status": map[string]any{"conditions": conditions}})
	for _, s := range steps {
		if err := a.do(ctx, s.method, s.path, s.body, nil); err != nil {
			return err
		}
	}
	// each Deployment's revision 1, owned by it as its controller writes it
	for i, line := range lines {
		if err := plantReplicaSet(ctx, a, ns, fmt.Sprintf("canary-%02d", i), line); err != nil {
			return err
		}
	}
	return nil
}

// plantReplicaSet writes revision 1 of the Deployment name: a ReplicaSet
// it controls (its UID in the owner reference), whose template holds line
// as the Deployment's does.
func plantReplicaSet(ctx context.Context, a canaryAdmin, ns, name, line string) error {
	var dep struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if err := a.do(ctx, http.MethodGet, "/apis/apps/v1/namespaces/"+ns+"/deployments/"+name, nil, &dep); err != nil {
		return err
	}
	labels := map[string]string{"app": name}
	rs := meta("apps/v1", "ReplicaSet", name+"-1", ns, map[string]any{
		"labels":          labels,
		"annotations":     map[string]string{kubetool.RevisionAnnotation: "1", "note": line},
		"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": dep.Metadata.UID, "controller": true}},
	})
	rs["spec"] = map[string]any{"replicas": 1, "selector": map[string]any{"matchLabels": labels},
		"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": []any{canaryContainer(line)}}}}
	return a.do(ctx, http.MethodPost, "/apis/apps/v1/namespaces/"+ns+"/replicasets", rs, nil)
}

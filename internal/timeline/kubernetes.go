package timeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/tools"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
)

// KubeWarning is a Kubernetes Warning event (BackOff, Unhealthy,
// FailedScheduling, OOMKilling, FailedMount, …) of the window.
const KubeWarning Kind = "k8s_warning"

// The Kubernetes detectors, as coverage names them: one query_kubernetes
// call each, per [[kubernetes]] source.
const (
	DetectKubeDeploys  = "k8s_deploy"
	DetectKubeRestarts = "k8s_restart"
	DetectKubeWarnings = "k8s_warning"
)

// KubeDetectors are the Kubernetes detectors: what their coverage lines read.
var KubeDetectors = []string{DetectKubeDeploys, DetectKubeRestarts, DetectKubeWarnings}

// maxKubeObjects is the limit of each Kubernetes read (the tool's most).
const maxKubeObjects = 100

// kubeCalls is how many calls the Kubernetes detectors make per source.
const kubeCalls = 3

// KubeCalls is how many calls a timeline makes of n [[kubernetes]] sources.
func KubeCalls(n int) int { return kubeCalls * n }

// kubernetes reads one cluster: its Deployment revisions created in the
// window (deploy), its pods whose last termination falls in the window
// (restart), and its Warning events seen in the window (k8s_warning); each
// event cites the query_kubernetes call that shows it.
func (b *builder) kubernetes(ctx context.Context, src string) error {
	w := b.plan.Window
	read := func(detector, view string, extra map[string]any) (kubetool.Result, Coverage, bool, error) {
		in := map[string]any{"source": src, "view": view, "start": stamp(w.Start), "end": stamp(w.End), "limit": maxKubeObjects}
		for k, v := range extra {
			in[k] = v
		}
		o, err := b.call(ctx, kubetool.ToolName, in)
		if err != nil {
			return kubetool.Result{}, Coverage{}, false, err
		}
		cov := Coverage{Detector: detector, Source: src, ToolCallID: o.ToolCallID, Status: Read}
		var r kubetool.Result
		if f := decode(o, &r); f != "" {
			cov.Status, cov.Note = Failed, f
			b.done(cov)
			return r, cov, false, nil
		}
		switch {
		case r.Coverage == tools.CoverageNone:
			cov.Status, cov.Note = Empty, "the cluster held nothing of this view in the window"
		case r.Coverage == tools.CoveragePartial:
			cov.Status, cov.Note = Partial, "the read stopped at the tool's scan limit"
		case r.Truncated:
			cov.Status, cov.Note = Partial, fmt.Sprintf("%d of %d listed", r.Returned, r.Matched)
		}
		return r, cov, true, nil
	}

	r, cov, ok, err := read(DetectKubeDeploys, kubetool.ViewRollouts, nil)
	if err != nil {
		return err
	}
	if ok {
		b.done(cov, kubeDeploys(r, src, cov.ToolCallID)...)
	}
	r, cov, ok, err = read(DetectKubeRestarts, kubetool.ViewPods, nil)
	if err != nil {
		return err
	}
	services := map[string]string{}
	if ok {
		var es []Event
		es, services = kubeRestarts(r, w, src, cov.ToolCallID)
		b.done(cov, es...)
	}
	r, cov, ok, err = read(DetectKubeWarnings, kubetool.ViewEvents, map[string]any{"type": "Warning"})
	if err != nil || !ok {
		return err
	}
	b.done(cov, kubeWarnings(r, w, src, services, cov.ToolCallID)...)
	return nil
}

// kubeDeploys are the Deployment revisions created in the window, each
// with its images and those of the revision before it, in its summary and
// as its after and before (before only where that revision is listed).
func kubeDeploys(r kubetool.Result, src, call string) []Event {
	prev := map[string][]string{}
	for _, ro := range r.Rollouts {
		prev[fmt.Sprintf("%s/%s/%d", ro.Namespace, ro.Deployment, ro.Revision)] = ro.Images
	}
	var es []Event
	for _, ro := range r.Rollouts {
		at, ok := parseTS(ro.CreatedAt)
		if !ro.InWindow || !ok {
			continue
		}
		images := strings.Join(ro.Images, ", ")
		ev := Event{At: at, Kind: Deploy, Source: src, Service: ro.Deployment, ToolCallID: call, After: version(images)}
		sum := fmt.Sprintf("Deployment %s/%s revision %d: %s", ro.Namespace, ro.Deployment, ro.Revision, images)
		if was, ok := prev[fmt.Sprintf("%s/%s/%d", ro.Namespace, ro.Deployment, ro.Revision-1)]; ok {
			ev.Before = version(strings.Join(was, ", "))
			sum += " (was " + ev.Before.Version + ")"
		}
		ev.Summary = textclip.Bytes(sum, 200)
		es = append(es, ev)
	}
	return es
}

// kubeRestarts are the pods whose last termination finished in the
// window: a container restarted then. It also returns each pod's service
// (namespace/pod → its Deployment, else its owner, else ""), for the
// events about pods.
func kubeRestarts(r kubetool.Result, w Window, src, call string) ([]Event, map[string]string) {
	services := map[string]string{}
	var es []Event
	for _, p := range r.Pods {
		svc := serviceOfOwner(p.Owner)
		services[p.Namespace+"/"+p.Name] = svc
		lt := p.LastTermination
		if lt == nil || p.Restarts == 0 {
			continue
		}
		at, ok := parseTS(lt.FinishedAt)
		if !ok || at.Before(w.Start) || at.After(w.End) {
			continue
		}
		sum := fmt.Sprintf("pod %s/%s restarted (%d restarts; last %s, exit %d)", p.Namespace, p.Name, p.Restarts, lt.Reason, lt.ExitCode)
		if p.Reason != "" {
			sum += ", now " + p.Reason
		}
		if lt.Message != "" {
			sum += ": " + lt.Message
		}
		es = append(es, Event{At: at, Kind: Restart, Source: src, Service: svc, ToolCallID: call, Summary: textclip.Bytes(sum, 200)})
	}
	return es, services
}

// serviceOfOwner is the workload a pod's owner names: a ReplicaSet's
// Deployment (its name less the template hash), else the owner's name.
func serviceOfOwner(owner string) string {
	kind, name, ok := strings.Cut(owner, "/")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(name, '-'); kind == "ReplicaSet" && i > 0 {
		return name[:i]
	}
	return name
}

// kubeWarnings are the Warning events seen in the window, each at its
// first time (the window's start when it was first seen before it).
func kubeWarnings(r kubetool.Result, w Window, src string, services map[string]string, call string) []Event {
	var es []Event
	for _, e := range r.Events {
		first, ok1 := parseTS(e.FirstSeen)
		last, ok2 := parseTS(e.LastSeen)
		if !ok1 || !ok2 {
			continue
		}
		at, since := first, ""
		if at.Before(w.Start) {
			at, since = w.Start, ", first seen "+stamp(first)
		}
		kind, name, _ := strings.Cut(e.Object, "/")
		svc := ""
		switch kind {
		case "Pod":
			svc = services[e.Namespace+"/"+name]
		case "Deployment":
			svc = name
		case "ReplicaSet":
			svc = serviceOfOwner(e.Object)
		}
		sum := fmt.Sprintf("%s on %s (%d×%s, last %s): %s", e.Reason, e.Object, e.Count, since, last.UTC().Format("15:04:05"), e.Message)
		es = append(es, Event{At: at, Kind: KubeWarning, Source: src, Service: svc, ToolCallID: call, Summary: textclip.Bytes(sum, 200)})
	}
	return es
}

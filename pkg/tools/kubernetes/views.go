package kubernetes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/superbiz/superbiz/pkg/egress"
)

// MaxText bounds a message or reason the tool passes on, in bytes.
const MaxText = 512

// RevisionAnnotation is the annotation a Deployment's controller writes on
// each ReplicaSet: the only annotation the tool reads, and it passes on
// only its number.
const RevisionAnnotation = "deployment.kubernetes.io/revision"

// textOf is a text of the cluster as it may leave: through the egress
// door's policy (secrets masked), on one line without control characters,
// bounded.
func textOf(s string) string {
	return egress.Mask(s).Line().Cut(MaxText).String()
}

// stamp writes a time as the results do (UTC RFC 3339), "" for none.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Pod is one pod of the pods view (docs/SPEC.md#query_kubernetes).
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	// Ready is ready containers over containers, "1/2".
	Ready    string `json:"ready"`
	Restarts int    `json:"restarts"`
	// Reason is the current waiting or terminated reason of a container
	// (CrashLoopBackOff, OOMKilled), else the pod's own (Evicted).
	Reason          string       `json:"reason,omitempty"`
	LastTermination *Termination `json:"last_termination,omitempty"`
	Node            string       `json:"node,omitempty"`
	// Owner is the controller owning the pod, Kind/name.
	Owner     string `json:"owner,omitempty"`
	StartedAt string `json:"started_at,omitempty"`

	severity int // how unhealthy: the sort key
}

// Termination is a container's last termination.
type Termination struct {
	Reason     string `json:"reason"`
	ExitCode   int32  `json:"exit_code"`
	FinishedAt string `json:"finished_at,omitempty"`
	// Message is what the container wrote to its termination message
	// path, or its log's tail (FallbackToLogsOnError): a panic's first
	// line, the last error it logged.
	Message string `json:"message,omitempty"`
}

// failingReasons are the container reasons that mark a pod failing.
var failingReasons = map[string]bool{
	"CrashLoopBackOff": true, "OOMKilled": true, "Error": true, "ImagePullBackOff": true, "ErrImagePull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
	"InvalidImageName": true, "ContainerCannotRun": true, "DeadlineExceeded": true, "Evicted": true,
}

// podOf projects a pod: names, phase, counts and reasons; never its spec,
// environment, annotations or labels.
func podOf(p *corev1.Pod) Pod {
	out := Pod{
		Namespace: p.Namespace, Name: p.Name, Phase: string(p.Status.Phase), Node: p.Spec.NodeName,
		StartedAt: stampPtr(p.Status.StartTime),
	}
	if ref := metav1.GetControllerOf(p); ref != nil {
		out.Owner = ref.Kind + "/" + ref.Name
	}
	statuses := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
	ready := 0
	var last time.Time
	for _, c := range p.Status.ContainerStatuses {
		if c.Ready {
			ready++
		}
	}
	for _, c := range statuses {
		out.Restarts += int(c.RestartCount)
		if r := stateReason(c.State); r != "" && (out.Reason == "" || failingReasons[r] && !failingReasons[out.Reason]) {
			out.Reason = r
		}
		if t := c.LastTerminationState.Terminated; t != nil && (out.LastTermination == nil || t.FinishedAt.After(last)) {
			last = t.FinishedAt.Time
			out.LastTermination = &Termination{Reason: textOf(t.Reason), ExitCode: t.ExitCode, FinishedAt: stamp(t.FinishedAt.Time), Message: textOf(t.Message)}
		}
	}
	if out.Reason == "" {
		out.Reason = p.Status.Reason
	}
	out.Reason = textOf(out.Reason)
	n := len(p.Spec.Containers)
	if n < len(p.Status.ContainerStatuses) {
		n = len(p.Status.ContainerStatuses)
	}
	out.Ready = fmt.Sprintf("%d/%d", ready, n)
	out.severity = podSeverity(out, ready, n)
	return out
}

// stateReason is a container's current waiting or terminated reason.
func stateReason(s corev1.ContainerState) string {
	switch {
	case s.Waiting != nil:
		return s.Waiting.Reason
	case s.Terminated != nil && s.Terminated.Reason != "Completed":
		return s.Terminated.Reason
	}
	return ""
}

// podSeverity ranks a pod for the unhealthy-first order: 3 failing (a
// failing reason, phase Failed or Unknown), 2 not ready, 1 restarted, 0 healthy.
func podSeverity(p Pod, ready, n int) int {
	switch {
	case failingReasons[p.Reason] || p.Phase == string(corev1.PodFailed) || p.Phase == string(corev1.PodUnknown):
		return 3
	case p.Phase != string(corev1.PodSucceeded) && ready < n:
		return 2
	case p.Restarts > 0:
		return 1
	}
	return 0
}

// sortPods puts the unhealthy first, then the most restarted, then by name.
func sortPods(pods []Pod) {
	slices.SortStableFunc(pods, func(a, b Pod) int {
		return cmp.Or(cmp.Compare(b.severity, a.severity), cmp.Compare(b.Restarts, a.Restarts),
			cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}

// stampPtr is stamp of an optional time.
func stampPtr(t *metav1.Time) string {
	if t == nil {
		return ""
	}
	return stamp(t.Time)
}

// Event is one event of the events view.
type Event struct {
	Namespace string `json:"namespace,omitempty"`
	FirstSeen string `json:"first_seen"`
	LastSeen  string `json:"last_seen"`
	Count     int32  `json:"count"`
	Type      string `json:"type"`
	Reason    string `json:"reason"`
	// Object is the involved object, Kind/name.
	Object  string `json:"object"`
	Message string `json:"message"`

	first, last time.Time
}

// eventOf projects an event with its first and last time, whichever of the
// event's time fields the reporter filled (events.k8s.io writers fill
// eventTime and series, core writers first/lastTimestamp).
func eventOf(e *corev1.Event) Event {
	first, last := e.FirstTimestamp.Time, e.LastTimestamp.Time
	if first.IsZero() {
		first = e.EventTime.Time
	}
	if e.Series != nil && e.Series.LastObservedTime.After(last) {
		last = e.Series.LastObservedTime.Time
	}
	if last.IsZero() {
		last = first
	}
	if first.IsZero() {
		first, last = e.CreationTimestamp.Time, e.CreationTimestamp.Time
	}
	count := e.Count
	if e.Series != nil && e.Series.Count > count {
		count = e.Series.Count
	}
	count = max(count, 1)
	return Event{
		Namespace: e.Namespace, FirstSeen: stamp(first), LastSeen: stamp(last), Count: count,
		Type: textOf(e.Type), Reason: textOf(e.Reason), Object: textOf(e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name),
		Message: textOf(e.Message), first: first, last: last,
	}
}

// inWindow says whether an event was seen in [start, end].
func (e Event) inWindow(start, end time.Time) bool {
	return !e.last.Before(start) && !e.first.After(end)
}

// sortEvents puts Warning first (when the call gave no type), then the newest.
func sortEvents(events []Event) {
	slices.SortStableFunc(events, func(a, b Event) int {
		return cmp.Or(boolFirst(a.Type == corev1.EventTypeWarning, b.Type == corev1.EventTypeWarning), b.last.Compare(a.last), cmp.Compare(a.Object, b.Object))
	})
}

// boolFirst orders true before false.
func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// Rollout is one Deployment revision of the rollouts view.
type Rollout struct {
	Namespace  string   `json:"namespace"`
	Deployment string   `json:"deployment"`
	Revision   int64    `json:"revision"`
	Images     []string `json:"images"`
	CreatedAt  string   `json:"created_at"`
	// InWindow says the revision was created in the call's window: a change.
	InWindow  bool  `json:"in_window"`
	Replicas  int32 `json:"replicas"`
	Ready     int32 `json:"ready"`
	Available int32 `json:"available"`
	// Conditions are the Deployment's Progressing and Available
	// conditions, on its current revision's row.
	Conditions []Condition `json:"conditions,omitempty"`

	created time.Time
}

// Condition is one condition of a Deployment or a node.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Since   string `json:"since,omitempty"`
}

// rolloutsOf projects the ReplicaSets a Deployment owns as its revisions,
// newest first; the current one carries the Deployment's conditions.
func rolloutsOf(d *appsv1.Deployment, sets []appsv1.ReplicaSet, start, end time.Time) []Rollout {
	var out []Rollout
	current := d.Annotations[RevisionAnnotation]
	for i := range sets {
		rs := &sets[i]
		ref := metav1.GetControllerOf(rs)
		if ref == nil || ref.UID != d.UID {
			continue
		}
		rev, err := strconv.ParseInt(rs.Annotations[RevisionAnnotation], 10, 64)
		if err != nil {
			continue // not (yet) a revision the controller numbered
		}
		r := Rollout{
			Namespace: rs.Namespace, Deployment: d.Name, Revision: rev, Images: []string{},
			CreatedAt: stamp(rs.CreationTimestamp.Time), Replicas: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas,
			Available: rs.Status.AvailableReplicas, created: rs.CreationTimestamp.Time,
		}
		r.InWindow = !r.created.Before(start) && !r.created.After(end)
		for _, c := range rs.Spec.Template.Spec.Containers {
			r.Images = append(r.Images, textOf(c.Image))
		}
		if strconv.FormatInt(rev, 10) == current {
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing || c.Type == appsv1.DeploymentAvailable {
					r.Conditions = append(r.Conditions, Condition{
						Type: string(c.Type), Status: string(c.Status), Reason: textOf(c.Reason),
						Message: textOf(c.Message), Since: stamp(c.LastUpdateTime.Time),
					})
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// sortRollouts puts the newest revisions first.
func sortRollouts(rs []Rollout) {
	slices.SortStableFunc(rs, func(a, b Rollout) int {
		return cmp.Or(b.created.Compare(a.created), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Deployment, b.Deployment), cmp.Compare(b.Revision, a.Revision))
	})
}

// Node is one node of the nodes view.
type Node struct {
	Name  string `json:"name"`
	Ready bool   `json:"ready"`
	// Conditions are the conditions not in their healthy state (Ready not
	// True, a pressure or NetworkUnavailable not False).
	Conditions    []Condition `json:"conditions"`
	Unschedulable bool        `json:"unschedulable"`
	// Taints are key[=value]:Effect.
	Taints []string `json:"taints"`
}

// nodeOf projects a node's health: never its addresses, labels or annotations.
func nodeOf(n *corev1.Node) Node {
	out := Node{Name: n.Name, Unschedulable: n.Spec.Unschedulable, Conditions: []Condition{}, Taints: []string{}}
	for _, c := range n.Status.Conditions {
		healthy := corev1.ConditionFalse
		if c.Type == corev1.NodeReady {
			healthy = corev1.ConditionTrue
			out.Ready = c.Status == corev1.ConditionTrue
		}
		if c.Status != healthy {
			out.Conditions = append(out.Conditions, Condition{
				Type: textOf(string(c.Type)), Status: string(c.Status), Reason: textOf(c.Reason),
				Message: textOf(c.Message), Since: stamp(c.LastTransitionTime.Time),
			})
		}
	}
	for _, t := range n.Spec.Taints {
		s := t.Key
		if t.Value != "" {
			s += "=" + t.Value
		}
		out.Taints = append(out.Taints, textOf(s+":"+string(t.Effect)))
	}
	return out
}

// sortNodes puts nodes not ready first, then those with a condition, then
// the unschedulable, then by name.
func sortNodes(ns []Node) {
	slices.SortStableFunc(ns, func(a, b Node) int {
		return cmp.Or(boolFirst(!a.Ready, !b.Ready), boolFirst(len(a.Conditions) > 0, len(b.Conditions) > 0),
			boolFirst(a.Unschedulable, b.Unschedulable), strings.Compare(a.Name, b.Name))
	})
}

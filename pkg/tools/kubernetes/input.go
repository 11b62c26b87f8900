package kubernetes

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/window"
)

// The views of query_kubernetes (docs/SPEC.md#query_kubernetes).
const (
	ViewPods     = "pods"
	ViewEvents   = "events"
	ViewRollouts = "rollouts"
	ViewNodes    = "nodes"
)

// Views are the views in the order the schema lists them.
var Views = []string{ViewPods, ViewEvents, ViewRollouts, ViewNodes}

// The event types a call may ask for.
const (
	TypeWarning = "Warning"
	TypeNormal  = "Normal"
)

// Input bounds (docs/SPEC.md#query_kubernetes).
const (
	// DefaultLimit and MaxLimit bound the items one answer lists.
	DefaultLimit = 20
	MaxLimit     = 100
	// DefaultWindow is the window back from the run's clock when the call gives no start and end.
	DefaultWindow = time.Hour
	// MaxWindow is the longest window a call may ask for.
	MaxWindow = 7 * 24 * time.Hour
	// MaxSelector is the longest label selector sent, in bytes.
	MaxSelector = 512
)

// Input is the business input of query_kubernetes as the model sends it;
// the canonical form has the source resolved and the limit set.
type Input struct {
	Source    string `json:"source,omitempty" jsonschema_description:"kubernetes source name; optional when only one is configured"`
	View      string `json:"view" jsonschema:"required,enum=pods,enum=events,enum=rollouts,enum=nodes" jsonschema_description:"pods: restarts, waiting/terminated reasons, last termination; events: Warning events first; rollouts: Deployment revisions with their images; nodes: conditions not healthy, taints"`
	Namespace string `json:"namespace,omitempty" jsonschema_description:"namespace to read; default: every namespace the source allows (not for nodes)"`
	Selector  string `json:"selector,omitempty" jsonschema:"maxLength=512" jsonschema_description:"label selector, e.g. app=checkout or tier in (web,api); for events it selects the events' own labels"`
	Name      string `json:"name,omitempty" jsonschema_description:"one object's name: a pod, a Deployment, a node, or for events the involved object"`
	Type      string `json:"type,omitempty" jsonschema:"enum=Warning,enum=Normal" jsonschema_description:"events only: Warning or Normal; default both, Warning first"`
	Start     string `json:"start,omitempty" jsonschema_description:"window start: RFC 3339 or 2006-01-02 15:04:05 in superbiz's local time zone; needs end; default: the last hour"`
	End       string `json:"end,omitempty" jsonschema_description:"window end, same formats as start"`
	Limit     int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100" jsonschema_description:"most items listed, default 20"`
}

// parsedInput is a validated Input with its source and window resolved.
type parsedInput struct {
	in     Input
	src    *source
	window window.Window
}

// decodeInput strictly decodes and validates a business input against the
// configured sources: unknown members, a view, namespace, name or selector
// Kubernetes would not accept, a namespace outside the source's allowlist
// and a window beyond the bounds are refused with a reason.
func (t *Tool) decodeInput(raw []byte) (*parsedInput, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, tools.InvalidInput(`empty input: send a JSON object such as {"view": "pods", "namespace": "shop"}`)
	}
	var in Input
	if err := jsonv2.Unmarshal(raw, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, tools.InvalidInput("query_kubernetes input: %v (allowed members: source, view, namespace, selector, name, type, start, end, limit)", err)
	}
	p := &parsedInput{in: in}
	i, err := tools.Pick(in.Source, t.sourceNames(), "kubernetes source")
	if err != nil {
		return nil, err
	}
	p.src = t.sources[i]
	p.in.Source = p.src.Name

	p.in.View = strings.TrimSpace(in.View)
	if !slices.Contains(Views, p.in.View) {
		return nil, tools.InvalidInput("view %q is not one of %s", in.View, strings.Join(Views, ", "))
	}
	p.in.Namespace = strings.TrimSpace(in.Namespace)
	if err := p.checkNamespace(); err != nil {
		return nil, err
	}
	p.in.Name = strings.TrimSpace(in.Name)
	if p.in.Name != "" {
		if errs := validation.IsDNS1123Subdomain(p.in.Name); len(errs) > 0 {
			return nil, tools.InvalidInput("name %q is not a Kubernetes object name: %s", textOf(p.in.Name), strings.Join(errs, "; "))
		}
	}
	p.in.Selector = strings.TrimSpace(in.Selector)
	if len(p.in.Selector) > MaxSelector {
		return nil, tools.InvalidInput("selector is %d bytes, longer than %d", len(p.in.Selector), MaxSelector)
	}
	if p.in.Selector != "" {
		if _, err := labels.Parse(p.in.Selector); err != nil {
			return nil, tools.InvalidInput("selector %q is not a label selector (app=checkout, tier in (web,api)): %v", textOf(p.in.Selector), err)
		}
	}
	p.in.Type = strings.TrimSpace(in.Type)
	switch {
	case p.in.Type != "" && p.in.View != ViewEvents:
		return nil, tools.InvalidInput("type is for the events view only")
	case p.in.Type != "" && p.in.Type != TypeWarning && p.in.Type != TypeNormal:
		return nil, tools.InvalidInput("type %q is neither %s nor %s", in.Type, TypeWarning, TypeNormal)
	}
	switch {
	case in.Limit == 0:
		p.in.Limit = DefaultLimit
	case in.Limit < 1 || in.Limit > MaxLimit:
		return nil, tools.InvalidInput("limit %d is out of range: use 1 to %d", in.Limit, MaxLimit)
	}
	since := ""
	if in.Start == "" && in.End == "" {
		since = tools.FormatDuration(DefaultWindow)
	}
	w, err := window.Parse(in.Start, in.End, since, window.Bounds{MinSince: DefaultWindow, MaxWindow: MaxWindow, Loc: time.Local})
	if err != nil {
		return nil, err
	}
	p.window = w
	p.in.Start, p.in.End, _ = w.Canonical()
	return p, nil
}

// checkNamespace refuses a namespace Kubernetes would not name and one
// given for the cluster-wide nodes.
func (p *parsedInput) checkNamespace() error {
	ns := p.in.Namespace
	switch {
	case ns == "":
		return nil
	case p.in.View == ViewNodes:
		return tools.InvalidInput("nodes belong to no namespace: leave namespace out for the nodes view")
	}
	if problem := NamespaceProblem(ns); problem != "" {
		return tools.InvalidInput("namespace %q %s", textOf(ns), problem)
	}
	return nil
}

// outsideAllowlist says why the call's namespace is not one the source
// allows (NOT_ALLOWED), nil when it is or the source allows every one.
func (p *parsedInput) outsideAllowlist() error {
	ns := p.in.Namespace
	if ns == "" || len(p.src.Namespaces) == 0 || slices.Contains(p.src.Namespaces, ns) {
		return nil
	}
	return fmt.Errorf("namespace %q is outside kubernetes source %s's namespaces (%s): ask for one of them", ns, p.src.Name, strings.Join(p.src.Namespaces, ", "))
}

// namespaces are the namespaces a call reads: the one asked, else the
// source's allowlist, else [""] (every namespace, in one cluster-wide list).
func (p *parsedInput) namespaces() []string {
	switch {
	case p.in.View == ViewNodes || p.in.Namespace != "":
		return []string{p.in.Namespace}
	case len(p.src.Namespaces) > 0:
		return p.src.Namespaces
	}
	return []string{""}
}

// at is the call's absolute window at the run's clock now.
func (p *parsedInput) at(now time.Time) (start, end time.Time) {
	return p.window.At(now)
}

// String is a one-line summary of the input for timelines.
func (p *parsedInput) String() string {
	parts := []string{p.in.Source, p.in.View}
	if p.in.Namespace != "" {
		parts = append(parts, "namespace "+p.in.Namespace)
	}
	if p.in.Name != "" {
		parts = append(parts, "name "+p.in.Name)
	}
	if p.in.Selector != "" {
		parts = append(parts, "selector "+p.in.Selector)
	}
	if p.in.Type != "" {
		parts = append(parts, "type "+p.in.Type)
	}
	if p.window.Since == 0 {
		parts = append(parts, p.in.Start+".."+p.in.End)
	}
	return strings.Join(parts, " ")
}

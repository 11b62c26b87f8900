// Package timeline builds the incident timeline: what changed, and when,
// from every configured source at once — alerts starting and resolving,
// metrics leaving their band, error bursts, error patterns never seen
// before, process restarts — each event citing the tool call whose
// observation supports it. It is deterministic and uses no model: the
// events are derived from tool observations alone, so a run replayed on
// its recorded observations derives the same timeline.
package timeline

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Kind is what an event says happened.
type Kind string

// The kinds of event (docs/SPEC.md#superbiz-timeline).
const (
	AlertStarted  Kind = "alert_started"
	AlertResolved Kind = "alert_resolved"
	MetricShift   Kind = "metric_shift"
	ErrorBurst    Kind = "error_burst"
	NewError      Kind = "new_error"
	Restart       Kind = "restart"
	Deploy        Kind = "deploy"
)

// Event is one thing that happened, with the call that shows it.
type Event struct {
	At      time.Time `json:"at"`
	Kind    Kind      `json:"kind"`
	Source  string    `json:"source"`
	Service string    `json:"service"`
	Summary string    `json:"summary"`
	// Before and After are the value (a metric), the rate per minute (an
	// error burst), the version (a deploy read from the logs) or the images
	// (a Kubernetes deploy) before and after the event; nil where the kind
	// has none.
	Before     *Value `json:"before"`
	After      *Value `json:"after"`
	ToolCallID string `json:"tool_call_id"`
}

// Status says how much of a detector's evidence was read.
type Status string

// The statuses of a coverage line.
const (
	// Read: the source answered for the whole window.
	Read Status = "read"
	// Partial: it answered, but part of the window could not be judged
	// (coverage partial, files skipped, a scan limit): an absent event
	// there is not a negative.
	Partial Status = "partial"
	// Empty: the source held no data in the window (coverage none).
	Empty Status = "empty"
	// Failed: the call failed or was refused; nothing was read.
	Failed Status = "failed"
)

// Coverage is what one detector looked at and what it could not read, so
// a missing event is never read as "nothing happened".
type Coverage struct {
	Detector   string `json:"detector"`
	Source     string `json:"source"`
	Status     Status `json:"status"`
	Note       string `json:"note,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Window is the timeline's time range, RFC 3339 in UTC.
type Window struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Timeline is the answer: the events in time order and the coverage of
// every detector (docs/SPEC.md#timeline--o-json).
type Timeline struct {
	// RunID is the stored run the timeline belongs to; a build_timeline
	// result leaves it out (the diagnosis that shows it fills it in).
	RunID    string     `json:"run_id,omitempty"`
	Window   Window     `json:"window"`
	Events   []Event    `json:"events"`
	Coverage []Coverage `json:"coverage"`
	// OmittedEvents counts the latest events left out so that the timeline
	// fits a bounded observation (build_timeline); 0 otherwise.
	OmittedEvents int `json:"omitted_events,omitempty"`
}

// sortEvents orders events by time, then kind, source, service and
// summary, so equal inputs give one order.
func sortEvents(es []Event) {
	slices.SortStableFunc(es, func(a, b Event) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Source, b.Source),
			cmp.Compare(a.Service, b.Service), cmp.Compare(a.Summary, b.Summary))
	})
}

// Value is an event's before or after: a number, or the version a
// service ran (a JSON string) for a deploy read from the logs, or a
// Deployment revision's images, joined by ", ", for a Kubernetes deploy.
type Value struct {
	Number float64
	// Version is the version; "" for a number.
	Version string
}

// number is v as an event's before or after, rounded to 4 significant
// digits so JSON does not carry float noise.
func number(v float64) *Value { return &Value{Number: round(v)} }

// version is the version s as an event's before or after.
func version(s string) *Value { return &Value{Version: s} }

// String is the number as fmtNum says it, or the version.
func (v Value) String() string {
	if v.Version != "" {
		return v.Version
	}
	return fmtNum(v.Number)
}

// MarshalJSON writes a version as a string, else the number.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Version != "" {
		return json.Marshal(v.Version)
	}
	return json.Marshal(v.Number)
}

// UnmarshalJSON reads a number or a version string.
func (v *Value) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("an event's version: %w", err)
		}
		if s == "" {
			return fmt.Errorf("an event's version is empty")
		}
		*v = Value{Version: s}
		return nil
	}
	var n float64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an event's value is neither a number nor a version: %w", err)
	}
	*v = Value{Number: n}
	return nil
}

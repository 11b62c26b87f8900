// Package timeline builds the incident timeline: what changed, and when,
// from every configured source at once — alerts starting and resolving,
// metrics leaving their band, error bursts, error patterns never seen
// before, process restarts — each event citing the tool call whose
// observation supports it. It is deterministic and uses no model: the
// events are derived from tool observations alone, so a run replayed on
// its recorded observations derives the same timeline.
package timeline

import (
	"cmp"
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
	// Before and After are the value (a metric) or the rate per minute (an
	// error burst) before and after the event; nil where the kind has none.
	Before     *float64 `json:"before"`
	After      *float64 `json:"after"`
	ToolCallID string   `json:"tool_call_id"`
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

func ptr(v float64) *float64 { return &v }

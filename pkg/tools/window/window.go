// Package window parses the time window of an evidence tool's input: since
// (a duration back from the run's clock) or start and end (RFC 3339, or
// "2006-01-02 15:04:05" in a given zone). query_logs and query_metrics
// accept the same forms and give the same messages through it.
package window

import (
	"fmt"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// LocalLayout is the form of a start or end without an offset, read in Bounds.Loc.
const LocalLayout = "2006-01-02 15:04:05"

// Bounds are a tool's limits on a window.
type Bounds struct {
	// MinSince and MaxSince bound since; MaxSince 0 is MaxWindow.
	MinSince, MaxSince time.Duration
	// MaxWindow is the source's max_window: no window may be longer.
	MaxWindow time.Duration
	// Loc is the zone of a start or end written without an offset.
	Loc *time.Location
}

// Window is a validated window: relative (Since > 0) or absolute (Start, End in UTC).
type Window struct {
	Since      time.Duration
	Start, End time.Time
	sinceText  string // since as written (trimmed): the canonical form keeps it
}

// Parse validates the start, end and since members of an input against b;
// every error wraps tools.ErrInvalidInput and says how to fix the input.
func Parse(start, end, since string, b Bounds) (Window, error) {
	maxSince := b.MaxSince
	if maxSince == 0 {
		maxSince = b.MaxWindow
	}
	hasAbs := start != "" || end != ""
	switch {
	case hasAbs && since != "":
		return Window{}, tools.InvalidInput("give the window either as start and end or as since, not both")
	case !hasAbs && since == "":
		return Window{}, tools.InvalidInput("a time window is required: give since (%s to %s, e.g. \"1h\") or start and end", tools.FormatDuration(b.MinSince), tools.FormatDuration(maxSince))
	case since != "":
		d, err := time.ParseDuration(strings.TrimSpace(since))
		if err != nil {
			return Window{}, tools.InvalidInput("since %q is not a duration such as \"30m\" or \"2h\"", since)
		}
		if d < b.MinSince || d > maxSince {
			return Window{}, tools.InvalidInput("since %q is out of range: use %s to %s", since, tools.FormatDuration(b.MinSince), tools.FormatDuration(maxSince))
		}
		if d > b.MaxWindow {
			return Window{}, tools.InvalidInput("since %q is longer than this source's max_window %s: narrow the window", since, tools.FormatDuration(b.MaxWindow))
		}
		return Window{Since: d, sinceText: strings.TrimSpace(since)}, nil
	case start == "" || end == "":
		return Window{}, tools.InvalidInput("give both start and end (or since instead)")
	}
	s, err := parseTime(start, b.Loc)
	if err != nil {
		return Window{}, tools.InvalidInput("start: %v", err)
	}
	e, err := parseTime(end, b.Loc)
	if err != nil {
		return Window{}, tools.InvalidInput("end: %v", err)
	}
	if !e.After(s) {
		return Window{}, tools.InvalidInput("end %s is not after start %s", end, start)
	}
	if e.Sub(s) > b.MaxWindow {
		return Window{}, tools.InvalidInput("window of %s is longer than this source's max_window %s: narrow the window", tools.FormatDuration(e.Sub(s)), tools.FormatDuration(b.MaxWindow))
	}
	return Window{Start: s.UTC(), End: e.UTC()}, nil
}

// parseTime accepts RFC 3339 or LocalLayout (also with a T) in loc.
func parseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{LocalLayout, "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2006-01-02T15:04:05Z07:00) nor %q in the source's time zone", s, LocalLayout)
}

// Len is the window's length.
func (w Window) Len() time.Duration {
	if w.Since > 0 {
		return w.Since
	}
	return w.End.Sub(w.Start)
}

// At returns the absolute window at the run's clock now.
func (w Window) At(now time.Time) (start, end time.Time) {
	if w.Since > 0 {
		return now.Add(-w.Since), now
	}
	return w.Start, w.End
}

// Canonical returns the members as a canonical input writes them: since as
// written (trimmed), or start and end in UTC RFC 3339; the others empty.
func (w Window) Canonical() (start, end, since string) {
	if w.Since > 0 {
		return "", "", w.sinceText
	}
	return w.Start.Format(time.RFC3339Nano), w.End.Format(time.RFC3339Nano), ""
}

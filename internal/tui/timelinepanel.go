package tui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of the timeline panel.
const (
	// panelMaxEvents bounds the events the panel keeps (the tool's own
	// bounds keep a timeline far below it).
	panelMaxEvents = 200
	// panelLiveRows is how many events the live screen shows, earliest
	// first: the onset is what the reader looks for.
	panelLiveRows = 6
	// panelFinalRows is how many the final screen shows.
	panelFinalRows = 20
	// panelServiceWidth bounds the service column.
	panelServiceWidth = 16
)

// timelinePanel is the incident timeline of the run's latest build_timeline
// call, filled in from its progress events as its detectors finish.
type timelinePanel struct {
	callID   string
	window   timeline.Window
	coverage []timeline.Coverage
	events   []timeline.Event
	dropped  int  // events past panelMaxEvents
	done     bool // the call finished
	outcome  string
}

// applyTimeline folds the events of a build_timeline call into the panel:
// a call that starts opens a new panel, each detector's step fills it in,
// the call's end closes it.
func (s *runState) applyTimeline(ev harness.Event) {
	switch e := ev.(type) {
	case harness.ToolCallStarted:
		if e.Tool == timeline.ToolName {
			s.panel = &timelinePanel{callID: e.ToolCallID}
		}
	case harness.ToolCallProgress:
		d, ok := e.Step.(timeline.Detected)
		if !ok {
			return
		}
		if s.panel == nil || s.panel.callID != e.ToolCallID {
			s.panel = &timelinePanel{callID: e.ToolCallID}
		}
		p := s.panel
		p.window = d.Window
		p.coverage = append(p.coverage, d.Coverage)
		for _, ev := range d.Events {
			if len(p.events) == panelMaxEvents {
				p.dropped++
				continue
			}
			p.events = append(p.events, ev)
		}
		slices.SortStableFunc(p.events, func(a, b timeline.Event) int {
			return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Service, b.Service))
		})
	case harness.ToolCallFinished:
		if p := s.panel; p != nil && p.callID == e.Invocation.ToolCallID {
			p.done, p.outcome = true, e.Invocation.Outcome()
			if p.outcome == "" {
				p.outcome = e.Invocation.Status
			}
		}
	}
}

// view draws the panel at width, at most rows events (earliest first),
// boxed unless plain; "" before the first detector finished.
func (p *timelinePanel) view(st styles, width int, plain bool, rows int) string {
	if p == nil {
		return ""
	}
	inner := width
	if !plain {
		inner = width - 4 // border and padding
	}
	var lines []string
	lines = append(lines, st.title.Render(textclip.Width(p.header(), inner)))
	if len(p.coverage) == 0 {
		lines = append(lines, st.dim.Render(textclip.Width("waiting for the first detector…", inner)))
	}
	shown := p.events
	if len(shown) > rows {
		shown = shown[:rows]
	}
	oneDay := p.window.Start.UTC().Truncate(24 * time.Hour).Equal(p.window.End.UTC().Add(-time.Nanosecond).Truncate(24 * time.Hour))
	svcW := 1
	for _, e := range shown {
		svcW = max(svcW, ansi.StringWidth(termsafe.Line(e.Service)))
	}
	svcW = min(svcW, panelServiceWidth)
	for _, e := range shown {
		lines = append(lines, eventLine(st, e, inner, svcW, oneDay))
	}
	if more := len(p.events) - len(shown) + p.dropped; more > 0 {
		lines = append(lines, st.dim.Render(textclip.Width(fmt.Sprintf("… %d later %s", more, plural(more, "event", "events")), inner)))
	}
	if len(p.coverage) > 0 && len(p.events) == 0 {
		lines = append(lines, st.dim.Render(textclip.Width("no event so far", inner)))
	}
	for _, c := range timeline.Gaps(p.coverage) {
		line := fmt.Sprintf("not fully read: %s on %s (%s)", c.Detector, termsafe.Line(c.Source), c.Status)
		if n := termsafe.Line(c.Note); n != "" {
			line += ": " + n
		}
		lines = append(lines, st.warn.Render(textclip.Width(line, inner)))
	}
	body := strings.Join(lines, "\n")
	if plain {
		return body
	}
	return st.box.Render(body)
}

// header is the panel's first line: the window, how many detectors have
// finished and how many events they found.
func (p *timelinePanel) header() string {
	h := "Timeline"
	if !p.window.Start.IsZero() {
		h += fmt.Sprintf(" %s–%s UTC", p.window.Start.UTC().Format("15:04"), p.window.End.UTC().Format("15:04"))
	}
	h += fmt.Sprintf(" · %d %s, %d %s", len(p.coverage), plural(len(p.coverage), "detector", "detectors"),
		len(p.events)+p.dropped, plural(len(p.events)+p.dropped, "event", "events"))
	switch {
	case !p.done:
		h += " · building…"
	case p.outcome == string(tools.EvidenceFound) || p.outcome == string(tools.NoEvidence):
		h += " · done"
	case p.outcome != "":
		h += " · " + termsafe.Line(p.outcome)
	}
	return h
}

// eventLine is one event: its time, kind, service (in a column svcW wide)
// and summary, cut to width.
func eventLine(st styles, e timeline.Event, width, svcW int, oneDay bool) string {
	at := e.At.UTC().Format("15:04:05")
	if !oneDay {
		at = e.At.UTC().Format("01-02 15:04")
	}
	svc := termsafe.Line(e.Service)
	if svc == "" {
		svc = "-"
	}
	svc = textclip.Width(svc, svcW)
	svc += strings.Repeat(" ", max(svcW-ansi.StringWidth(svc), 0))
	head := textclip.Width(fmt.Sprintf("%s %-14s %s ", at, e.Kind, svc), width)
	line := st.label.Render(head)
	if room := width - ansi.StringWidth(head); room > 0 {
		line += textclip.Width(termsafe.Line(e.Summary), room)
	}
	return line
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

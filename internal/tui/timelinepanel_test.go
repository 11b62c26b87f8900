package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// detected is one detector's step of the build_timeline call call_tl.
func detected(c timeline.Coverage, es ...timeline.Event) harness.ToolCallProgress {
	w := timeline.Window{Start: t0.Add(-time.Hour), End: t0.Add(time.Hour)}
	return harness.ToolCallProgress{Meta: meta(), ToolCallID: "call_tl", Tool: timeline.ToolName,
		Step: timeline.Detected{Window: w, Coverage: c, Events: es}}
}

func tlEvent(at time.Time, kind timeline.Kind, service, summary string) timeline.Event {
	return timeline.Event{At: at, Kind: kind, Source: "app", Service: service, Summary: summary, ToolCallID: "call_tl"}
}

// colourSGR finds a colour in an SGR sequence (foreground or background,
// 16, 256 or true colour).
var colourSGR = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`)

// The diagnose screen shows the timeline of a build_timeline call as a panel
// that fills in as its detectors finish: a detector's events appear when
// its step arrives, in time order whatever order the detectors finish in,
// with what a detector could not read; every line fits 80 columns; the
// final screen keeps the panel and, on a terminal without colour
// (NO_COLOR), carries no colour.
func TestTimelinePanelFillsIn(t *testing.T) {
	m := testDiagnose(80, func() {})
	step := func(ev harness.Event) string {
		t.Helper()
		next, _ := m.Update(EventMsg{Event: ev})
		m = next.(Diagnose)
		f := plain(m.frame())
		for i, l := range strings.Split(f, "\n") {
			if w := ansi.StringWidth(l); w > 80 {
				t.Fatalf("line %d is %d columns wide, over 80:\n%s", i+1, w, f)
			}
		}
		return f
	}
	for _, ev := range phaseStart {
		step(ev)
	}
	step(roundDone(1, runrecord.PurposeDiagnosis, 1200, 34))
	f := step(harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_tl", Tool: timeline.ToolName})
	shows(t, f, "Timeline · 0 detectors, 0 events · building…")
	shows(t, f, "waiting for the first detector…")

	long := "errors rose from 0 to 14.2 a minute: HikariPool-1 - Connection is not available, request timed out after 3000ms and a great deal more text"
	f = step(detected(timeline.Coverage{Detector: timeline.DetectBursts, Source: "app", Status: timeline.Read},
		tlEvent(t0.Add(12*time.Second), timeline.ErrorBurst, "payment-service", long)))
	shows(t, f, "Timeline 13:00–15:00 UTC · 1 detector, 1 event · building…")
	shows(t, f, "14:00:12 error_burst    payment-service errors rose from 0 to 14.2 a minute")
	if strings.Contains(f, "waiting for the first detector") {
		t.Fatalf("the panel still waits after a detector finished:\n%s", f)
	}

	// a later detector finds an earlier event: it goes first
	f = step(detected(timeline.Coverage{Detector: timeline.DetectRestarts, Source: "app", Status: timeline.Partial, Note: "the newest 50 of 75 lines holding \"start\" were read"},
		tlEvent(t0.Add(-90*time.Second), timeline.Restart, "payment-service", "started: Started PaymentApplication in 9.1 seconds")))
	shows(t, f, "2 detectors, 2 events · building…")
	restart, burst := strings.Index(f, "13:58:30 restart"), strings.Index(f, "14:00:12 error_burst")
	if restart < 0 || burst < 0 || restart > burst {
		t.Fatalf("the events are not in time order:\n%s", f)
	}
	shows(t, f, "not fully read: restart on app (partial): the newest 50 of 75")

	f = step(detected(timeline.Coverage{Detector: timeline.DetectMetrics, Source: "p99", Status: timeline.Failed, Note: "the call failed (UNAVAILABLE)"}))
	shows(t, f, "not fully read: metric_shift on p99 (failed): the call failed (UNAVAILABLE)")
	f = step(toolDone("call_tl", timeline.ToolName, "timeline since 2h", tools.EvidenceFound, ""))
	shows(t, f, "3 detectors, 2 events · done")

	// more events than the live screen's rows: the earliest, and how many more
	for i := range panelLiveRows + 2 {
		f = step(detected(timeline.Coverage{Detector: timeline.DetectNewError, Source: "app", Status: timeline.Read},
			tlEvent(t0.Add(time.Duration(20+i)*time.Minute), timeline.NewError, "order-service", "new error")))
	}
	shows(t, f, "… 4 later events")

	for _, ev := range append(phaseStop, phaseEnd...) {
		step(ev)
	}
	next, _ := m.Update(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
	m = next.(Diagnose)
	next, _ = m.Update(ReportMsg{Markdown: fallbackMarkdown, ExitCode: 3, Outcome: "FALLBACK"})
	m = next.(Diagnose)
	final := m.frame()
	if !colourSGR.MatchString(final) {
		t.Fatalf("the final frame has no colour to take away, so the check below proves nothing:\n%q", final)
	}
	shows(t, plain(final), "14:27:00 new_error      order-service")
	shows(t, plain(final), "not fully read: metric_shift on p99")
	noColour := downsample(final, colorprofile.Ascii)
	if c := colourSGR.FindString(noColour); c != "" {
		t.Fatalf("NO_COLOR: the final screen sets a colour %q:\n%q", c, noColour)
	}
	shows(t, noColour, "Timeline 13:00–15:00 UTC · 11 detectors, 10 events · done")
}

// A run with no build_timeline call draws no panel; a second call replaces
// the first one's panel.
func TestTimelinePanelOnlyForTimelineCalls(t *testing.T) {
	var s runState
	s.apply(harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_1", Tool: "query_logs"}, t0)
	if v := s.panel.view(newStyles(), 80, false, panelLiveRows); v != "" {
		t.Fatalf("a query_logs call drew a timeline panel:\n%s", v)
	}
	s.apply(detected(timeline.Coverage{Detector: timeline.DetectBursts, Source: "app", Status: timeline.Read},
		tlEvent(t0, timeline.ErrorBurst, "a", "first call's burst")), t0)
	s.apply(harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_tl2", Tool: timeline.ToolName}, t0)
	if v := plain(s.panel.view(newStyles(), 80, true, panelLiveRows)); strings.Contains(v, "first call's burst") || !strings.Contains(v, "waiting for the first detector") {
		t.Fatalf("the second build_timeline call kept the first one's events:\n%s", v)
	}
}

// The chat screen shows the timeline of a diagnosis turn's build_timeline
// call as diagnose does: the panel fills in under the turn's steps as its
// detectors finish, and the finished panel stays under the turn's answer.
// On an 80×24 terminal every frame fits (the steps and then the panel's
// rows give way, the conversation keeps its rows).
func TestChatTimelinePanel(t *testing.T) {
	const w, h = 80, 24
	m := testChat(newRecorder(), w, h)
	step := func(msg tea.Msg) string {
		t.Helper()
		next, _ := m.Update(msg)
		m = next.(Chat)
		f := plain(m.screen())
		lines := strings.Split(f, "\n")
		if len(lines) > h {
			t.Fatalf("the screen is %d rows, over %d:\n%s", len(lines), h, f)
		}
		for i, l := range lines {
			if lw := ansi.StringWidth(l); lw > w {
				t.Fatalf("line %d is %d columns wide, over %d:\n%s", i+1, lw, w, f)
			}
		}
		return f
	}
	step(TurnStartedMsg{Query: query})
	for _, ev := range append(append([]harness.Event{}, phaseStart...), phaseMidTool...) {
		step(EventMsg{Event: ev})
	}
	f := step(EventMsg{Event: harness.ToolCallStarted{Meta: meta(), ToolCallID: "call_tl", Tool: timeline.ToolName}})
	shows(t, f, "Timeline · 0 detectors, 0 events · building…")
	f = step(EventMsg{Event: detected(timeline.Coverage{Detector: timeline.DetectRestarts, Source: "app", Status: timeline.Read},
		tlEvent(t0.Add(-90*time.Second), timeline.Deploy, "payment-service", "started: payment-service v2.4.1"))})
	shows(t, f, "Timeline 13:00–15:00 UTC · 1 detector, 1 event · building…")
	shows(t, f, "13:58:30 deploy         payment-service started: payment-service v2.4.1")
	for i := range panelLiveRows + 2 {
		f = step(EventMsg{Event: detected(timeline.Coverage{Detector: timeline.DetectNewError, Source: "app", Status: timeline.Read},
			tlEvent(t0.Add(time.Duration(20+i)*time.Minute), timeline.NewError, "order-service", "new error"))})
	}
	shows(t, f, "later events")
	f = step(EventMsg{Event: toolDone("call_tl", timeline.ToolName, "timeline since 2h", tools.EvidenceFound, "")})
	shows(t, f, "9 detectors, 9 events · done")
	shows(t, f, "↳ build_timeline")

	for _, ev := range append(append([]harness.Event{}, phaseStop...), phaseEnd...) {
		step(EventMsg{Event: ev})
	}
	step(TurnFinishedMsg{Intent: "DIAGNOSIS", Markdown: fallbackMarkdown, Outcome: "FALLBACK", RunID: "r_chat0001"})
	conv := plain(m.conversation())
	answer, panel := strings.Index(conv, "No conclusion"), strings.Index(conv, "Timeline 13:00–15:00 UTC · 9 detectors, 9 events · done")
	if answer < 0 || panel < answer {
		t.Fatalf("the finished timeline is not kept under the answer:\n%s", conv)
	}
	shows(t, conv, "14:27:00 new_error      order-service   new error")
}

package tui

import (
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// TestDiagnoseGolden pins the diagnose view at the points of a scripted run
// a user sees: the first model round, a finished tool call, the stop
// controls, and (for the narrow and resized layouts) the middle of the run.
func TestDiagnoseGolden(t *testing.T) {
	cases := []struct {
		name   string
		width  int
		msgs   []tea.Msg
		resize *tea.WindowSizeMsg
		want   string // text the program must draw before the golden is taken
	}{
		{name: "start", width: 100, msgs: script(phaseStart), want: "waiting for the model"},
		{name: "mid_tool", width: 100, msgs: script(phaseStart, phaseMidTool), want: "EVIDENCE_FOUND"},
		{name: "stop_required", width: 100, msgs: script(phaseStart, phaseMidTool, phaseStop), want: "final answer, no tools"},
		{name: "narrow", width: 50, msgs: script(phaseStart, phaseMidTool), want: "query_logs  order-service ERROR since… → found"},
		{name: "resized", width: 100, msgs: script(phaseStart, phaseMidTool), resize: &tea.WindowSizeMsg{Width: 72, Height: 30}, want: "query_logs  order-service ERROR since 1h → found · 412 matched"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tm := teatest.NewTestModel(t, testDiagnose(tc.width, func() {}), teatest.WithInitialTermSize(tc.width, 40))
			for _, m := range tc.msgs {
				tm.Send(m)
			}
			if tc.resize != nil {
				tm.Send(*tc.resize)
			}
			if err := tm.Quit(); err != nil {
				t.Fatal(err)
			}
			fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Diagnose)
			shows(t, screen(fm.View()), tc.want)
			teatest.RequireEqualOutput(t, []byte(screen(fm.View())))
		})
	}
}

// TestDiagnoseFinalReport runs the whole script to the report: the final
// screen (budgets, timeline, rendered report, exit line) is printed to the
// scrollback and the program quits by itself.
func TestDiagnoseFinalReport(t *testing.T) {
	tm := teatest.NewTestModel(t, testDiagnose(100, func() {}), teatest.WithInitialTermSize(100, 40))
	for _, m := range script(phaseStart, phaseMidTool, phaseStop, phaseEnd) {
		tm.Send(m)
	}
	tm.Send(ReportMsg{Markdown: fallbackMarkdown, ExitCode: 3, Outcome: "FALLBACK"})
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Diagnose)
	out, err := io.ReadAll(tm.FinalOutput(t))
	if err != nil {
		t.Fatal(err)
	}
	const exit = "exit 3 · FALLBACK · INFORMATION_SATURATED"
	if !strings.Contains(string(out), exit) {
		t.Fatalf("final output lacks %q:\n%s", exit, out)
	}
	if v := fm.View().Content; v != "" {
		t.Fatalf("after printing the final screen the view must be empty, got:\n%s", v)
	}
	if fm.Cancelled() {
		t.Fatal("a run that reported is not cancelled")
	}
	teatest.RequireEqualOutput(t, []byte(plain(fm.frame())))
}

// TestDiagnoseCancel: the first Ctrl-C asks the engine to cancel and shows
// it; the report still arrives and ends the program. A second Ctrl-C quits
// at once and says so.
func TestDiagnoseCancel(t *testing.T) {
	t.Run("report after cancel", func(t *testing.T) {
		cancelled := make(chan struct{}, 2)
		tm := teatest.NewTestModel(t, testDiagnose(100, func() { cancelled <- struct{}{} }), teatest.WithInitialTermSize(100, 40))
		for _, m := range script(phaseStart) {
			tm.Send(m)
		}
		tm.Send(ctrl('c'))
		select {
		case <-cancelled:
		case <-time.After(10 * time.Second):
			t.Fatal("OnCancel was not called")
		}
		tm.Send(ReportMsg{Markdown: "Cancelled by the user.", ExitCode: 130, Outcome: "CANCELLED", StopReason: "CANCELLED"})
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Diagnose)
		if fm.Cancelled() {
			t.Fatal("the program ended by its report, not by a forced quit")
		}
		if got := lastLine(plain(fm.frame())); got != "exit 130 · CANCELLED · run r_test" {
			t.Fatalf("last line = %q", got)
		}
		if len(cancelled) != 0 {
			t.Fatal("OnCancel called more than once")
		}
	})
	t.Run("cancelling shown", func(t *testing.T) {
		var m tea.Model = testDiagnose(100, func() {})
		for _, msg := range append(script(phaseStart), ctrl('c')) {
			m, _ = m.Update(msg)
		}
		v := screen(m.View())
		shows(t, v, "cancelling…")
		shows(t, v, "ctrl+c again quits without waiting")
	})
	t.Run("second ctrl+c quits", func(t *testing.T) {
		tm := teatest.NewTestModel(t, testDiagnose(100, func() {}), teatest.WithInitialTermSize(100, 40))
		tm.Send(EventMsg{Event: phaseStart[0]})
		tm.Send(typed('q'))
		tm.Send(ctrl('c'))
		fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Diagnose)
		if !fm.Cancelled() {
			t.Fatal("a forced quit must report Cancelled")
		}
	})
}

// TestDiagnoseBudgetOption draws the limits before any event.
func TestDiagnoseBudgetOption(t *testing.T) {
	m := NewDiagnose(DiagnoseOptions{Budget: harness.DefaultBudget(), Now: fixedNow, Spinner: pinnedSpinner})
	for _, want := range []string{"0/8", "0/6", "0/60,000", "0/262,144", "5m0s"} {
		if !strings.Contains(screen(m.View()), want) {
			t.Fatalf("view lacks %q:\n%s", want, screen(m.View()))
		}
	}
}

// clockedDiagnose is a diagnose view on the clock *now, and the step that
// folds one message into it.
func clockedDiagnose(now *time.Time) (*Diagnose, func(tea.Msg)) {
	m := NewDiagnose(DiagnoseOptions{Now: func() time.Time { return *now }, Spinner: pinnedSpinner})
	return &m, func(msg tea.Msg) {
		nm, _ := m.Update(msg)
		m = nm.(Diagnose)
	}
}

// TestTimeLeftCountsDown checks the countdown between budget reports on the
// view's clock, and that it freezes when the run finishes.
func TestTimeLeftCountsDown(t *testing.T) {
	now := t0
	m, step := clockedDiagnose(&now)
	if !strings.Contains(screen(m.View()), "0s") {
		t.Fatalf("no budget known yet, time left 0s:\n%s", screen(m.View()))
	}
	step(EventMsg{Event: phaseStart[0]})
	now = now.Add(90 * time.Second)
	step(tickMsg{})
	if !strings.Contains(screen(m.View()), "time left") || !strings.Contains(screen(m.View()), "3m30s") {
		t.Fatalf("after 90s of a 5m deadline want 3m30s:\n%s", screen(m.View()))
	}
	step(EventMsg{Event: budgetEv(usage(1, 0, 0, 0, 0), time.Minute)})
	now = now.Add(20 * time.Second)
	if !strings.Contains(screen(m.View()), "40s") {
		t.Fatalf("want 40s left:\n%s", screen(m.View()))
	}
	step(EventMsg{Event: phaseEnd[1]})
	now = now.Add(time.Hour)
	if !strings.Contains(screen(m.View()), "40s") {
		t.Fatalf("time left must freeze at the end of the run:\n%s", screen(m.View()))
	}
}

// TestModelCallElapsed: once the current model call passes a second, the
// spinner row says how long it has taken, on the view's clock; a new call
// starts counting again, and the chat's panel shows the same.
func TestModelCallElapsed(t *testing.T) {
	now := t0
	m, step := clockedDiagnose(&now)
	waitRow := func() string {
		for _, l := range strings.Split(screen(m.View()), "\n") {
			if strings.Contains(l, "waiting for the model") {
				return strings.TrimSpace(l)
			}
		}
		t.Fatalf("no spinner row:\n%s", screen(m.View()))
		return ""
	}
	step(EventMsg{Event: phaseStart[0]})
	step(EventMsg{Event: phaseStart[1]})
	now = now.Add(500 * time.Millisecond)
	if row := waitRow(); !strings.HasSuffix(row, "waiting for the model…") {
		t.Errorf("under a second the row shows no time: %q", row)
	}
	now = now.Add(72 * time.Second)
	step(tickMsg{})
	if row := waitRow(); !strings.HasSuffix(row, "waiting for the model… 1m12s") {
		t.Errorf("after 72.5 s the row is %q, want the elapsed 1m12s", row)
	}
	step(EventMsg{Event: roundDone(1, runrecord.PurposeDiagnosis, 1200, 34)})
	step(EventMsg{Event: harness.ModelRoundStarted{Meta: meta(), Seq: 2, Purpose: runrecord.PurposeDiagnosis, WithTools: true}})
	now = now.Add(3 * time.Second)
	if row := waitRow(); !strings.HasSuffix(row, "waiting for the model… 3s") {
		t.Errorf("the second call counts from its own start: %q", row)
	}

	c := testChat(newRecorder(), 100, 30)
	c.run.apply(phaseStart[1], t0.Add(-5*time.Second)) // fixedNow is t0
	c.running = true
	if !strings.Contains(c.panel(), "waiting for the model… 5s") {
		t.Errorf("chat panel lacks the elapsed 5s:\n%s", c.panel())
	}
}

package tui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestComma(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -60000: "-60,000"} {
		if got := comma(n); got != want {
			t.Errorf("comma(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 0: "0s", 4*time.Minute + 32*time.Second + 900*time.Millisecond: "4m32s", 5 * time.Minute: "5m0s"} {
		if got := clock(d); got != want {
			t.Errorf("clock(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestExitLine(t *testing.T) {
	cases := []struct {
		code                   int
		outcome, reason, runID string
		want                   string
	}{
		{3, "FALLBACK", "INFORMATION_SATURATED", "r_1", "exit 3 · FALLBACK · INFORMATION_SATURATED · run r_1"},
		{0, "SUCCESS", "", "r_2", "exit 0 · SUCCESS · run r_2"},
		{130, "CANCELLED", "CANCELLED", "r_3", "exit 130 · CANCELLED · run r_3"},
		{1, "", "", "", "exit 1"},
	}
	for _, c := range cases {
		if got := exitLine(c.code, c.outcome, c.reason, c.runID); got != c.want {
			t.Errorf("exitLine(%d, %q, %q, %q) = %q, want %q", c.code, c.outcome, c.reason, c.runID, got, c.want)
		}
	}
}

// A run that FAILED or was CANCELLED ends with ✗, any other with ✔.
func TestEndMark(t *testing.T) {
	for _, c := range []struct{ lifecycle, outcome, want string }{
		{"COMPLETED", "SUCCESS", "✔"}, {"COMPLETED", "FALLBACK", "✔"}, {"BUDGET_EXHAUSTED", "FALLBACK", "✔"},
		{"FAILED", "FAILED", "✗"}, {"CANCELLED", "CANCELLED", "✗"}, {"COMPLETED", "FAILED", "✗"}, {"CANCELLED", "", "✗"},
	} {
		if got := endMark(c.lifecycle, c.outcome); got != c.want {
			t.Errorf("endMark(%q, %q) = %s, want %s", c.lifecycle, c.outcome, got, c.want)
		}
	}
}

func TestMarkdownStyle(t *testing.T) {
	if MarkdownStyle(false, true) != "notty" || MarkdownStyle(true, true) != "dark" || MarkdownStyle(true, false) != "light" {
		t.Fatal("MarkdownStyle picks notty without colour, else by background")
	}
}

// The screens ask for the terminal's background only when they draw
// Markdown in colour, and draw it in the palette the answer names: a light
// terminal gets the light accent (256-colour 27) for the report's headings,
// a dark one the dark accent (39), also for answers already on the chat.
func TestBackgroundPicksPalette(t *testing.T) {
	if askBackground("notty") != nil || askBackground("") != nil {
		t.Error("without colour nothing depends on the background: nothing is asked")
	}
	for _, style := range []string{"dark", "light"} {
		ask := askBackground(style)
		if ask == nil {
			t.Fatalf("%s: the background is not asked", style)
		}
		if fmt.Sprintf("%T", ask()) != fmt.Sprintf("%T", tea.RequestBackgroundColor()) {
			t.Fatalf("%s: the command is %T, not bubbletea's background request", style, ask())
		}
	}
	white, black := tea.BackgroundColorMsg{Color: color.White}, tea.BackgroundColorMsg{Color: color.Black}
	for _, tt := range []struct {
		name      string
		bg        tea.BackgroundColorMsg
		want, not string
	}{
		{"light", white, "38;5;27m", "38;5;39m"},
		{"dark", black, "38;5;39m", "38;5;27m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, start := range []string{"dark", "light"} {
				d := NewDiagnose(DiagnoseOptions{Query: query, Now: fixedNow, Spinner: pinnedSpinner, MarkdownStyle: start, Width: 100})
				nm, _ := d.Update(tt.bg)
				nm, _ = nm.Update(ReportMsg{Markdown: fallbackMarkdown, ExitCode: 3, Outcome: "FALLBACK"})
				if f := nm.(Diagnose).frame(); !strings.Contains(f, tt.want) || strings.Contains(f, tt.not) {
					t.Errorf("diagnose from %s: want heading colour %q and never %q:\n%q", start, tt.want, tt.not, f)
				}
				c := NewChat(ChatOptions{Width: 100, Height: 40, Now: fixedNow, Spinner: pinnedSpinner, MarkdownStyle: start,
					Past: []PastTurn{{Query: "payments slow", Finished: TurnFinishedMsg{Markdown: fallbackMarkdown, Outcome: "FALLBACK"}}}})
				nm, _ = c.Update(tt.bg)
				if v := nm.(Chat).View().Content; !strings.Contains(v, tt.want) || strings.Contains(v, tt.not) {
					t.Errorf("chat from %s: want heading colour %q and never %q:\n%q", start, tt.want, tt.not, v)
				}
			}
		})
	}
	// notty stays notty whatever the terminal says.
	d := testDiagnose(100, nil)
	nm, _ := d.Update(white)
	if got := nm.(Diagnose).opts.MarkdownStyle; got != "notty" {
		t.Errorf("notty became %q on a background answer", got)
	}
}

func TestRenderMarkdown(t *testing.T) {
	out, err := RenderMarkdown("# Title\n\nsome *text*\x1b[31m red", 40, "notty")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Title") || strings.Contains(out, "\x1b") {
		t.Fatalf("notty rendering must keep the text and carry no escapes: %q", out)
	}
	if _, err := RenderMarkdown("x", 40, "auto"); err == nil || !strings.Contains(err.Error(), "fixed style") {
		t.Fatalf("auto probes the terminal and must be refused, got %v", err)
	}
	if _, err := RenderMarkdown("x", 40, "no-such-style"); err == nil || !strings.Contains(err.Error(), "no-such-style") {
		t.Fatalf("an unknown style must be named in the error, got %v", err)
	}
}

// BenchmarkRenderMarkdown measures rendering one report (done once per
// turn and on resize).
func BenchmarkRenderMarkdown(b *testing.B) {
	for b.Loop() {
		if _, err := RenderMarkdown(fallbackMarkdown, 98, "dark"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiagnoseFrame measures drawing one live frame mid-run.
func BenchmarkDiagnoseFrame(b *testing.B) {
	m := testDiagnose(100, nil)
	for _, msg := range script(phaseStart, phaseMidTool, phaseStop) {
		nm, _ := m.Update(msg)
		m = nm.(Diagnose)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

package tui

import (
	"strings"
	"testing"
	"time"
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

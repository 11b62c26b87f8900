package tui

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/superbiz/superbiz/internal/harness"
)

// TestLinePrinterGolden prints the whole scripted run: one line per
// state-changing event, none for budget frames, no escape sequences.
func TestLinePrinterGolden(t *testing.T) {
	var buf bytes.Buffer
	p := &LinePrinter{W: &buf}
	events := append(append(append(append([]harness.Event{}, phaseStart...), phaseMidTool...), phaseStop...), phaseEnd...)
	for _, ev := range events {
		p.Emit(ev)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "time left") {
		t.Fatalf("plain lines must carry no colour and no budget frames:\n%s", out)
	}
	golden.RequireEqual(t, buf.Bytes())
}

// A brief printer writes the [done] line only, the same as the full one's.
func TestLinePrinterBrief(t *testing.T) {
	var full, brief bytes.Buffer
	events := append(append(append(append([]harness.Event{}, phaseStart...), phaseMidTool...), phaseStop...), phaseEnd...)
	fp, bp := &LinePrinter{W: &full}, &LinePrinter{W: &brief, Brief: true}
	for _, ev := range events {
		fp.Emit(ev)
		bp.Emit(ev)
	}
	lines := strings.Split(strings.TrimSpace(full.String()), "\n")
	if got, want := brief.String(), lines[len(lines)-1]+"\n"; got != want || !strings.HasPrefix(got, "[done] ") {
		t.Fatalf("brief printer wrote %q, want only the end line %q", got, want)
	}
}

// TestLinePrinterCleansModelText: a summary the model chose cannot inject
// escape sequences or extra lines.
func TestLinePrinterCleansModelText(t *testing.T) {
	var buf bytes.Buffer
	p := &LinePrinter{W: &buf}
	p.Emit(toolDone("call_1", "query_logs", "svc\x1b[2J\nERROR\u202e since 1h", "EVIDENCE_FOUND", ""))
	want := "[tool] query_logs (svc ERROR since 1h) → EVIDENCE_FOUND\n" // the whole sequence goes: no "[2J" residue
	if got := buf.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

// TestLinePrinterWriteError keeps the first write error and stops writing.
func TestLinePrinterWriteError(t *testing.T) {
	w := &failWriter{}
	p := &LinePrinter{W: w}
	p.Emit(phaseEnd[1])
	p.Emit(phaseEnd[1])
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if w.n != 1 {
		t.Fatalf("wrote %d times after an error, want 1", w.n)
	}
}

func TestProgressLineSkipsBudget(t *testing.T) {
	if l := progressLine(budgetEv(usage(1, 1, 1, 1, 1), time.Minute)); l != "" {
		t.Fatalf("budget frame printed %q", l)
	}
	if l := progressLine(phaseStart[1]); l != "" {
		t.Fatalf("round start printed %q; only finished rounds are lines", l)
	}
}

package tui

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TestLinePrinterGolden prints the whole scripted run: one line per
// state-changing event, none for budget frames, no escape sequences.
func TestLinePrinterGolden(t *testing.T) {
	var buf bytes.Buffer
	p := &LinePrinter{W: egress.NewWriter(&buf)}
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
	fp, bp := &LinePrinter{W: egress.NewWriter(&full)}, &LinePrinter{W: egress.NewWriter(&brief), Brief: true}
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
	p := &LinePrinter{W: egress.NewWriter(&buf)}
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
	p := &LinePrinter{W: egress.NewWriter(w)}
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

// TestLinePrinterWaiting: a model call still running is reported every
// Waiting with its elapsed time, and the reports stop when it finishes; a
// brief printer and a negative Waiting report nothing.
func TestLinePrinterWaiting(t *testing.T) {
	// The printer writes under its lock, and stops its reports under it when
	// the call finishes: read after that, plain buffers need no lock.
	var out, brief, never bytes.Buffer
	const every = 100 * time.Millisecond
	p := &LinePrinter{W: egress.NewWriter(&out), Waiting: every}
	bp := &LinePrinter{W: egress.NewWriter(&brief), Brief: true, Waiting: every}
	np := &LinePrinter{W: egress.NewWriter(&never), Waiting: -1}
	started := harness.ModelRoundStarted{Meta: meta(), Seq: 3, Purpose: runrecord.PurposeFinal}
	for _, pr := range []*LinePrinter{p, bp, np} {
		pr.Emit(started)
	}
	time.Sleep(3*every + every/2)
	for _, pr := range []*LinePrinter{p, bp, np} {
		pr.Emit(roundDone(3, runrecord.PurposeFinal, 100, 10))
	}
	got := out.String()
	time.Sleep(2 * every)
	if after := out.String(); after != got {
		t.Errorf("reports went on after the call finished:\n%s", after)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) < 3 {
		t.Fatalf("want at least 2 waiting reports and the round line, got:\n%s", got)
	}
	waitLine := regexp.MustCompile(`^\[model\] round 3 \(final answer, no tools\) waiting · (\d+\.\d)s$`)
	var last float64
	for i, l := range lines[:len(lines)-1] {
		m := waitLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not a waiting report", l)
		}
		s, _ := strconv.ParseFloat(m[1], 64)
		// The n-th report comes n intervals after the start or later.
		if s < last || s < every.Seconds()*float64(i+1)-0.05 {
			t.Errorf("elapsed %v after %v: not the time since the call started", s, last)
		}
		last = s
	}
	if !strings.HasPrefix(lines[len(lines)-1], "[model] round 3 (final answer, no tools) · 110 tokens") {
		t.Errorf("last line %q, want the round's end", lines[len(lines)-1])
	}
	if brief.String() != "" || strings.Contains(never.String(), "waiting") {
		t.Errorf("brief %q, never %q: want no waiting reports", brief.String(), never.String())
	}
}

// What was found stays said: each tool line ends with the adapter's tally,
// and a cancelled run's end (the [done] line and the view's last step) says
// how many evidence calls had gathered evidence; playbook reads and refused
// calls are not counted.
func TestCancelledRunSaysWhatWasFound(t *testing.T) {
	events := []harness.Event{
		tallied(toolDone("call_1", "query_logs", "payment-service ERROR since 1h", tools.EvidenceFound, ""), "412 matched"),
		tallied(toolDone("call_2", "query_mysql", "orders: select …", tools.NoEvidence, ""), "0 rows"),
		toolDone("call_3", "query_logs", "payment-service ERROR since 1h", "", runrecord.ControlDuplicate),
		harness.RunFinished{Meta: meta(), Lifecycle: runrecord.Cancelled, StopReason: runrecord.StopCancelled, Outcome: runrecord.OutcomeCancelled, Duration: time.Second},
	}
	var buf bytes.Buffer
	p := &LinePrinter{W: egress.NewWriter(&buf)}
	var s runState
	for _, ev := range events {
		p.Emit(ev)
		s.apply(ev, time.Time{})
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "→ EVIDENCE_FOUND · 412 matched") || !strings.HasSuffix(lines[1], "→ NO_EVIDENCE · 0 rows") {
		t.Errorf("tool lines without their tallies:\n%s", buf.String())
	}
	const want = "1 of 2 tool calls had gathered evidence"
	if !strings.HasPrefix(lines[3], "[done] ✗ CANCELLED") || !strings.HasSuffix(lines[3], " · "+want) {
		t.Errorf("[done] line %q, want it to end with %q", lines[3], want)
	}
	timeline := plain(strings.Join(s.timeline(newStyles(), 100, 0), "\n"))
	if !strings.Contains(timeline, "→ EVIDENCE_FOUND · 412 matched") || !strings.Contains(timeline, "✗ run finished · CANCELLED · "+want) {
		t.Errorf("the cancelled view's timeline:\n%s", timeline)
	}
}

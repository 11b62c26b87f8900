package tui

import (
	"bytes"
	"errors"
	"strings"
	"sync"
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
// Waiting with its elapsed time, and the reports stop when it finishes (a
// report already due then, waiting for the printer's lock, writes nothing);
// a brief printer and a negative Waiting report nothing. A fake clock runs
// the reports' timers: no sleep.
func TestLinePrinterWaiting(t *testing.T) {
	var out, brief, never bytes.Buffer
	const every = 10 * time.Second
	clk := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	p := &LinePrinter{W: egress.NewWriter(&out), Waiting: every, clock: clk}
	bp := &LinePrinter{W: egress.NewWriter(&brief), Brief: true, Waiting: every, clock: clk}
	np := &LinePrinter{W: egress.NewWriter(&never), Waiting: -1, clock: clk}
	started := harness.ModelRoundStarted{Meta: meta(), Seq: 3, Purpose: runrecord.PurposeFinal}
	for _, pr := range []*LinePrinter{p, bp, np} {
		pr.Emit(started)
	}
	for range 3 {
		clk.advance(every)
	}
	due := clk.pending() // the next report, as if its timer fired just now
	if len(due) != 1 {
		t.Fatalf("%d timers pending after 3 reports, want the next report's only", len(due))
	}
	for _, pr := range []*LinePrinter{p, bp, np} {
		pr.Emit(roundDone(3, runrecord.PurposeFinal, 100, 10))
	}
	got := out.String()
	due[0]()
	clk.advance(2 * every)
	if after := out.String(); after != got {
		t.Errorf("reports went on after the call finished:\n%s", after)
	}
	if n := len(clk.pending()); n != 0 {
		t.Errorf("%d timers still pending after the call finished", n)
	}
	want := "[model] round 3 (final answer, no tools) waiting · 10.0s\n" +
		"[model] round 3 (final answer, no tools) waiting · 20.0s\n" +
		"[model] round 3 (final answer, no tools) waiting · 30.0s\n"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got:\n%s\nwant the 3 waiting reports with the time since the call started:\n%s", got, want)
	}
	if last := strings.TrimPrefix(got, want); !strings.HasPrefix(last, "[model] round 3 (final answer, no tools) · 110 tokens") || strings.Count(last, "\n") != 1 {
		t.Errorf("after the reports %q, want the round's end line only", last)
	}
	if brief.String() != "" || strings.Contains(never.String(), "waiting") {
		t.Errorf("brief %q, never %q: want no waiting reports", brief.String(), never.String())
	}
}

// fakeClock is a LinePrinter clock that moves only when advance is called,
// running the timers that fall due on the caller's goroutine.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

// fakeTimer is one fakeClock.AfterFunc.
type fakeTimer struct {
	clock *fakeClock
	at    time.Time
	f     func()
	done  bool // fired or stopped
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) stopper {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{clock: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

// advance moves the clock by d, one due timer at a time, and runs each
// timer that falls due (one started by a running timer included).
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.done && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		next.done, c.now = true, next.at
		c.mu.Unlock()
		next.f()
	}
}

// pending are the functions of the timers neither fired nor stopped; it
// marks them fired, as a timer whose function is about to run.
func (c *fakeClock) pending() []func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var fs []func()
	for _, t := range c.timers {
		if !t.done {
			t.done = true
			fs = append(fs, t.f)
		}
	}
	return fs
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

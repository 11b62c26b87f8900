package tui

import (
	"fmt"
	"sync"
	"time"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// LinePrinter is the progress reporter for a stderr that is not a terminal
// (or too narrow for the TUI): one plain line per state-changing event, no
// colour, no redraws, and nothing for BudgetChanged, so logs stay readable.
// Each line passes the egress door whole (W takes only what the policy
// made). The zero value with W set is ready; use it through a pointer.
type LinePrinter struct {
	W egress.Writer
	// Brief writes the run's end line only: a person watches stderr while
	// the report goes to a redirected stdout, and one short line is enough.
	Brief bool
	// Waiting is how often a model call still running is reported with the
	// time it has taken ("[model] round 2 waiting · 30.0s"), so a long call
	// is not mistaken for a hang; 0 means DefaultWaiting, negative never.
	Waiting time.Duration

	// clock times the waiting reports; nil is the real one (a test sets a
	// fake one, so the reports are driven without sleeping).
	clock timeSource

	mu      sync.Mutex
	err     error
	waiting stopper // reports the model call in progress; nil when none
	calls   int     // model calls started, telling a stale report from the current one
	// toolCalls and found count the evidence calls finished and those that
	// found evidence, for the [done] line of a cancelled run.
	toolCalls, found int
}

// timeSource is the time a LinePrinter reads: time.Now and time.AfterFunc.
type timeSource interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) stopper
}

// stopper is a timer started by timeSource.AfterFunc.
type stopper interface{ Stop() bool }

// realClock is the process's own timeSource.
type realClock struct{}

// Now implements timeSource.
func (realClock) Now() time.Time { return time.Now() }

// AfterFunc implements timeSource.
func (realClock) AfterFunc(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// DefaultWaiting is how often a LinePrinter reports a model call still
// running when Waiting is 0.
const DefaultWaiting = 15 * time.Second

// Emit implements harness.Sink.
func (p *LinePrinter) Emit(ev harness.Event) {
	if _, end := ev.(harness.RunFinished); p.Brief && !end {
		return
	}
	p.watch(ev)
	line := progressLine(ev)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case harness.ToolCallFinished:
		if e.Invocation.Kind == runrecord.KindEvidence {
			p.toolCalls++
			if e.Invocation.EvidenceStatus == tools.EvidenceFound {
				p.found++
			}
		}
	case harness.RunFinished:
		if e.Lifecycle == runrecord.Cancelled {
			line += " · " + gatheredWords(p.found, p.toolCalls)
		}
	}
	if line == "" {
		return
	}
	p.writeLocked(line)
}

// watch starts reporting a model call's elapsed time when it starts, and
// stops when it (or the run) finishes.
func (p *LinePrinter) watch(ev harness.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case harness.ModelRoundStarted:
		p.stopWaiting()
		every := p.Waiting
		if every == 0 {
			every = DefaultWaiting
		}
		if every < 0 {
			return
		}
		head := fmt.Sprintf("[model] round %d", e.Seq)
		if pt := purposeText(e.Purpose); pt != "" {
			head += " (" + pt + ")"
		}
		clk := p.clock
		if clk == nil {
			clk = realClock{}
		}
		p.calls++
		call, start := p.calls, clk.Now()
		var report func()
		report = func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.waiting == nil || p.calls != call {
				return // the call finished while this report waited for the lock
			}
			p.writeLocked(head + " waiting · " + seconds(clk.Now().Sub(start)))
			p.waiting = clk.AfterFunc(every, report)
		}
		p.waiting = clk.AfterFunc(every, report)
	case harness.ModelRoundFinished, harness.RunFinished:
		p.stopWaiting()
	}
}

// stopWaiting ends the report of the model call in progress; p.mu is held.
func (p *LinePrinter) stopWaiting() {
	if p.waiting != nil {
		p.waiting.Stop()
		p.waiting = nil
	}
}

// writeLocked writes one line unless an earlier write failed; p.mu is held.
func (p *LinePrinter) writeLocked(line string) {
	if p.err != nil || p.W.IsZero() {
		return
	}
	if err := p.W.Print(egress.Mask(line), egress.Const("\n")); err != nil {
		p.err = fmt.Errorf("write progress line: %w", err)
	}
}

// Err is the first write error; progress stops being written after it, and
// the caller reports it once the run is over instead of failing the run.
func (p *LinePrinter) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// progressLine is the plain text of one event, or "" for events that only
// move bars.
func progressLine(ev harness.Event) string {
	switch e := ev.(type) {
	case harness.RunStarted:
		b := e.Budget
		return fmt.Sprintf("[run] %s started · budget %d model calls, %d tool calls, %s tokens, %s bytes, %s",
			termsafe.Line(e.RunID), b.MaxModelCalls, b.MaxToolCalls, comma(b.MaxTokens), comma(b.MaxRunBytes), clock(b.Deadline))
	case harness.ModelRoundFinished:
		line := fmt.Sprintf("[model] round %d", e.Seq)
		if p := purposeText(e.Purpose); p != "" {
			line += " (" + p + ")"
		}
		if e.ErrorKind != "" {
			return line + " failed: " + termsafe.Line(e.ErrorKind) + " · " + seconds(e.Duration)
		}
		return line + " · " + comma(e.Usage.PromptTokens+e.Usage.CompletionTokens) + " tokens · " + seconds(e.Duration)
	case harness.ToolCallFinished:
		inv := e.Invocation
		line := "[tool] " + termsafe.Line(inv.Tool)
		if s := termsafe.Line(inv.Summary); s != "" {
			line += " (" + textclip.Bytes(s, harness.MaxCheckSummaryBytes) + ")"
		}
		out := inv.Outcome()
		switch {
		case inv.Kind == runrecord.KindGuidance && inv.ErrorCode != "":
			out = "playbook not loaded " + termsafe.Line(inv.ErrorCode)
		case inv.Kind == runrecord.KindGuidance:
			out = "playbook loaded"
		case out == "":
			out = inv.Status
		}
		if t := termsafe.Line(inv.Tally); t != "" {
			out += " · " + t
		}
		return line + " → " + out
	case harness.StopRequired:
		return "[stop] " + string(e.Reason)
	case harness.RunFinished:
		u := e.Usage
		return fmt.Sprintf("[done] %s %s · %d model calls, %d tool calls, %s tokens, %s",
			endMark(string(e.Lifecycle), string(e.Outcome)), statusWords(string(e.Outcome), string(e.StopReason), string(e.Lifecycle)), u.ModelCalls, u.ToolCalls, comma(u.Tokens()), seconds(e.Duration))
	}
	return ""
}

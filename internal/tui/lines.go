package tui

import (
	"fmt"
	"io"
	"sync"

	"github.com/superbiz/superbiz/internal/harness"
	"github.com/superbiz/superbiz/internal/runrecord"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/redact"
)

// LinePrinter is the progress reporter for a stderr that is not a terminal
// (or too narrow for the TUI): one plain line per state-changing event, no
// colour, no redraws, and nothing for BudgetChanged, so logs stay readable.
// The zero value with W set is ready; use it through a pointer.
type LinePrinter struct {
	W io.Writer
	// Brief writes the run's end line only: a person watches stderr while
	// the report goes to a redirected stdout, and one short line is enough.
	Brief bool

	mu  sync.Mutex
	err error
}

// Emit implements harness.Sink.
func (p *LinePrinter) Emit(ev harness.Event) {
	if _, end := ev.(harness.RunFinished); p.Brief && !end {
		return
	}
	line := progressLine(ev)
	if line == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil || p.W == nil {
		return
	}
	if _, err := io.WriteString(p.W, line+"\n"); err != nil {
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
			redact.StripControlLine(e.RunID), b.MaxModelCalls, b.MaxToolCalls, comma(b.MaxTokens), comma(b.MaxRunBytes), clock(b.Deadline))
	case harness.ModelRoundFinished:
		line := fmt.Sprintf("[model] round %d", e.Seq)
		if p := purposeText(e.Purpose); p != "" {
			line += " (" + p + ")"
		}
		if e.ErrorKind != "" {
			return line + " failed: " + redact.StripControlLine(e.ErrorKind) + " · " + seconds(e.Duration)
		}
		return line + " · " + comma(e.Usage.PromptTokens+e.Usage.CompletionTokens) + " tokens · " + seconds(e.Duration)
	case harness.ToolCallFinished:
		inv := e.Invocation
		line := "[tool] " + redact.StripControlLine(inv.Tool)
		if s := redact.StripControlLine(inv.Summary); s != "" {
			line += " (" + textclip.Bytes(s, harness.MaxCheckSummaryBytes) + ")"
		}
		out := inv.Outcome()
		switch {
		case inv.Kind == runrecord.KindGuidance:
			out = "playbook loaded"
		case out == "":
			out = inv.Status
		}
		return line + " → " + out
	case harness.StopRequired:
		return "[stop] " + string(e.Reason)
	case harness.RunFinished:
		u := e.Usage
		return fmt.Sprintf("[done] %s %s · %d model calls, %d tool calls, %s tokens, %s",
			endMark(string(e.Lifecycle), string(e.Outcome)), statusWords(string(e.Lifecycle), string(e.StopReason), string(e.Outcome)), u.ModelCalls, u.ToolCalls, comma(u.Tokens()), seconds(e.Duration))
	}
	return ""
}

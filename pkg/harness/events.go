package harness

import (
	"sync"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Meta identifies the run an event belongs to; every event carries it.
type Meta struct {
	SessionID string
	RunID     string
	At        time.Time
}

// Event is one typed notification from the engine to its observers (the UI,
// the audit hook); the engine never prints.
type Event interface{ EventMeta() Meta }

// Sink receives events. Implementations must not block the engine for long:
// a UI sink drops intermediate frames, never state-changing events.
type Sink interface{ Emit(Event) }

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(ev Event) { f(ev) }

// Sinks fans one event out to several sinks in order.
type Sinks []Sink

// Emit sends ev to every non-nil sink.
func (s Sinks) Emit(ev Event) {
	for _, k := range s {
		if k != nil {
			k.Emit(ev)
		}
	}
}

// Collector keeps every event, for tests and for replay comparison.
type Collector struct {
	mu     sync.Mutex
	events []Event
}

// Emit stores ev.
func (c *Collector) Emit(ev Event) {
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
}

// Events returns a copy of what was collected.
func (c *Collector) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// RunStarted opens a run's event stream.
type RunStarted struct {
	Meta
	Query  string
	Budget Budget
}

// ModelRoundStarted is sent before a request goes to the model.
type ModelRoundStarted struct {
	Meta
	Seq       int
	Purpose   runrecord.Purpose
	WithTools bool
}

// ModelRoundFinished carries what was sent and received, for the audit.
type ModelRoundFinished struct {
	Meta
	Seq      int
	Purpose  runrecord.Purpose
	Request  *model.Request
	Response *model.Response // nil when the round failed
	Usage    model.Usage
	Duration time.Duration
	// ErrorKind is set when the round failed (model.ErrorKind or a stop reason).
	ErrorKind string
}

// ToolCallStarted is sent when the boundary begins handling a tool call.
type ToolCallStarted struct {
	Meta
	ToolCallID string
	Tool       string
}

// ToolCallFinished reports one handled tool call with its canonical record.
type ToolCallFinished struct {
	Meta
	Invocation Invocation
}

// ToolCallProgress reports one part of a tool call that finished while the
// call runs (build_timeline: a detector's coverage and events), so a screen
// fills in before ToolCallFinished; Step's type is the tool's own.
type ToolCallProgress struct {
	Meta
	ToolCallID string
	Tool       string
	Step       tools.Step
}

// BudgetChanged reports usage after any change, for live progress bars.
type BudgetChanged struct {
	Meta
	Usage    runrecord.Usage
	Budget   Budget
	TimeLeft time.Duration
}

// StopRequired reports that the harness asked the model to stop collecting.
type StopRequired struct {
	Meta
	Reason runrecord.StopReason
}

// RunFinished closes a run's event stream with its terminal state.
type RunFinished struct {
	Meta
	Lifecycle  runrecord.Lifecycle
	StopReason runrecord.StopReason
	Usage      runrecord.Usage
	Duration   time.Duration
	// Outcome and Answer are set by the application after release.
	Outcome runrecord.Outcome
	Answer  string
}

// EventMeta implements Event.
func (e RunStarted) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e ModelRoundStarted) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e ModelRoundFinished) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e ToolCallStarted) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e ToolCallFinished) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e ToolCallProgress) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e BudgetChanged) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e StopRequired) EventMeta() Meta { return e.Meta }

// EventMeta implements Event.
func (e RunFinished) EventMeta() Meta { return e.Meta }

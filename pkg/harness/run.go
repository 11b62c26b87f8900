// Package harness owns control of one diagnosis run: its identity, clock,
// deadline, cancellation, budgets, single terminal lifecycle, the model-round
// interceptor, the ToolBoundary with its canonical invocations and progress
// protocol, and the typed events the UI and the audit hook consume. It knows
// no tool implementation, model provider, store or UI.
package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Budget is the set of hard limits one run may consume: the configuration's
// [budget] table, declared once (keys, defaults, bounds) in pkg/runrecord.
type Budget = runrecord.Budget

// DefaultBudget is the declared default budget, for tests and tools.
func DefaultBudget() Budget { return defaults.Of[Budget]() }

// Clock gives the run its notion of "now" (fixed by SUPERBIZ_NOW or replay).
type Clock interface{ Now() time.Time }

// SystemClock is the real wall clock.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// FixedClock always answers the same instant, for reproducible runs.
type FixedClock struct{ T time.Time }

// Now returns the fixed instant.
func (c FixedClock) Now() time.Time { return c.T }

// StopError is a controlled refusal of further work, carrying its reason.
type StopError struct{ Reason runrecord.StopReason }

func (e *StopError) Error() string { return "run stopped: " + string(e.Reason) }

// ReasonOf returns the StopReason carried by err, or "" when none.
func ReasonOf(err error) runrecord.StopReason {
	var se *StopError
	if errors.As(err, &se) {
		return se.Reason
	}
	return ""
}

// RunOptions configures a new RunContext.
type RunOptions struct {
	SessionID string
	RunID     string
	Budget    Budget
	Clock     Clock
	// Events receives every run event; nil drops them.
	Events Sink
	// Recorder persists model rounds and tool invocations; nil records nothing.
	Recorder Recorder
	// StoreFull says whether an error is the run store out of space; a tool
	// failing with it (the runbook index shares the store's file) ends the
	// run as an audit failure, reported as a full store, not as evidence
	// that could not be gathered. nil: no tool failure is.
	StoreFull func(error) bool
}

// RunContext is one run's explicit control object, passed to every part of
// the engine; it is never stored in a global or goroutine-local.
type RunContext struct {
	sessionID string
	runID     string
	clock     Clock
	started   time.Time // real time, for durations
	budget    Budget
	events    Sink
	recorder  Recorder
	storeFull func(error) bool

	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	usage     runrecord.Usage
	lifecycle runrecord.Lifecycle
	reason    runrecord.StopReason
	seq       int   // model round sequence
	auditErr  error // the first failure to record the audit
}

// NewRunContext starts a run under parent with its own deadline and cancel.
func NewRunContext(parent context.Context, o RunOptions) (*RunContext, error) {
	if o.SessionID == "" || o.RunID == "" {
		return nil, errors.New("new run context: session and run IDs are required")
	}
	b := o.Budget
	if b.MaxModelCalls < 1 || b.MaxToolCalls < 0 || b.MaxTokens < 1 || b.MaxRunBytes < 1 || b.Deadline <= 0 || b.MaxNoGain < 1 {
		return nil, fmt.Errorf("new run context: invalid budget %+v", b)
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	ctx, cancel := context.WithTimeout(parent, b.Deadline)
	rc := &RunContext{
		sessionID: o.SessionID, runID: o.RunID, clock: o.Clock, started: time.Now(),
		budget: b, events: o.Events, recorder: o.Recorder, storeFull: o.StoreFull, ctx: ctx, cancel: cancel, lifecycle: runrecord.Running,
	}
	return rc, nil
}

// SessionID identifies the conversation the run belongs to.
func (rc *RunContext) SessionID() string { return rc.sessionID }

// RunID identifies this run.
func (rc *RunContext) RunID() string { return rc.runID }

// Now is the run's clock reading.
func (rc *RunContext) Now() time.Time { return rc.clock.Now() }

// Budget returns the run's limits.
func (rc *RunContext) Budget() Budget { return rc.budget }

// Context is cancelled when the run is cancelled or its deadline passes.
func (rc *RunContext) Context() context.Context { return rc.ctx }

// Elapsed is the real time since the run started.
func (rc *RunContext) Elapsed() time.Duration { return time.Since(rc.started) }

// TimeLeft is the real time until the deadline (zero when past).
func (rc *RunContext) TimeLeft() time.Duration {
	d, ok := rc.ctx.Deadline()
	if !ok {
		return 0
	}
	return max(time.Until(d), 0)
}

// Release frees the run's timer; call it when the run is over.
func (rc *RunContext) Release() { rc.cancel() }

// Cancel stops the run at once: the lifecycle becomes CANCELLED (if still
// running) so a late result can no longer complete it.
func (rc *RunContext) Cancel() {
	rc.Terminate(runrecord.StopCancelled)
	rc.cancel()
}

// Usage is a consistent copy of what has been consumed, safe from any goroutine.
func (rc *RunContext) Usage() runrecord.Usage {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.usage
}

// State returns the lifecycle and the stop reason recorded with it.
func (rc *RunContext) State() (runrecord.Lifecycle, runrecord.StopReason) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.lifecycle, rc.reason
}

// Terminate performs the run's single terminal transition for reason; it
// reports false (and changes nothing) when the run already ended. It stops
// work without deciding what is published: the harness calls it (Cancel, a
// failed audit) and so does the agent for its own stops; whoever releases
// the run ends it with End, which settles the outcome (ending.go).
func (rc *RunContext) Terminate(reason runrecord.StopReason) bool {
	rc.mu.Lock()
	if rc.lifecycle != runrecord.Running {
		rc.mu.Unlock()
		return false
	}
	rc.lifecycle = lifecycleFor(reason)
	rc.reason = reason
	rc.mu.Unlock()
	return true
}

// auditFailed ends the run INTERNAL_ERROR because its audit could not be
// written, keeping the first such error for AuditError.
func (rc *RunContext) auditFailed(err error) {
	rc.mu.Lock()
	if rc.auditErr == nil {
		rc.auditErr = err
	}
	rc.mu.Unlock()
	rc.Terminate(runrecord.StopInternal)
}

// AuditError is the first failure to record the run's audit, or nil: the
// caller reports it (a full disk, say) instead of an anonymous internal error.
func (rc *RunContext) AuditError() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.auditErr
}

// interruption reports why the run may do no more work, or "" when it may.
func (rc *RunContext) interruption() runrecord.StopReason {
	if lc, r := rc.lifecycle, rc.reason; lc != runrecord.Running {
		if r == "" {
			return runrecord.StopInternal
		}
		return r
	}
	if err := rc.ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return runrecord.StopDeadline
		}
		return runrecord.StopCancelled
	}
	return ""
}

// Interrupted reports the reason the run can do no more work, or "".
func (rc *RunContext) Interrupted() runrecord.StopReason {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.interruption()
}

// BeforeModelCall reserves one model call; it refuses (with a *StopError)
// when the run is over, cancelled, past its deadline, or out of model calls
// or tokens. reserved is how many calls must stay free for later purposes.
func (rc *RunContext) BeforeModelCall(reserved int) (seq int, err error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r := rc.interruption(); r != "" {
		return 0, &StopError{Reason: r}
	}
	if rc.usage.ModelCalls+reserved >= rc.budget.MaxModelCalls {
		return 0, &StopError{Reason: runrecord.StopModelBudget}
	}
	if rc.usage.Tokens() >= rc.budget.MaxTokens {
		return 0, &StopError{Reason: runrecord.StopTokenBudget}
	}
	rc.usage.ModelCalls++
	rc.seq++
	return rc.seq, nil
}

// ModelCallsLeft is how many model calls remain, not counting reserved ones.
func (rc *RunContext) ModelCallsLeft(reserved int) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.budget.MaxModelCalls - reserved - rc.usage.ModelCalls
}

// RecordTokens charges provider-reported usage to the run.
func (rc *RunContext) RecordTokens(prompt, completion int) {
	rc.mu.Lock()
	rc.usage.PromptTokens += max(prompt, 0)
	rc.usage.CompletionTokens += max(completion, 0)
	rc.mu.Unlock()
}

// TokensLeft is what remains of the token budget (0 when it is spent),
// the bound of the next answer's length.
func (rc *RunContext) TokensLeft() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return max(rc.budget.MaxTokens-rc.usage.Tokens(), 0)
}

// TokensExhausted reports whether the token budget is spent.
func (rc *RunContext) TokensExhausted() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.usage.Tokens() >= rc.budget.MaxTokens
}

// reserveToolCall takes one tool call from the budget (ToolBoundary only).
func (rc *RunContext) reserveToolCall() error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r := rc.interruption(); r != "" {
		return &StopError{Reason: r}
	}
	if rc.usage.ToolCalls >= rc.budget.MaxToolCalls {
		return &StopError{Reason: runrecord.StopToolBudget}
	}
	rc.usage.ToolCalls++
	return nil
}

// ReserveBytes accounts n UTF-8 bytes of accepted context against
// max_run_bytes, refusing (and charging nothing) when they do not fit.
func (rc *RunContext) ReserveBytes(n int) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.usage.Bytes+n > rc.budget.MaxRunBytes {
		return &StopError{Reason: runrecord.StopByteBudget}
	}
	rc.usage.Bytes += n
	return nil
}

// emit sends ev to the run's sink, if any.
func (rc *RunContext) emit(ev Event) {
	if rc.events != nil {
		rc.events.Emit(ev)
	}
}

// Emit lets engine parts outside the harness (agent, release) report events.
func (rc *RunContext) Emit(ev Event) { rc.emit(ev) }

// meta stamps an event with the run's identity and clock.
func (rc *RunContext) meta() Meta {
	return Meta{SessionID: rc.sessionID, RunID: rc.runID, At: rc.clock.Now()}
}

// Meta exposes the event stamp for events built outside the harness.
func (rc *RunContext) Meta() Meta { return rc.meta() }

// budgetChanged emits the current usage so progress bars can move.
func (rc *RunContext) budgetChanged() {
	rc.emit(BudgetChanged{Meta: rc.meta(), Usage: rc.Usage(), Budget: rc.budget, TimeLeft: rc.TimeLeft()})
}

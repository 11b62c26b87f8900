// Package exitcode is the process exit contract of docs/SPEC.md#exit-codes:
// the codes, the error that carries one, and the one mapping from a
// finished run to its code. It sits below cmd so that the MCP service and
// the commands end the same result with the same verdict; cmd alone turns
// it into a process exit.
package exitcode

import (
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Exit codes of docs/SPEC.md#exit-codes, named so callers say what happened
// rather than which number to return.
const (
	// OK is a released SUCCESS (or a command that simply worked).
	OK = 0
	// Failed is a run that FAILED, or a check that did not pass.
	Failed = 1
	// Usage is a usage or configuration error, or input rejected before
	// any model call.
	Usage = 2
	// Fallback is a run that finished honestly without a conclusion.
	Fallback = 3
	// Unavailable is a model or required backend that cannot be reached.
	Unavailable = 4
	// Cancelled is a run interrupted by the user (128 + SIGINT); a run
	// cancelled by SIGTERM or SIGHUP exits 128 + that signal (143, 129).
	Cancelled = 130
)

// Error lets a use case return an ordinary error that also carries the
// process exit code, so the root command alone decides what is printed and
// how the process ends, and the MCP service shows the same message.
type Error struct {
	// Code is the process exit code.
	Code int
	// Err is the message printed once as "superbiz: <Err>"; nil prints
	// nothing (the command already reported, e.g. doctor's check lines).
	Err error
	// Usage asks the root to print the command's short usage line after the
	// message: set only for mistakes in how the command was typed.
	Usage bool
}

func (e *Error) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Usagef reports a mistake in the command line: exit 2 and the usage line.
func Usagef(format string, args ...any) error {
	return &Error{Code: Usage, Err: fmt.Errorf(format, args...), Usage: true}
}

// Config reports a configuration problem: exit 2 without the usage line,
// since the command line itself was fine.
func Config(err error) error {
	return &Error{Code: Usage, Err: err}
}

// Cancel is the one error of a command that Ctrl-C or SIGTERM stopped;
// stored names what was kept as CANCELLED ("the run", "the turn"), or is ""
// when the command stores nothing.
func Cancel(stored string) *Error {
	msg := "cancelled"
	if stored != "" {
		msg += "; " + stored + " is stored as CANCELLED"
	}
	return &Error{Code: Cancelled, Err: errors.New(msg)}
}

// OfRun is the one mapping from a finished run to its exit code
// (docs/SPEC.md#exit-codes), used by diagnose, chat (line mode and the
// screen), replay, both terminal UIs and the MCP diagnose tool: SUCCESS 0,
// FALLBACK 3, CANCELLED 130 (the root turns it into 143 or 129 for SIGTERM
// or SIGHUP); a FAILED run is 2 for input rejected before any model call, 4
// when the model failed (stop reason MODEL_UNAVAILABLE, or a typed model
// error, as when the router could not reach the model), else 1.
func OfRun(out usecase.Output) int {
	switch out.ReleaseOutcome {
	case runrecord.OutcomeSuccess:
		return OK
	case runrecord.OutcomeFallback:
		return Fallback
	case runrecord.OutcomeCancelled:
		return Cancelled
	}
	switch {
	case out.StopReason == runrecord.StopInputRejected:
		return Usage
	case out.StopReason == runrecord.StopModelUnavailable, out.ModelError != nil:
		return Unavailable
	}
	return Failed
}

// StoreFailure reports a run store that ran out of space as exactly that:
// exit 1, the path named, what to do; no answer is printed, since the run
// could not be stored whole. Any other error is returned unchanged.
func StoreFailure(path string, err error) error {
	if err == nil || !runstore.IsFull(err) {
		return err
	}
	return &Error{Code: Failed, Err: fmt.Errorf("the run store %s is full (no space left on its disk): %w\nhint: free space on that disk, or point --db / SUPERBIZ_DB at another one; nothing was printed because the run could not be stored whole", path, err)}
}

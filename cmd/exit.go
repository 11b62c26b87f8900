package cmd

import (
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Exit codes of docs/SPEC.md#exit-codes, named so commands say what happened rather
// than which number to return.
const (
	// ExitOK is a released SUCCESS (or a command that simply worked).
	ExitOK = 0
	// ExitFailed is a run that FAILED, or a check that did not pass.
	ExitFailed = 1
	// ExitUsage is a usage or configuration error, or input rejected before
	// any model call.
	ExitUsage = 2
	// ExitFallback is a run that finished honestly without a conclusion.
	ExitFallback = 3
	// ExitUnavailable is a model or required backend that cannot be reached.
	ExitUnavailable = 4
	// ExitCancelled is a run interrupted by the user (128 + SIGINT); a run
	// cancelled by SIGTERM or SIGHUP exits 128 + that signal (143, 129).
	ExitCancelled = 130
)

// ExitError lets a command return an ordinary error that also carries the
// process exit code, so the root alone decides what is printed and how the
// process ends.
type ExitError struct {
	// Code is the process exit code.
	Code int
	// Err is the message printed once as "superbiz: <Err>"; nil prints
	// nothing (the command already reported, e.g. doctor's check lines).
	Err error
	// Usage asks the root to print the command's short usage line after the
	// message: set only for mistakes in how the command was typed.
	Usage bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageErrorf reports a mistake in the command line: exit 2 and the usage line.
func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...), Usage: true}
}

// configError reports a configuration problem: exit 2 without the usage line,
// since the command line itself was fine.
func configError(err error) error {
	return &ExitError{Code: ExitUsage, Err: err}
}

// exitCode maps any error a command returned to the process exit code and
// says whether the usage line should follow the message.
func exitCode(err error) (code int, usage bool) {
	if err == nil {
		return ExitOK, false
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, ee.Usage
	}
	var ce *integration.ConfigError
	if errors.As(err, &ce) {
		// An integration refused its configuration (an entry, a credential).
		return ExitUsage, false
	}
	var nf *notfound.Error
	if errors.As(err, &nf) {
		// A name that names nothing: the choices are in the message.
		return ExitUsage, false
	}
	return ExitFailed, false
}

// outcomeExit is the one mapping from a finished run to its exit code
// (docs/SPEC.md#exit-codes), used by diagnose, chat (line mode and the
// screen), replay and both terminal UIs: SUCCESS 0, FALLBACK 3, CANCELLED
// 130 (the root turns it into 143 or 129 for SIGTERM or SIGHUP); a FAILED
// run is 2 for input rejected before any model call, 4 when the model failed
// (stop reason MODEL_UNAVAILABLE, or a typed model error, as when the router
// could not reach the model), else 1.
func outcomeExit(out usecase.Output) int {
	switch out.ReleaseOutcome {
	case runrecord.OutcomeSuccess:
		return ExitOK
	case runrecord.OutcomeFallback:
		return ExitFallback
	case runrecord.OutcomeCancelled:
		return ExitCancelled
	}
	switch {
	case out.StopReason == runrecord.StopInputRejected:
		return ExitUsage
	case out.StopReason == runrecord.StopModelUnavailable, out.ModelError != nil:
		return ExitUnavailable
	}
	return ExitFailed
}

// cancelled is the one error of a command that Ctrl-C or SIGTERM stopped;
// stored names what was kept as CANCELLED ("the run", "the turn"), or is
// "" when the command stores nothing.
func cancelled(stored string) *ExitError {
	msg := "cancelled"
	if stored != "" {
		msg += "; " + stored + " is stored as CANCELLED"
	}
	return &ExitError{Code: ExitCancelled, Err: errors.New(msg)}
}

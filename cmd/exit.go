package cmd

import (
	"errors"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/usecase"
)

// Exit codes of docs/SPEC.md#exit-codes (internal/exitcode), named so
// commands say what happened rather than which number to return.
const (
	ExitOK          = exitcode.OK
	ExitFailed      = exitcode.Failed
	ExitUsage       = exitcode.Usage
	ExitFallback    = exitcode.Fallback
	ExitUnavailable = exitcode.Unavailable
	ExitCancelled   = exitcode.Cancelled
)

// ExitError is an error carrying the process exit code (exitcode.Error):
// the root alone decides what is printed and how the process ends.
type ExitError = exitcode.Error

// usageErrorf reports a mistake in the command line: exit 2 and the usage line.
func usageErrorf(format string, args ...any) error { return exitcode.Usagef(format, args...) }

// configError reports a configuration problem: exit 2 without the usage line.
func configError(err error) error { return exitcode.Config(err) }

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

// outcomeExit is a finished run's exit code (exitcode.OfRun).
func outcomeExit(out usecase.Output) int { return exitcode.OfRun(out) }

// cancelled is the one error of a command that Ctrl-C or SIGTERM stopped
// (exitcode.Cancel).
func cancelled(stored string) *ExitError { return exitcode.Cancel(stored) }

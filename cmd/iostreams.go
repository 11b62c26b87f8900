package cmd

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams is the one place that knows where input and output go and what
// they are connected to, so commands decide TUI versus plain text, colour and
// marks from it instead of probing os.Stdout, and tests inject buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InTTY, OutTTY and ErrTTY say whether each stream is a terminal.
	InTTY, OutTTY, ErrTTY bool
	// Color says whether ANSI colour may be written (a terminal, NO_COLOR
	// unset, TERM not "dumb").
	Color bool
}

// newIOStreams wraps the given streams; a stream is a terminal only when it
// is an *os.File attached to one, so buffers in tests are never terminals.
func newIOStreams(in io.Reader, out, errOut io.Writer, getenv func(string) string) *IOStreams {
	s := &IOStreams{
		In:     in,
		Out:    out,
		ErrOut: errOut,
		InTTY:  isTerminal(in),
		OutTTY: isTerminal(out),
		ErrTTY: isTerminal(errOut),
	}
	s.Color = (s.OutTTY || s.ErrTTY) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	return s
}

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

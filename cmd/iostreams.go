package cmd

import (
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/mattn/go-isatty"
	"golang.org/x/term"
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

// OutColumns is stdout's terminal width, so tables can fit it; 0 when stdout
// is not a terminal (piped or redirected output keeps every cell whole) or
// its size cannot be read.
func (s *IOStreams) OutColumns() int {
	if !s.OutTTY {
		return 0
	}
	f, ok := s.Out.(*os.File)
	if !ok {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// DarkBackground says whether colour output is drawn for a dark terminal
// background, without asking the terminal again: bubbletea v1's package
// init already asked (lipgloss's default renderer on stdout, answer cached),
// and a second query on stderr would hold the full-screen view for
// termenv's 5 s timeout on a terminal that does not answer. Without colour
// nothing depends on the answer.
func (s *IOStreams) DarkBackground() bool {
	if !s.Color {
		return true
	}
	return lipgloss.HasDarkBackground()
}

package cmd

import (
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/superbiz/superbiz/internal/tui/termquery"
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

	// askColour says whether TERM names a terminal that can answer the
	// background-colour query; dark is its answer once asked.
	askColour bool
	// colorFGBG is $COLORFGBG ("15;0"): the background some terminals
	// state without answering the query, used when no answer came.
	colorFGBG string
	// colourWait bounds the wait for the terminal's answer
	// (termquery.WaitFor: longer over SSH).
	colourWait time.Duration
	dark       *bool
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
	s.askColour = termquery.CanAnswer(getenv("TERM"))
	s.colorFGBG = getenv("COLORFGBG")
	s.colourWait = termquery.WaitFor(getenv)
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
// background. The first call with colour on asks the terminal (stdin and a
// terminal output, TERM not dumb, screen or tmux), waiting at most
// termquery.WaitFor; later calls reuse the answer. No answer, or a terminal
// that cannot be asked, leaves it to $COLORFGBG when that names a
// background, else to the default: dark. Without colour nothing depends on
// the answer and nothing is asked.
func (s *IOStreams) DarkBackground() bool {
	if !s.Color {
		return true
	}
	if s.dark == nil {
		dark := s.askDark()
		s.dark = &dark
	}
	return *s.dark
}

// askDark asks the terminal once; without an answer, $COLORFGBG decides
// when it names a background, else the default, dark.
func (s *IOStreams) askDark() bool {
	if dark, err := s.queryDark(); err == nil {
		return dark
	}
	if dark, ok := termquery.EnvDark(s.colorFGBG); ok {
		return dark
	}
	return true
}

// queryDark asks the terminal when it can answer; ErrNoAnswer when it is
// not asked.
func (s *IOStreams) queryDark() (bool, error) {
	in, ok := s.In.(*os.File)
	if !ok || !s.InTTY || !s.askColour {
		return false, termquery.ErrNoAnswer
	}
	out, ok := s.ErrOut.(*os.File)
	if !s.ErrTTY || !ok {
		if out, ok = s.Out.(*os.File); !s.OutTTY || !ok {
			return false, termquery.ErrNoAnswer
		}
	}
	return termquery.DarkBackground(in, out, s.colourWait)
}

package cmd

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"

	"github.com/superbiz/superbiz/pkg/egress"
)

// IOStreams is the one place that knows where input and output go and what
// they are connected to, so commands decide TUI versus plain text, colour and
// marks from it instead of probing os.Stdout, and tests inject buffers. Out
// and ErrOut are egress doors: they print only what the egress policy made
// (docs/ARCHITECTURE.md "The door"), and the raw streams stay inside them.
type IOStreams struct {
	In     io.Reader
	Out    egress.Writer
	ErrOut egress.Writer

	// InTTY, OutTTY and ErrTTY say whether each stream is a terminal.
	InTTY, OutTTY, ErrTTY bool
	// Color says whether ANSI colour may be written (a terminal, NO_COLOR
	// unset, TERM not "dumb").
	Color bool

	// colorFGBG is $COLORFGBG ("15;0"): the background some terminals
	// state in the environment.
	colorFGBG string
	// outFd and errFd are the terminal descriptors of stdout and stderr,
	// for their sizes; -1 when the stream is not a terminal.
	outFd, errFd int
}

// newIOStreams wraps the given streams; a stream is a terminal only when it
// is an *os.File attached to one, so buffers in tests are never terminals.
func newIOStreams(in io.Reader, out, errOut io.Writer, getenv func(string) string) *IOStreams {
	s := &IOStreams{
		In:     in,
		Out:    egress.NewWriter(out),
		ErrOut: egress.NewWriter(errOut),
		InTTY:  isTerminal(in),
		OutTTY: isTerminal(out),
		ErrTTY: isTerminal(errOut),
		outFd:  terminalFd(out),
		errFd:  terminalFd(errOut),
	}
	s.Color = (s.OutTTY || s.ErrTTY) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
	s.colorFGBG = getenv("COLORFGBG")
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

// terminalFd is the descriptor of a stream that is a terminal, -1 otherwise.
func terminalFd(v any) int {
	if !isTerminal(v) {
		return -1
	}
	return int(v.(*os.File).Fd())
}

// columns is the width of the terminal on fd, 0 when unknown.
func columns(fd int) int {
	if fd < 0 {
		return 0
	}
	w, _, err := term.GetSize(fd)
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

// ErrColumns is stderr's terminal width, 0 when stderr is not a terminal or
// its size cannot be read.
func (s *IOStreams) ErrColumns() int {
	if !s.ErrTTY {
		return 0
	}
	return columns(s.errFd)
}

// OutColumns is stdout's terminal width, so tables can fit it; 0 when stdout
// is not a terminal (piped or redirected output keeps every cell whole) or
// its size cannot be read.
func (s *IOStreams) OutColumns() int {
	if !s.OutTTY {
		return 0
	}
	return columns(s.outFd)
}

// DarkBackground says whether colour output starts out drawn for a dark
// terminal background, from the environment alone: $COLORFGBG when it names
// a background, else dark. Nothing asks the terminal here: a command's start
// and printed output never wait on it. The full-screen views ask it
// themselves once they run (bubbletea's background request, answered as a
// message) and follow its answer.
func (s *IOStreams) DarkBackground() bool {
	if dark, ok := envDark(s.colorFGBG); ok {
		return dark
	}
	return true
}

// envDark reads $COLORFGBG ("fg;bg" or "fg;default;bg", as rxvt and
// Konsole set it): the last field is an ANSI colour, dark for 0-6 (HSL
// lightness under one half). ok is false when it names no colour.
func envDark(colorFGBG string) (dark, ok bool) {
	i := strings.LastIndexByte(colorFGBG, ';')
	if i < 0 {
		return false, false
	}
	n, err := strconv.Atoi(colorFGBG[i+1:])
	if err != nil || n < 0 || n > 15 {
		return false, false
	}
	return n <= 6, true
}

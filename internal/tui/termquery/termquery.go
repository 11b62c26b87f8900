// Package termquery asks the terminal for its background colour with a short
// bound, for the views whose colours depend on it. Its init also ends the
// quiet of internal/termquiet: importing bubbletea, it runs after bubbletea's
// init (whose own query termquiet kept from the terminal), puts TERM back and
// recomputes termenv's default colour profile, which termenv took from the
// hidden TERM.
package termquery

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/charmbracelet/bubbletea" // this init must follow bubbletea's colour query
	"github.com/muesli/termenv"
	"github.com/superbiz/superbiz/internal/termquiet"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func init() {
	termquiet.Restore()
	out := termenv.DefaultOutput()
	out.Profile = out.EnvColorProfile()
}

// Wait bounds how long a view waits for a local terminal's colour answer:
// a terminal that does not answer costs this, not termenv's 5 s.
const Wait = 100 * time.Millisecond

// WaitRemote bounds the wait over SSH, where the answer takes a network
// round trip: an answer that comes after the bound reaches the view as
// typed text (bubbletea reads the OSC 11 reply as keys), so the bound must
// cover the round trips on-call engineers have.
const WaitRemote = time.Second

// WaitFor is the bound for the session getenv describes: WaitRemote when
// SSH_TTY or SSH_CONNECTION says the terminal is across a network.
func WaitFor(getenv func(string) string) time.Duration {
	if getenv("SSH_TTY") != "" || getenv("SSH_CONNECTION") != "" {
		return WaitRemote
	}
	return Wait
}

// query asks for the background colour (OSC 11) and then the device
// attributes (DA1), which every terminal answers, after the colour if at all.
const query = "\x1b]11;?\x1b\\\x1b[c"

// ErrNoAnswer is returned when the terminal gave no background colour in
// time; the caller keeps its default.
var ErrNoAnswer = errors.New("the terminal gave no background colour")

// CanAnswer says whether a terminal of this TERM can answer the query; like
// termenv, dumb, screen and tmux (shared by several terminals) are not asked.
func CanAnswer(term string) bool {
	for _, p := range []string{"dumb", "screen", "tmux"} {
		if strings.HasPrefix(term, p) {
			return false
		}
	}
	return true
}

// DarkBackground asks the terminal on in (read, put in raw mode meanwhile)
// and out (written) for its background colour and says whether it is dark,
// waiting at most wait (WaitFor); ErrNoAnswer when it did not answer in
// time.
func DarkBackground(in, out *os.File, wait time.Duration) (bool, error) {
	fd := int(in.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return false, fmt.Errorf("terminal raw mode: %w", err)
	}
	defer func() { _ = term.Restore(fd, state) }() // the tty goes back to how it was; nothing to do if it cannot
	if _, err := out.WriteString(query); err != nil {
		return false, fmt.Errorf("colour query: %w", err)
	}
	answer, err := readAnswer(fd, time.Now().Add(wait))
	if err != nil {
		return false, err
	}
	r, g, b, ok := parseOSC11(answer)
	if !ok {
		return false, ErrNoAnswer
	}
	return lightness(r, g, b) < 0.5, nil
}

// EnvDark reads $COLORFGBG ("fg;bg" or "fg;default;bg", as rxvt and
// Konsole set it), the fallback termenv used when the terminal did not
// answer: the last field is an ANSI colour, dark for 0-6 (the same HSL
// lightness rule as an answer). ok is false when it names no colour.
func EnvDark(colorFGBG string) (dark, ok bool) {
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

// readAnswer reads from fd until the DA1 reply ends the answers or the
// deadline passes.
func readAnswer(fd int, deadline time.Time) ([]byte, error) {
	var got []byte
	buf := make([]byte, 256)
	for !da1Done(got) {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("waiting for the colour answer: %w", err)
		}
		if n == 0 {
			break
		}
		m, err := unix.Read(fd, buf)
		if err != nil {
			return nil, fmt.Errorf("reading the colour answer: %w", err)
		}
		if m == 0 {
			break // hang-up: what came so far is all there is
		}
		got = append(got, buf[:m]...)
	}
	return got, nil
}

// da1Done says whether the device-attributes reply (ESC [ ? … c) has come.
func da1Done(b []byte) bool {
	i := bytes.Index(b, []byte("\x1b[?"))
	return i >= 0 && bytes.IndexByte(b[i:], 'c') >= 0
}

// parseOSC11 reads the colour of "ESC ] 11 ; rgb:RRRR/GGGG/BBBB" (1 to 4
// hex digits a channel, ended by BEL or ESC \) as fractions of full scale.
func parseOSC11(b []byte) (r, g, bl float64, ok bool) {
	const head = "\x1b]11;rgb:"
	i := bytes.Index(b, []byte(head))
	if i < 0 {
		return 0, 0, 0, false
	}
	rest := b[i+len(head):]
	end := bytes.IndexAny(rest, "\x07\x1b")
	if end < 0 {
		return 0, 0, 0, false
	}
	parts := strings.Split(string(rest[:end]), "/")
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	var c [3]float64
	for k, p := range parts {
		if len(p) < 1 || len(p) > 4 {
			return 0, 0, 0, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return 0, 0, 0, false
		}
		c[k] = float64(v) / float64(uint64(1)<<(4*len(p))-1)
	}
	return c[0], c[1], c[2], true
}

// lightness is HSL lightness, termenv's measure of a dark background.
func lightness(r, g, b float64) float64 {
	return (max(r, g, b) + min(r, g, b)) / 2
}

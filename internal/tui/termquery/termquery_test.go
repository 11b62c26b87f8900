package termquery

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/ptytest"
	"golang.org/x/sys/unix"
)

// The process's TERM is as it was started after package init, set or unset,
// so code and child processes never see the value that hid it from bubbletea.
func TestTERMRestored(t *testing.T) {
	if os.Getenv("TERMQUERY_CHILD") == "1" {
		v, ok := os.LookupEnv("TERM")
		os.Stdout.WriteString("TERM=" + strconv.Quote(v) + " set=" + strconv.FormatBool(ok) + "\n")
		return
	}
	for _, tt := range []struct {
		env  []string
		want string
	}{
		{[]string{"TERM=xterm-256color"}, `TERM="xterm-256color" set=true`},
		{[]string{"TERM="}, `TERM="" set=true`},
		{nil, `TERM="" set=false`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTERMRestored$")
		cmd.Env = append([]string{"TERMQUERY_CHILD=1", "PATH=" + os.Getenv("PATH")}, tt.env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("started with %q: got %q, want %s", tt.env, out, tt.want)
		}
	}
}

func TestCanAnswer(t *testing.T) {
	for term, want := range map[string]bool{
		"xterm-256color": true, "": true, "alacritty": true,
		"dumb": false, "screen-256color": false, "tmux-256color": false, "screen": false,
	} {
		if got := CanAnswer(term); got != want {
			t.Errorf("CanAnswer(%q) = %v, want %v", term, got, want)
		}
	}
}

func TestParseOSC11(t *testing.T) {
	for _, tt := range []struct {
		in   string
		ok   bool
		dark bool
	}{
		{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62c", true, false},
		{"\x1b]11;rgb:0000/0000/0000\x07", true, true},
		{"\x1b]11;rgb:fd/f6/e3\x07", true, false}, // solarized light, 2 digits
		{"\x1b]11;rgb:0/2/3\x07", true, true},     // 1 digit a channel
		{"\x1b]11;rgb:7fff/7fff/7fff\x07", true, true},
		{"\x1b]11;rgb:8000/8000/8000\x07", true, false},
		{"\x1b[?62;22c", false, false},               // DA1 only: no colour support
		{"\x1b]11;rgb:ffff/ffff\x07", false, false},  // two channels
		{"\x1b]11;rgb:fffff/0/0\x07", false, false},  // five digits
		{"\x1b]11;rgb:ffff/ffff/ffff", false, false}, // unterminated
		{"\x1b]11;rgb:gggg/0000/0000\x07", false, false},
	} {
		r, g, b, ok := parseOSC11([]byte(tt.in))
		if ok != tt.ok || (ok && (lightness(r, g, b) < 0.5) != tt.dark) {
			t.Errorf("%q: ok %v dark %v, want ok %v dark %v", tt.in, ok, lightness(r, g, b) < 0.5, tt.ok, tt.dark)
		}
	}
}

// DarkBackground on a real pseudo-terminal: the answer decides, a terminal
// that answers only the device attributes or nothing at all is ErrNoAnswer,
// and the terminal's mode is restored afterwards.
func TestDarkBackgroundPty(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		dark         bool
		err          error
	}{
		{"light", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62c", false, nil},
		{"dark", "\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?62c", true, nil},
		{"no colour", "\x1b[?62c", false, ErrNoAnswer},
		{"silent", "", false, ErrNoAnswer},
	} {
		t.Run(tt.name, func(t *testing.T) {
			master, slave := ptytest.Open(t)
			before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			asked := make(chan string, 1)
			go func() {
				buf := make([]byte, 64)
				n, _ := master.Read(buf)
				asked <- string(buf[:n])
				if tt.answer != "" {
					_, _ = master.WriteString(tt.answer)
				}
			}()
			dark, err := DarkBackground(slave, slave, Wait)
			if q := <-asked; !strings.Contains(q, "\x1b]11;?") {
				t.Errorf("query written %q, want OSC 11", q)
			}
			if !errors.Is(err, tt.err) || (err == nil && dark != tt.dark) {
				t.Errorf("dark %v err %v, want %v %v", dark, err, tt.dark, tt.err)
			}
			after, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if after.Lflag != before.Lflag {
				t.Errorf("terminal mode not restored: lflag %#x, was %#x", after.Lflag, before.Lflag)
			}
		})
	}
}

// $COLORFGBG names the background by its last field, an ANSI colour: dark
// for 0-6 by HSL lightness (grey 8 has lightness 0.5: light, as termenv
// judges it); anything else names none.
func TestEnvDark(t *testing.T) {
	cases := []struct {
		in       string
		dark, ok bool
	}{
		{"15;0", true, true},
		{"0;15", false, true},
		{"0;default;15", false, true},
		{"7;6", true, true},
		{"0;7", false, true},
		{"0;8", false, true},
		{"", false, false},
		{"15", false, false},
		{"15;default", false, false},
		{"15;16", false, false},
		{"15;-1", false, false},
	}
	for _, c := range cases {
		dark, ok := EnvDark(c.in)
		if dark != c.dark || ok != c.ok {
			t.Errorf("EnvDark(%q) = %v, %v; want %v, %v", c.in, dark, ok, c.dark, c.ok)
		}
	}
}

// Over SSH the wait covers a network round trip; locally it stays short.
func TestWaitFor(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want time.Duration
	}{
		{map[string]string{}, Wait},
		{map[string]string{"SSH_TTY": "/dev/pts/3"}, WaitRemote},
		{map[string]string{"SSH_CONNECTION": "10.0.0.5 52814 10.0.0.9 22"}, WaitRemote},
		{map[string]string{"TERM": "xterm-256color"}, Wait},
	}
	for _, c := range cases {
		if got := WaitFor(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("WaitFor(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

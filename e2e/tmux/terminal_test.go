package tmux

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/ptytest"
	"golang.org/x/sys/unix"

	"github.com/superbiz/superbiz/internal/testenv"
)

// osc11 is the terminal background-colour query (either terminator).
const osc11 = "\x1b]11;?"

// ptyRun runs shell under script(1): a pseudo-terminal for stdin, stdout
// and stderr that nobody answers, as under a hook runner or a bare ssh -tt.
// It returns everything written to the terminal.
func ptyRun(t *testing.T, shell string) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		testenv.Missing(t, "script(1) not installed", "util-linux's script ships with Debian (bsdutils)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", shell, "/dev/null")
	cmd.Stdin = nil // script reads /dev/null: no answer ever comes
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("took %v", time.Since(start))
	if err != nil {
		t.Fatalf("script: %v\n%q", err, out)
	}
	return string(out)
}

// The terminal's background colour on a pseudo-terminal (one build for all
// cases): see the subtests' functions.
func TestTerminalColourQueryInPty(t *testing.T) {
	testenv.SkipShort(t, "builds the binary and runs it on a pseudo-terminal")
	bin := build(t)
	t.Run("diagnose", func(t *testing.T) { diagnoseAsksOnce(t, bin) })
	t.Run("version", func(t *testing.T) { versionAsksNothing(t, bin) })
	t.Run("palette", func(t *testing.T) { answerPicksPalette(t, bin) })
	t.Run("no_color", func(t *testing.T) { noColorToTheEnd(t, bin) })
}

// sgrColour matches an SGR sequence that sets a foreground or background
// colour (30-37, 38;…, 39, 40-47, 48;…, 49, 90-97, 100-107).
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9]*;)*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9]*)*m`)

// With NO_COLOR=1 nothing the full-screen diagnosis writes sets a colour:
// neither the live screen nor the final screen it prints into the
// scrollback when the run ends (bubbletea prints that frame as given, and
// it came back with a green EVIDENCE_FOUND and a coloured budget panel).
// Without NO_COLOR the same run is coloured, so the check can see colour.
func noColorToTheEnd(t *testing.T, bin string) {
	out := ptyRun(t, demoCommand(t, bin)+" diagnose")
	if !strings.Contains(out, "exit 0 · SUCCESS · COMPLETED") {
		t.Fatalf("the full-screen diagnosis did not finish on the terminal:\n%q", tail(out))
	}
	if m := sgrColour.FindAllString(out, 5); len(m) > 0 {
		t.Errorf("NO_COLOR=1: the diagnosis wrote colour sequences %q; the end of its output:\n%q", m, tail(out))
	}
	coloured := ptyRun(t, strings.Replace(demoCommand(t, bin), " NO_COLOR=1", "", 1)+" diagnose")
	if !sgrColour.MatchString(coloured) {
		t.Errorf("without NO_COLOR the diagnosis wrote no colour, so the check above proves nothing:\n%q", tail(coloured))
	}
}

// On a terminal that never answers, the full-screen view asks for the
// background colour once (bubbletea's request, sent when the view starts;
// nothing waits for the answer) and still draws. With TERM=dumb (no colour)
// nothing is asked.
func diagnoseAsksOnce(t *testing.T, bin string) {
	for _, tt := range []struct {
		term    string
		queries int
	}{{"xterm-256color", 1}, {"dumb", 0}} {
		t.Run(tt.term, func(t *testing.T) {
			// With colour on, the view needs the background (the Markdown style).
			c := strings.Replace(demoCommand(t, bin), "TERM=xterm-256color NO_COLOR=1", "TERM="+tt.term, 1)
			out := ptyRun(t, c+" diagnose")
			if !strings.Contains(out, "exit 0 · SUCCESS · COMPLETED") {
				t.Fatalf("the full-screen diagnosis did not finish on the terminal:\n%q", tail(out))
			}
			if n := strings.Count(out, osc11); n != tt.queries {
				t.Errorf("TERM=%s: %d background-colour queries, want %d", tt.term, n, tt.queries)
			}
		})
	}
}

// A command without a full-screen view never asks the terminal for its
// colour: bubbletea v1's package init used to, waiting 5 s on a terminal
// that does not answer, before `superbiz version` printed a line (see also
// e2e's TestNoTerminalQueryWithoutView, for every kind of query).
func versionAsksNothing(t *testing.T, bin string) {
	out := ptyRun(t, "env -i PATH=$PATH TERM=xterm-256color "+bin+" version")
	if !strings.Contains(out, "superbiz ") {
		t.Fatalf("version printed nothing on the terminal:\n%q", out)
	}
	if n := strings.Count(out, osc11); n != 0 {
		t.Errorf("superbiz version wrote %d background-colour queries to the terminal, want none:\n%q", n, out)
	}
}

// A terminal that answers the colour query with white gets the light
// palette: the report's headings are drawn in the light accent (256-colour
// 27), never the dark one (39); one that answers black gets the dark one.
func answerPicksPalette(t *testing.T, bin string) {
	for _, tt := range []struct {
		name, rgb, want, not string
	}{
		{"light", "ffff/ffff/ffff", "38;5;27m", "38;5;39m"},
		{"dark", "0000/0000/0000", "38;5;39m", "38;5;27m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := strings.Replace(demoCommand(t, bin), " NO_COLOR=1", "", 1)
			out := answeringPty(t, c+" diagnose", "\x1b]11;rgb:"+tt.rgb+"\x1b\\")
			if !strings.Contains(out, "exit 0 · SUCCESS · COMPLETED") {
				t.Fatalf("the full-screen diagnosis did not finish on the terminal:\n%q", tail(out))
			}
			if n := strings.Count(out, osc11); n != 1 {
				t.Errorf("%d background-colour queries, want 1", n)
			}
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.not) {
				t.Errorf("%s terminal: want heading colour %q and never %q:\n%q", tt.name, tt.want, tt.not, tail(out))
			}
		})
	}
}

// answeringPty runs shell on a pseudo-terminal (stdin, stdout and stderr)
// that answers each background-colour query with answer and the device
// attributes, as a terminal does, and returns everything written to it.
func answeringPty(t *testing.T, shell, answer string) string {
	t.Helper()
	master, slave := ptytest.Open(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", shell)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = slave.Close() // the child holds it; reading the master ends when the child does
	var out []byte
	buf := make([]byte, 4096)
	answered := 0
	for {
		n, err := master.Read(buf)
		out = append(out, buf[:n]...)
		for answered < strings.Count(string(out), osc11) {
			answered++
			if _, err := master.WriteString(answer + "\x1b[?62;22c"); err != nil {
				t.Fatal(err)
			}
		}
		if err != nil { // EIO once the child and its descendants closed the terminal
			break
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%q", err, tail(string(out)))
	}
	return string(out)
}

// tail is the end of a long terminal capture, for a failure message.
func tail(s string) string {
	return s[max(len(s)-2000, 0):]
}

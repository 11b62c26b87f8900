package tmux

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// osc11 is the terminal background-colour query (termenv's form).
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

// On a terminal that never answers, the full-screen view asks no colour
// question of its own: the one OSC 11 query is bubbletea v1's package init
// (on stdout, answer cached and reused), where before the view asked again
// on stderr and waited termenv's 5 s for it. With TERM=dumb nothing is asked.
func TestTerminalColourQueryInPty(t *testing.T) {
	testenv.SkipShort(t, "builds the binary and runs it on a pseudo-terminal")
	bin := build(t)
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

// tail is the end of a long terminal capture, for a failure message.
func tail(s string) string {
	return s[max(len(s)-2000, 0):]
}

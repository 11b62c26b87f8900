package tmux

import (
	"strings"
	"testing"
	"time"
)

// `superbiz mcp` started by hand on a terminal says on stderr that it waits
// for an MCP client and how to connect one (it looked hung: nothing on the
// screen), and Ctrl-C with no call in flight ends it quietly: exit 130, no
// SDK error line, no claim that calls were stored CANCELLED.
func TestMCPOnATerminal(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := session(t, tmux, demoCommand(t, bin)+" mcp; echo EXIT=$?; sleep 60")
	p.waitFor(`waits for an MCP client`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "C-c")
	screen := p.waitFor(`EXIT=\d+`, 20*time.Second)
	t.Logf("screen:\n%s", screen)
	if !strings.Contains(screen, "EXIT=130") {
		t.Errorf("Ctrl-C with no call in flight: want exit 130\n%s", screen)
	}
	for _, bad := range []string{"level=ERROR", "CANCELLED", "cancelled"} {
		if strings.Contains(screen, bad) {
			t.Errorf("Ctrl-C with no call in flight printed %q:\n%s", bad, screen)
		}
	}
	if !strings.Contains(strings.ReplaceAll(screen, "\n", ""), "inspector superbiz mcp") {
		t.Errorf("the notice does not say how to connect a client:\n%s", screen)
	}
}

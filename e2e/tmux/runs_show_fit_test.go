package tmux

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// `runs show`'s tool table on an 80- and a 120-column terminal fits as
// `runs` fits: no line of it wraps (it wrapped mid-word at both widths),
// SEQ, TOOL and OUTCOME are kept and INPUT is cut with …; -o wide on the
// same terminal shows every column with the whole input.
func TestRunsShowFitInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	c := demoCommand(t, bin)
	if out, err := exec.Command("sh", "-c", c+" diagnose -o json").CombinedOutput(); err != nil {
		t.Fatalf("diagnose --demo: %v\n%s", err, out)
	}
	section := func(screen string) []string {
		_, s, _ := strings.Cut(screen, "Tool invocations\n----------------\n")
		s, _, _ = strings.Cut(s, "\nModel rounds")
		return strings.Split(strings.TrimSpace(s), "\n")
	}
	for _, width := range []int{80, 120} {
		name := sessionName(t.TempDir())
		p := pane{t: t, tmux: tmux, name: name}
		p.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(width), "-y", "30", c+" runs show last; echo FITTED; "+c+" runs show last -o wide; echo EXIT=$?; sleep 60")
		t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })
		p.waitFor(`EXIT=0`, 30*time.Second)
		joined := p.run("capture-pane", "-p", "-J", "-S", "-", "-t", name) // wrapped lines joined back, with the scrollback
		fitted, wide, _ := strings.Cut(joined, "\nFITTED\n")
		lines := section(fitted)
		t.Logf("%d columns:\n%s", width, strings.Join(lines, "\n"))
		if len(lines) < 5 || !strings.HasPrefix(lines[0], "SEQ") || !strings.Contains(lines[0], "TOOL") || !strings.Contains(lines[0], "OUTCOME") || !strings.HasSuffix(strings.TrimSpace(lines[0]), "INPUT") {
			t.Fatalf("%d columns: want a header SEQ … TOOL … OUTCOME … INPUT and the calls:\n%s", width, fitted)
		}
		cut := false
		for _, l := range lines {
			if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
				t.Errorf("%d columns: a line of %d wrapped: %q", width, n, l)
			}
			cut = cut || strings.HasSuffix(strings.TrimRight(l, " "), "…")
		}
		if !cut {
			t.Errorf("%d columns: no input was cut with …", width)
		}
		wl := section(wide)
		if len(wl) == 0 || !strings.Contains(wl[0], "TOOL CALL ID") || !strings.Contains(wl[0], "KIND") || !strings.Contains(wl[0], "DURATION") ||
			!strings.Contains(strings.Join(wl, "\n"), `demo service=payment-service ERROR "connection is not available" since 1h`) {
			t.Errorf("%d columns: -o wide lacks a column or a whole input:\n%s", width, strings.Join(wl, "\n"))
		}
	}
}

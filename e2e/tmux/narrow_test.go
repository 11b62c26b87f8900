package tmux

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// noWrappedLine fails for each line of joined (capture-pane -J: the lines
// the terminal wrapped joined back) wider than width.
func noWrappedLine(t *testing.T, joined string, width int) {
	t.Helper()
	for _, l := range strings.Split(joined, "\n") {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
			t.Errorf("a line of %d columns wrapped in a %d-column terminal: %q", n, width, l)
		}
	}
}

// At 80 columns the live view's tool lines keep what was asked: the status
// word shrinks (EVIDENCE_FOUND to found) before the argument is cut, and
// the tally's first words stay (issue 40 #13).
func TestToolLineAt80InTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := session80(t, tmux, demoCommand(t, bin)+" diagnose; echo EXIT=$?; sleep 60")
	p.waitFor(`EXIT=\d+`, 30*time.Second)
	joined := p.run("capture-pane", "-p", "-J", "-S", "-", "-t", p.name)
	t.Logf("80 columns:\n%s", joined)
	noWrappedLine(t, joined, 80)
	for _, re := range []string{
		`↳ query_logs  demo service=payment-service ERROR "\S+… → found · 190 matched\n`,
		`↳ query_mysql  orders: select ts, duration_ms, \S+… → found · 5 rows\n`,
	} {
		if !regexp.MustCompile(re).MatchString(joined) {
			t.Errorf("no tool line matches %q", re)
		}
	}
}

// doctor at 80 columns wraps its details and hints at spaces, each
// continuation under the first line's text (a hanging indent), never
// inside a word such as --host/OLLAMA_HOST (issue 40 #13).
func TestDoctorAt80InTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := session80(t, tmux, demoCommand(t, bin)+" doctor; echo EXIT=$?; sleep 60")
	screen := p.waitFor(`EXIT=\d+`, 30*time.Second)
	t.Logf("80 columns:\n%s", screen)
	noWrappedLine(t, p.run("capture-pane", "-p", "-J", "-S", "-", "-t", p.name), 80)
	// the column the details start in: after the mark, the check names
	// padded to the longest and two spaces
	first := regexp.MustCompile(`(?m)^✓ config( +)\S`).FindStringSubmatch(screen)
	if first == nil {
		t.Fatalf("no config line:\n%s", screen)
	}
	indent := len("✓ config") - len("✓") + 1 + len(first[1])
	hint := regexp.MustCompile(`(?m)^( *)hint: start Ollama with ` + "`ollama serve`" + ` or set\s+--host/OLLAMA_HOST`).FindStringSubmatch(screen)
	if hint == nil || len(hint[1]) != indent {
		t.Errorf("the ollama hint is not indented to column %d with --host/OLLAMA_HOST whole:\n%s", indent, screen)
	}
	var continued int
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, strings.Repeat(" ", indent)) && !strings.HasPrefix(strings.TrimSpace(l), "hint:") {
			continued++
			if strings.HasPrefix(l, strings.Repeat(" ", indent+1)) {
				t.Errorf("a continuation line is not under the text: %q", l)
			}
		}
	}
	if continued < 3 {
		t.Errorf("want the long details and hints continued under their first line, found %d continuation lines:\n%s", continued, screen)
	}
}

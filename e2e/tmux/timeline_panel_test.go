package tmux

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// `diagnose --demo` on an 80-column terminal with NO_COLOR shows the
// timeline panel of the transcript's build_timeline call while the run is
// live and keeps it on the final screen: its events in time order (the
// payment-service deploy at 13:58:21 first, the error burst at 14:00),
// every line of the box whole within 80 columns, and no colour.
func TestDemoTimelinePanelInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	name := sessionName(t.TempDir())
	p := pane{t: t, tmux: tmux, name: name}
	p.run("new-session", "-d", "-s", name, "-x", "80", "-y", "50", demoCommand(t, bin)+" diagnose; echo EXIT=$?; sleep 60")
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })

	live := p.waitFor(`Timeline 13:00–15:00 UTC · \d+ detectors?, \d+ events?`, 30*time.Second)
	if strings.Contains(live, "EXIT=") {
		t.Fatalf("the run had ended when the panel was first seen; the live screen never showed it:\n%s", live)
	}
	t.Logf("live:\n%s", live)
	p.waitFor(`EXIT=\d+`, 60*time.Second)
	all := p.run("capture-pane", "-p", "-e", "-S", "-300", "-t", name)
	text := regexp.MustCompile(`\x1b\[[0-9;:?]*[A-Za-z]`).ReplaceAllString(all, "")
	t.Logf("final:\n%s", text)
	if !strings.Contains(text, "EXIT=0") {
		t.Fatal("the demo did not exit 0")
	}
	head := strings.Index(text, "Timeline 13:00–15:00 UTC · 3 detectors, 5 events · done")
	if head < 0 {
		t.Fatal("the final screen lacks the finished panel's header")
	}
	var rows []string
	for _, l := range strings.Split(text[head:], "\n")[1:] {
		if strings.HasPrefix(l, "╰") {
			break
		}
		rows = append(rows, l)
	}
	want := []string{`^│ 13:58:21 deploy +payment-service started version 2\.14\.0 \(was 2\.13\.4\)`, `^│ 14:00:00 error_burst +gateway +errors rose from 0 to`,
		`^│ 14:00:10 new_error `, `^│ 14:00:13 new_error `, `^│ 14:00:13 new_error `}
	if len(rows) != len(want) {
		t.Fatalf("the panel shows %d rows, want %d:\n%s", len(rows), len(want), strings.Join(rows, "\n"))
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(rows[i]) || !strings.HasSuffix(rows[i], "│") || utf8.RuneCountInString(rows[i]) != 80 {
			t.Fatalf("panel row %d is not %q in a whole 80-column box line:\n%q", i+1, re, rows[i])
		}
	}
	// NO_COLOR: the panel's lines carry no colour (bold is not a colour)
	colour := regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m`)
	for _, l := range strings.Split(all, "\n") {
		if strings.Contains(l, "13:58:21 deploy") && colour.MatchString(l) {
			t.Fatalf("NO_COLOR=1: a panel line is coloured: %q", l)
		}
	}
}

// `chat --demo` on an 80×40 terminal with NO_COLOR: the demo question is
// routed to a diagnosis whose first round builds the timeline, and the
// chat screen shows that call's panel while the turn runs (over the input
// line that says the turn is answering), then keeps the finished panel
// under the answer, every box line whole within 80 columns.
func TestChatDemoTimelinePanelInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := sessionSized(t, tmux, demoCommand(t, bin)+" chat; echo EXIT=$?; sleep 60", 80, 40)
	p.waitFor(`tab fills the demo question`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "Tab")
	p.waitFor(`› payment timeouts on order-service since 14:00`, 10*time.Second)
	p.run("send-keys", "-t", p.name, "Enter")

	live := p.waitFor(`Timeline 13:00–15:00 UTC · \d+ detectors?, \d+ events?`, 30*time.Second)
	t.Logf("live:\n%s", live)
	if !strings.Contains(live, "input is back when the turn ends") {
		t.Fatalf("the panel was first seen after the turn ended; the live screen never showed it:\n%s", live)
	}
	done := p.waitFor(`References[\s\S]*Timeline 13:00–15:00 UTC · \d+ detectors, \d+ events · done[\s\S]*tab fills the demo question`, 60*time.Second)
	t.Logf("answered:\n%s", done)
	lines := strings.Split(done, "\n")
	head := -1
	for i, l := range lines {
		if strings.Contains(l, "Timeline 13:00–15:00 UTC") {
			head = i
		}
	}
	var rows []string
	for _, l := range lines[head+1:] {
		if strings.HasPrefix(l, "╰") {
			break
		}
		rows = append(rows, l)
	}
	if len(rows) == 0 || !regexp.MustCompile(`^│ 13:58:21 `).MatchString(rows[0]) {
		t.Fatalf("the kept panel does not start with the 13:58:21 start-up:\n%s", strings.Join(rows, "\n"))
	}
	for i, r := range rows {
		if !strings.HasPrefix(r, "│ ") || !strings.HasSuffix(r, "│") || utf8.RuneCountInString(r) > 80 {
			t.Fatalf("panel row %d is not a whole box line within 80 columns: %q", i+1, r)
		}
	}
	p.run("send-keys", "-t", p.name, "C-d")
	if end := p.waitFor(`EXIT=\d+`, 20*time.Second); !strings.Contains(end, "EXIT=0") {
		t.Fatalf("the chat did not exit 0:\n%s", end)
	}
}

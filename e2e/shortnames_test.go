package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestShortNames: `last`, `last~N` and unique prefixes name runs in runs
// show and replay, and sessions in runs --session and chat --session; an
// ambiguous prefix lists its matches (exit 2), a too short one and last~N
// past the oldest say why (exit 2).
func TestShortNames(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	first := decodeOutput(t, e.run(t, "diagnose", "--demo", "-o", "json"))
	second := decodeOutput(t, e.run(t, "diagnose", "--demo", "-o", "json"))
	showID := func(args ...string) string {
		t.Helper()
		r := e.run(t, append([]string{"runs", "show", "-o", "json"}, args...)...)
		var d struct {
			RunID string `json:"run_id"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &d) != nil {
			t.Fatalf("runs show %q: %s", args, r)
		}
		return d.RunID
	}
	if got := showID("last"); got != second.RunID {
		t.Errorf("runs show last: %s, want the newest %s", got, second.RunID)
	}
	if got := showID("last~1"); got != first.RunID {
		t.Errorf("runs show last~1: %s, want %s", got, first.RunID)
	}
	common := 0
	for common < len(first.RunID) && first.RunID[common] == second.RunID[common] {
		common++
	}
	unique := second.RunID[:max(common+1, 6)]
	if got := showID(unique); got != second.RunID {
		t.Errorf("runs show %s: %s, want %s", unique, got, second.RunID)
	}
	if got := showID(strings.TrimPrefix(unique, "r_") + second.RunID[len(unique):len(unique)+1]); got != second.RunID {
		t.Errorf("a prefix without r_ names %s, want %s", got, second.RunID)
	}
	// IDs begin with their time: two runs a second apart share at least
	// r_ and four characters (their first 6 change every three days).
	if common < 6 {
		t.Fatalf("%s and %s share %d characters, want at least 6", first.RunID, second.RunID, common)
	}
	r := e.run(t, "runs", "show", first.RunID[:common])
	if r.code != 2 || !strings.Contains(r.stderr, "is ambiguous: it names "+second.RunID+", "+first.RunID+"; give more characters") {
		t.Errorf("an ambiguous prefix: %s", r)
	}
	for _, tc := range []struct{ ref, want string }{
		{"r_0", "a prefix names one from 6 characters on"},
		{"last~5", "the store has fewer than 6 runs"},
		{"last~x", "after last~ give how many to go back"},
	} {
		if r := e.run(t, "runs", "show", tc.ref); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("runs show %s: want exit 2 and %q: %s", tc.ref, tc.want, r)
		}
	}

	rep := e.run(t, "replay", "last~1", "-o", "json")
	var report struct {
		Original string `json:"original_run_id"`
	}
	if rep.code != 0 || json.Unmarshal([]byte(rep.stdout), &report) != nil || report.Original != first.RunID {
		t.Errorf("replay last~1: want a replay of %s: %s", first.RunID, rep)
	}

	list := e.run(t, "runs", "--session", "last~1", "-o", "json")
	var runs []struct {
		RunID     string `json:"run_id"`
		SessionID string `json:"session_id"`
	}
	if list.code != 0 || json.Unmarshal([]byte(list.stdout), &runs) != nil || len(runs) != 1 || runs[0].RunID != first.RunID {
		t.Errorf("runs --session last~1: want the first run alone: %s", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, out, errOut := e.command(ctx, "chat", "--demo", "--session", "last", "-o", "json")
	c.Stdin = strings.NewReader("hello\n")
	runErr := c.Run()
	chat := result{args: c.Args, code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
	var turn struct {
		SessionID string `json:"session_id"`
	}
	if runErr != nil || json.Unmarshal([]byte(strings.TrimSpace(chat.stdout)), &turn) != nil || turn.SessionID != second.SessionID {
		t.Errorf("chat --session last: want the turn in %s: %s", second.SessionID, chat)
	}
}

// TestRunNumbers: runs lists each run's number first, and the number names
// the run in runs show, replay and eval pack (issue 40 #7: IDs made within
// the hour share their first 8+ characters); a number no run has is exit 2
// saying which numbers there are.
func TestRunNumbers(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	first := decodeOutput(t, e.run(t, "diagnose", "--demo", "-o", "json"))
	second := decodeOutput(t, e.run(t, "diagnose", "--demo", "-o", "json"))
	list := e.run(t, "runs")
	lines := strings.Split(strings.TrimSpace(list.stdout), "\n")
	if list.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "#  RUN ") ||
		!strings.HasPrefix(lines[1], "2  "+second.RunID+" ") || !strings.HasPrefix(lines[2], "1  "+first.RunID+" ") {
		t.Errorf("runs: want # first, 2 for the newest and 1 for the first:\n%s", list)
	}
	var listed []struct {
		RunID  string `json:"run_id"`
		Number int    `json:"number"`
	}
	if r := e.run(t, "runs", "-o", "json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &listed) != nil || len(listed) != 2 || listed[0].Number != 2 || listed[1].Number != 1 {
		t.Errorf("runs -o json: want numbers 2 and 1: %s", r)
	}
	show := e.run(t, "runs", "show", "1")
	if show.code != 0 || !strings.HasPrefix(show.stdout, "Run 1 · "+first.RunID+"\n") {
		t.Errorf("runs show 1: want the first run, titled by number and ID: %s", show)
	}
	rep := e.run(t, "replay", "1", "-o", "json")
	var report struct {
		Original string `json:"original_run_id"`
	}
	if rep.code != 0 || json.Unmarshal([]byte(rep.stdout), &report) != nil || report.Original != first.RunID {
		t.Errorf("replay 1: want a replay of %s: %s", first.RunID, rep)
	}
	// The replay is run 3.
	if r := e.run(t, "runs", "show", "3", "-o", "json"); r.code != 0 || !strings.Contains(r.stdout, `"replay_of": "`+first.RunID+`"`) {
		t.Errorf("runs show 3: want the replay: %s", r)
	}
	// replay last, right after a replay, replays the newest original (run 2),
	// not the replay (issue 40 #17).
	if again := e.run(t, "replay", "last", "-o", "json"); again.code != 0 || json.Unmarshal([]byte(again.stdout), &report) != nil || report.Original != second.RunID {
		t.Errorf("replay last after a replay: want a replay of %s, the newest original: %s", second.RunID, again)
	}
	// eval pack resolves 2 to the second run, and refuses it as a demo run.
	if pack := e.run(t, "eval", "pack", "2", "--dir", t.TempDir(), "--root-cause", "connection pool"); pack.code != 2 || !strings.Contains(pack.stderr, "run "+second.RunID+" was made on the built-in demo workspace") {
		t.Errorf("eval pack 2: want the second run %s named: %s", second.RunID, pack)
	}
	if r := e.run(t, "runs", "show", "9"); r.code != 2 || !strings.Contains(r.stderr, "the store's runs are numbered 1 to 4") {
		t.Errorf("runs show 9: want exit 2 naming the numbers there are: %s", r)
	}
}

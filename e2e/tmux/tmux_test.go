// Package tmux drives the real superbiz binary in a real terminal (tmux)
// against the Ollama test server: what a person sees in `superbiz chat`.
package tmux

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// needTmux skips on a developer machine without tmux, and fails under CI.
func needTmux(t *testing.T) string {
	t.Helper()
	testenv.SkipShort(t, "builds the binary and drives it in tmux")
	path, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux not installed", ".ci/run installs tmux")
	}
	return path
}

func build(t *testing.T) string {
	t.Helper()
	asked.Store(true)
	b, err := binary()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, b.out)
	}
	return b.path
}

// built is the package's one binary: its path, the directory that holds
// only it (the tests that put it on a shell's PATH need that), and what
// go build printed.
type built struct {
	path, dir string
	out       []byte
}

// binary builds the binary once for the whole package, on first use (a
// run whose tests all skip builds nothing): about twenty tests drive it,
// and a build each took most of the package's time (40–55 s each on a
// loaded two-core machine). TestMain removes it.
var binary = sync.OnceValues(func() (built, error) {
	dir, err := os.MkdirTemp("", "superbiz-tmux-bin-")
	if err != nil {
		return built{}, err
	}
	b := built{path: filepath.Join(dir, "superbiz"), dir: dir}
	cmd := exec.Command("go", "build", "-o", b.path, "github.com/superbiz/superbiz")
	cmd.Env = testenv.BuildEnv() // without CI's -race: the binary a user builds
	b.out, err = cmd.CombinedOutput()
	return b, err
})

// asked says a test asked for the binary, so TestMain has one to remove
// (and calling binary then builds nothing).
var asked atomic.Bool

func TestMain(m *testing.M) {
	code := m.Run()
	if asked.Load() {
		if b, _ := binary(); b.dir != "" {
			_ = os.RemoveAll(b.dir)
		}
	}
	os.Exit(code)
}

// scriptedModel routes every message to DIAGNOSIS; the checkout question
// gets one real query_logs call and a no-conclusion draft, slowly enough to
// watch; the latency question never answers in time (it gets cancelled).
func scriptedModel(t *testing.T) *ollamatest.Server {
	srv := ollamatest.New(t)
	srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		if strings.Contains(string(req.Format), `"intent"`) {
			return ollamatest.Turn{Content: []string{`{"intent":"DIAGNOSIS"}`}}
		}
		user := req.Messages[1].Content
		if strings.Contains(user, "latency") {
			return ollamatest.Turn{Content: []string{"{}"}, FirstByteDelay: 60 * time.Second}
		}
		tools := toolResults(req)
		if tools == 0 {
			return ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_tmux0001", Name: "query_logs",
				Args: `{"input":{"service":"payment-service","level":"ERROR","since":"1h","limit":5}}`}},
				PromptEvalCount: 3000, EvalCount: 40, FirstByteDelay: 1500 * time.Millisecond}
		}
		return ollamatest.Turn{Content: []string{`{"conclusion":null,"analysis":[{"type":"FINDING","claim":"payment-service logged connection pool timeouts","scope":"payment-service ERROR logs 14:00-15:00","tool_call_ids":["call_tmux0001"]}],"action_plan":[],"recommendations":[],"limitations":{"scope":"payment-service ERROR logs for the last hour","missing_info":["database metrics"]}}`},
			PromptEvalCount: 4000, EvalCount: 200, FirstByteDelay: 1500 * time.Millisecond}
	})
	return srv
}

// toolResults counts the tool results a request carries: how many calls
// the scripted model has had answered so far.
func toolResults(req ollamatest.ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

type pane struct {
	t    *testing.T
	tmux string
	name string
}

func (p pane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, args...).CombinedOutput()
	// A new session asked for while the tmux server is exiting (the
	// previous test killed its last session a moment ago) is refused with
	// "server exited unexpectedly"; the next attempt starts a new server.
	for try := 0; err != nil && len(args) > 0 && args[0] == "new-session" &&
		strings.Contains(string(out), "server exited unexpectedly") && try < 20; try++ {
		time.Sleep(100 * time.Millisecond)
		out, err = exec.Command(p.tmux, args...).CombinedOutput()
	}
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p pane) screen() string { return p.run("capture-pane", "-p", "-t", p.name) }

// waitFor polls the screen until re matches, and returns that screen.
func (p pane) waitFor(re string, timeout time.Duration) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(timeout)
	var s string
	for time.Now().Before(deadline) {
		s = p.screen()
		if rx.MatchString(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("screen never matched %q; last screen:\n%s", re, s)
	return ""
}

func TestChatInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	srv := scriptedModel(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "superbiz.db")
	name := sessionName(dir)
	p := pane{t: t, tmux: tmux, name: name}
	shell := cleanEnv(dir) + bin + " chat --demo --db " + db + " --host " + srv.URL() +
		"; echo EXIT=$?; sleep 60"
	p.run("new-session", "-d", "-s", name, "-x", "110", "-y", "40", shell)
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })

	p.waitFor(`(?i)message|›|>`, 20*time.Second)
	p.run("send-keys", "-t", name, "-l", "why do checkout payments fail since 14:00?")
	p.run("send-keys", "-t", name, "Enter")

	first := p.waitFor(`model calls[^\n]*\d/8`, 20*time.Second)
	later := p.waitFor(`tool calls[^\n]*1/6`, 20*time.Second)
	t.Logf("budget panel while the turn runs:\n%s", later)
	if first == later {
		t.Fatal("the budget panel did not move")
	}
	answer := p.waitFor(`DIAGNOSIS`+`(.|\n)*`+`(?i)no conclusion`, 30*time.Second)
	t.Logf("answer screen:\n%s", answer)

	p.run("send-keys", "-t", name, "-l", "why is latency high on the gateway?")
	p.run("send-keys", "-t", name, "Enter")
	p.waitFor(`waiting for the model`, 20*time.Second)
	p.run("send-keys", "-t", name, "C-c")
	cancelled := p.waitFor(`CANCELLED`, 20*time.Second)
	t.Logf("cancelled screen:\n%s", cancelled)

	p.run("send-keys", "-t", name, "C-d")
	p.waitFor(`EXIT=0`, 20*time.Second)

	ctx := context.Background()
	store, err := runstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.ListRuns(ctx, runstore.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("stored %d runs, want 2", len(runs))
	}
	if runs[0].Status != runrecord.RunStatusCancelled || runs[0].ReleaseOutcome != runrecord.OutcomeCancelled {
		b, _ := json.Marshal(runs[0])
		t.Fatalf("newest run is not CANCELLED: %s", b)
	}
	if runs[1].ReleaseOutcome != runrecord.OutcomeFallback || runs[1].Intent != runrecord.IntentDiagnosis || runs[0].SessionID != runs[1].SessionID {
		t.Fatalf("first run: %+v", runs[1])
	}
}

// sessionName names a tmux session after a test's temporary directory: its
// parent is unique to the test (TempDir's own base, "001", is not), so
// test processes sharing the tmux server (another package, another
// checkout) never collide on a name.
func sessionName(dir string) string {
	return "superbiz-e2e-" + strings.NewReplacer("_", "", ".", "").Replace(filepath.Base(filepath.Dir(dir))+filepath.Base(dir))
}

// session starts shell in a new tmux session of its own, killed at the end.
func session(t *testing.T, tmux, shell string) pane {
	t.Helper()
	return sessionSized(t, tmux, shell, 110, 40)
}

// session80 is session on an 80-column terminal, the narrowest a person
// is expected to use.
func session80(t *testing.T, tmux, shell string) pane {
	t.Helper()
	return sessionSized(t, tmux, shell, 80, 60)
}

// sessionSized is session on a terminal of the given columns and rows.
func sessionSized(t *testing.T, tmux, shell string, columns, rows int) pane {
	t.Helper()
	name := sessionName(t.TempDir())
	p := pane{t: t, tmux: tmux, name: name}
	p.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(columns), "-y", strconv.Itoa(rows), shell)
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })
	return p
}

// superbizPID is the process the pane's shell started (its only child).
func (p pane) superbizPID() int {
	p.t.Helper()
	shellPID := strings.TrimSpace(p.run("display-message", "-p", "-t", p.name, "#{pane_pid}"))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("pgrep", "-P", shellPID).Output()
		if f := strings.Fields(string(out)); len(f) == 1 {
			pid, err := strconv.Atoi(f[0])
			if err == nil {
				return pid
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("no superbiz process under the pane's shell %s", shellPID)
	return 0
}

// lastRun is the newest run of the store at db.
func lastRun(t *testing.T, db string) runstore.RunSummary {
	t.Helper()
	ctx := context.Background()
	store, err := runstore.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runs, err := store.ListRuns(ctx, runstore.ListFilter{})
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs: %v (%d)", err, len(runs))
	}
	return runs[0]
}

// Cancelling the diagnose screen ends the process with the code of how it
// was cancelled (q: 130; SIGTERM: 143; SIGHUP: 129; SIGINT: 130) and the run
// stored CANCELLED by the process itself.
func TestDiagnoseCancelInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal // 0: press q
		code int
	}{{"q", 0, 130}, {"SIGTERM", syscall.SIGTERM, 143}, {"SIGHUP", syscall.SIGHUP, 129}, {"SIGINT", syscall.SIGINT, 130}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := scriptedModel(t)
			dir := t.TempDir()
			db := filepath.Join(dir, "superbiz.db")
			shell := cleanEnv(dir) + bin + " diagnose --demo --db " + db + " --host " + srv.URL() +
				" 'why is latency high on the gateway?'; echo EXIT=$?; sleep 60"
			p := session(t, tmux, shell)
			p.waitFor(`waiting for the model`, 20*time.Second)
			if tc.sig == 0 {
				p.run("send-keys", "-t", p.name, "q")
			} else if err := syscall.Kill(p.superbizPID(), tc.sig); err != nil {
				t.Fatalf("kill: %v", err)
			}
			screen := p.waitFor(`EXIT=\d+`, 20*time.Second)
			if !strings.Contains(screen, "EXIT="+strconv.Itoa(tc.code)) {
				t.Fatalf("want EXIT=%d; screen:\n%s", tc.code, screen)
			}
			if r := lastRun(t, db); r.Status != runrecord.RunStatusCancelled || r.ReleaseOutcome != runrecord.OutcomeCancelled {
				t.Fatalf("stored run %+v, want CANCELLED", r)
			}
			reliability.Record(t, reliability.SectionMutation, "diagnose TUI: exit "+strconv.Itoa(tc.code)+" and CANCELLED stored on "+tc.name, map[string]any{"test": t.Name()})
		})
	}
}

// SIGTERM to the chat screen while a turn runs: the turn is stored
// CANCELLED before the process exits 143.
func TestChatSIGTERMInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	srv := scriptedModel(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "superbiz.db")
	shell := cleanEnv(dir) + bin + " chat --demo --db " + db + " --host " + srv.URL() +
		"; echo EXIT=$?; sleep 60"
	p := session(t, tmux, shell)
	p.waitFor(`(?i)message|›|>`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "-l", "why is latency high on the gateway?")
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`waiting for the model`, 20*time.Second)
	if err := syscall.Kill(p.superbizPID(), syscall.SIGTERM); err != nil {
		t.Fatalf("kill: %v", err)
	}
	screen := p.waitFor(`EXIT=\d+`, 20*time.Second)
	if !strings.Contains(screen, "EXIT=143") {
		t.Fatalf("want EXIT=143; screen:\n%s", screen)
	}
	if r := lastRun(t, db); r.Status != runrecord.RunStatusCancelled || r.ReleaseOutcome != runrecord.OutcomeCancelled {
		t.Fatalf("stored run %+v, want CANCELLED", r)
	}
	reliability.Record(t, reliability.SectionMutation, "chat TUI: exit 143 and the running turn stored CANCELLED on SIGTERM", map[string]any{"test": t.Name()})
}

// cleanEnv starts a command line with a clean environment whose home, data
// and config directories are dir.
func cleanEnv(dir string) string {
	return "env -i PATH=" + os.Getenv("PATH") + " HOME=" + dir + " TERM=xterm-256color NO_COLOR=1" +
		" XDG_DATA_HOME=" + dir + " XDG_CONFIG_HOME=" + dir + " "
}

// demoCommand is bin with --demo in a clean environment of its own, a store
// in a temporary directory and no model (an address that cannot answer).
func demoCommand(t *testing.T, bin string) string {
	dir := t.TempDir()
	return "env -i PATH=" + os.Getenv("PATH") + " HOME=" + dir + " TERM=xterm-256color NO_COLOR=1" +
		" XDG_DATA_HOME=" + dir + " XDG_CONFIG_HOME=" + dir + " XDG_CACHE_HOME=" + dir + " " + bin +
		" --demo --db " + filepath.Join(dir, "superbiz.db") + " --host " + testenv.ClosedURL(t)
}

// On a terminal the scripted demo is paced: the budget panel is seen part
// way (a tool call counted, the run not finished) and the run takes seconds.
func TestDemoPacedInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := session(t, tmux, demoCommand(t, bin)+" diagnose; echo EXIT=$?; sleep 60")
	start := time.Now()
	p.waitFor(`playing the scripted demo transcript…`, 20*time.Second)
	mid := p.waitFor(`tool calls[^\n]*[1-3]/6`, 20*time.Second)
	if strings.Contains(mid, "EXIT=") {
		t.Fatalf("the run had ended when the panel was first seen:\n%s", mid)
	}
	end := p.waitFor(`EXIT=\d+`, 30*time.Second)
	took := time.Since(start)
	t.Logf("panel part way:\n%s\nend after %v:\n%s", mid, took, end)
	if !strings.Contains(end, "EXIT=0") {
		t.Fatalf("want EXIT=0; screen:\n%s", end)
	}
	if took < time.Second {
		t.Errorf("the demo ended %v after the panel was first seen; paced it takes about 3 s", took)
	}
}

// The full-screen chat on the demo's scripted model: /help is answered
// locally, Ctrl-C at an empty prompt hints and a second one quits, the
// conversation and the resume command stay in the scrollback, and
// `chat --continue` shows the past turns above the prompt.
func TestChatKeepsConversationInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	env := demoCommand(t, bin)
	p := session(t, tmux, env+" chat; echo EXIT=$?; sleep 60")
	p.waitFor(`enter send`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "-l", "/help")
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`/runs\s+the runs of this session`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "-l", "hello")
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`\[SYSTEM_CHAT\] SUCCESS · run r_`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "Tab")
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`References(.|\n)*runbooks/zh/payment-timeout\.md`, 30*time.Second)
	p.run("send-keys", "-t", p.name, "C-c")
	p.waitFor(`ctrl\+d quits \(or ctrl\+c again\)`, 10*time.Second)
	p.run("send-keys", "-t", p.name, "C-c")
	end := p.waitFor(`EXIT=\d+`, 20*time.Second)
	t.Logf("after quitting:\n%s", end)
	m := regexp.MustCompile(`session (s_\w+)(?: · |\s*\n)resume with: superbiz chat --session (s_\w+)`).FindStringSubmatch(end)
	if !strings.Contains(end, "EXIT=0") || m == nil || m[1] != m[2] {
		t.Fatalf("the conversation, the session and its resume command are not left on the screen:\n%s", end)
	}
	// the answer left in the scrollback is drawn for the terminal, as on
	// the screen, not Markdown the terminal wraps (issue 40 #12)
	if strings.Contains(end, "## ") || !regexp.MustCompile(`(?m)^  References\s*\n  ──────────`).MatchString(end) {
		t.Fatalf("the diagnosis left in the scrollback is raw Markdown, or its headings are not drawn:\n%s", end)
	}
	all := p.run("capture-pane", "-p", "-J", "-S", "-200", "-t", p.name)
	if !strings.Contains(all, "› hello") || !strings.Contains(all, "[SYSTEM_CHAT] SUCCESS · run r_") || !strings.Contains(all, "[DIAGNOSIS] SUCCESS · run r_") {
		t.Fatalf("the turns are not in the scrollback:\n%s", all)
	}

	q := session(t, tmux, env+" chat --continue; echo EXIT=$?; sleep 60")
	resumed := q.waitFor(`enter send`, 20*time.Second)
	t.Logf("resumed:\n%s", resumed)
	// the past turns end with the diagnosis, the screen with its references
	if !strings.Contains(resumed, "(runbooks/zh/payment-timeout.md)") {
		t.Fatalf("chat --continue does not show the past turn:\n%s", resumed)
	}
	q.run("send-keys", "-t", q.name, "C-d")
	if end := q.waitFor(`EXIT=\d+`, 20*time.Second); !strings.Contains(end, "resume with: superbiz chat --session "+m[1]) {
		t.Fatalf("the resumed chat did not keep session %s:\n%s", m[1], end)
	}
}

// At 80 columns the session and its resume command, left in the scrollback
// when chat closes, are two whole lines: the one-line form (88 columns and
// more) used to wrap inside the session ID.
func TestChatResumeLineAt80InTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	p := session80(t, tmux, demoCommand(t, bin)+" chat; echo EXIT=$?; sleep 60")
	p.waitFor(`enter send`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "-l", "hello")
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`\[SYSTEM_CHAT\] SUCCESS · run r_`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "C-d")
	end := p.waitFor(`EXIT=\d+`, 20*time.Second)
	id := regexp.MustCompile(`(?m)^session (s_\w+)\s*$`).FindStringSubmatch(end)
	resume := regexp.MustCompile(`(?m)^resume with: superbiz chat --session (s_\w+) --demo`).FindStringSubmatch(end)
	if !strings.Contains(end, "EXIT=0") || id == nil || resume == nil || id[1] != resume[1] {
		t.Fatalf("want the session and its resume command on two whole lines at 80 columns:\n%s", end)
	}
}

// With the report redirected (stdout a file, stderr the terminal), the report
// goes to the file only and the terminal gets one short end line.
func TestDiagnoseRedirectedInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	report := filepath.Join(t.TempDir(), "report.md")
	p := session(t, tmux, demoCommand(t, bin)+" diagnose > "+report+"; echo EXIT=$?; sleep 60")
	screen := p.waitFor(`EXIT=\d+`, 30*time.Second)
	t.Logf("terminal:\n%s", screen)
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	// a report for a file is plain text: headings underlined, no Markdown
	if !strings.Contains(screen, "EXIT=0") || !strings.Contains(string(got), "\nConclusion\n──────────\n") || strings.Contains(string(got), "## ") {
		t.Fatalf("exit or report wrong; report:\n%s", got)
	}
	var shown []string
	for _, l := range strings.Split(strings.TrimSpace(screen), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "EXIT=") {
			shown = append(shown, l)
		}
	}
	if len(shown) != 1 || !strings.HasPrefix(shown[0], "[done] ✔ SUCCESS · COMPLETED") {
		t.Fatalf("the terminal shows %d lines, want the one [done] line:\n%s", len(shown), screen)
	}
}

// On a terminal the `runs` and `skills list` tables fit the window: the
// QUERY and DESCRIPTION columns are cut with … instead of wrapping onto the
// next line; piped, the same tables keep the whole text.
func TestTablesFitTerminalInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	const width = 130
	query := "why do checkout payments fail with connection pool timeouts since 14:00 on the payment service in eu-west"
	out := t.TempDir()
	c := demoCommand(t, bin)
	shell := c + " diagnose '" + query + "' >/dev/null 2>&1; " + c + " runs; " + c + " skills list; " +
		c + " runs > " + filepath.Join(out, "runs.txt") + "; " + c + " skills list > " + filepath.Join(out, "skills.txt") +
		"; echo EXIT=$?; sleep 60"
	name := sessionName(t.TempDir())
	p := pane{t: t, tmux: tmux, name: name}
	p.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(width), "-y", "50", shell)
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })
	p.waitFor(`EXIT=0`, 30*time.Second)
	joined := p.run("capture-pane", "-p", "-J", "-t", name) // wrapped lines joined back
	t.Logf("screen:\n%s", joined)
	var cut []string
	for _, l := range strings.Split(joined, "\n") {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
			t.Errorf("a line of %d columns wrapped in a %d-column terminal: %q", n, width, l)
		}
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			cut = append(cut, l)
		}
	}
	if len(cut) < 2 || !strings.Contains(joined, "why do checkout payments") {
		t.Errorf("want the runs query and playbook descriptions cut with …, got %d cut lines", len(cut))
	}
	runs, err := os.ReadFile(filepath.Join(out, "runs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(runs), query+"\n") {
		t.Errorf("piped runs lost the whole query:\n%s", runs)
	}
	skills, err := os.ReadFile(filepath.Join(out, "skills.txt"))
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, l := range strings.Split(string(skills), "\n") {
		longest = max(longest, utf8.RuneCountInString(l))
		if strings.HasSuffix(l, "…") {
			t.Errorf("piped skills list cut a description: %q", l)
		}
	}
	if longest <= width {
		t.Errorf("piped skills list has no line over %d columns; the descriptions were cut", width)
	}
}

// The demo chat says on its first screen, before anything is typed, that it
// is scripted and which question works; Tab fills that question in, the
// spinner says the transcript plays, and the resume hint left in the
// scrollback repeats --demo and --db, so following it works (no
// ROUTING_UNAVAILABLE).
func TestChatDemoExplainsItselfInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	dir := t.TempDir()
	envPrefix := "env -i PATH=" + os.Getenv("PATH") + " HOME=" + dir + " TERM=xterm-256color NO_COLOR=1" +
		" XDG_DATA_HOME=" + dir + " XDG_CONFIG_HOME=" + dir + " XDG_CACHE_HOME=" + dir + " OLLAMA_HOST=" + testenv.ClosedURL(t) + " "
	db := filepath.Join(dir, "superbiz.db")
	name := sessionName(t.TempDir())
	p := pane{t: t, tmux: tmux, name: name}
	p.run("new-session", "-d", "-s", name, "-x", "80", "-y", "30", envPrefix+bin+" chat --demo --db "+db+"; echo EXIT=$?; sleep 60")
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })

	first := p.waitFor(`tab fills the demo question`, 20*time.Second)
	t.Logf("first screen:\n%s", first)
	for _, want := range []string{"Demo: this chat is scripted (no model reachable at", "  payment timeouts on order-service since 14:00, many 504s at checkout", "Tab fills it in, Enter sends it."} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen lacks %q", want)
		}
	}
	p.run("send-keys", "-t", p.name, "Tab")
	p.waitFor(`› payment timeouts on order-service since 14:00, many 504s at checkout\s*\n`, 10*time.Second)
	p.run("send-keys", "-t", p.name, "Enter")
	p.waitFor(`playing the scripted demo transcript…`, 20*time.Second)
	p.waitFor(`References[\s\S]*tab fills the demo question`, 30*time.Second)
	p.run("send-keys", "-t", p.name, "C-d")
	end := p.waitFor(`EXIT=\d+`, 20*time.Second)
	joined := p.run("capture-pane", "-p", "-J", "-S", "-", "-t", name) // with the scrollback
	if !strings.Contains(joined, "[DIAGNOSIS] SUCCESS · run r_") {
		t.Errorf("the demo question was not diagnosed:\n%s", joined)
	}
	m := regexp.MustCompile(`resume with: superbiz (chat --session s_\w+ --demo --db \S+)`).FindStringSubmatch(joined)
	if !strings.Contains(end, "EXIT=0") || m == nil {
		t.Fatalf("want EXIT=0 and a resume hint with --demo and --db:\n%s", joined)
	}
	resume := exec.Command("sh", "-c", "echo hello | "+envPrefix+bin+" "+m[1])
	out, err := resume.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "[SYSTEM_CHAT] SUCCESS · run r_") {
		t.Fatalf("following the hint %q: %v\n%s", m[1], err, out)
	}
}

// `runs` on an 80- and a 100-column terminal: no line wraps, times are
// short, calls read model/tool, the query is cut with …, and a replay is
// marked ↻; -o wide on the same terminal shows every column (REPLAY OF
// among them) with the whole query, and -o json says replay_of.
func TestRunsFitInTmux(t *testing.T) {
	tmux := needTmux(t)
	bin := build(t)
	c := demoCommand(t, bin)
	run := func(args string) string {
		out, err := exec.Command("sh", "-c", c+" "+args).Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("diagnose -o json")
	var listed []struct {
		RunID    string  `json:"run_id"`
		ReplayOf *string `json:"replay_of"`
	}
	if err := json.Unmarshal([]byte(run("runs -o json")), &listed); err != nil || len(listed) != 1 {
		t.Fatalf("runs -o json: %v %+v", err, listed)
	}
	orig := listed[0].RunID
	run("replay " + orig)
	if err := json.Unmarshal([]byte(run("runs -o json")), &listed); err != nil || len(listed) != 2 ||
		listed[0].ReplayOf == nil || *listed[0].ReplayOf != orig || listed[1].ReplayOf != nil {
		t.Fatalf("runs -o json: want the replay first with replay_of %s: %v %+v", orig, err, listed)
	}
	replay := listed[0].RunID
	for _, width := range []int{80, 100} {
		name := sessionName(t.TempDir())
		p := pane{t: t, tmux: tmux, name: name}
		p.run("new-session", "-d", "-s", name, "-x", strconv.Itoa(width), "-y", "30", c+" runs; "+c+" runs -o wide; echo EXIT=$?; sleep 60")
		t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", name).Run() })
		p.waitFor(`EXIT=0`, 30*time.Second)
		joined := p.run("capture-pane", "-p", "-J", "-t", name)
		t.Logf("%d columns:\n%s", width, joined)
		fitted, wide, _ := strings.Cut(joined, "\n#  RUN ")
		lines := strings.Split(strings.TrimSpace(fitted), "\n")
		for _, l := range lines {
			if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
				t.Errorf("%d columns: a line of %d wrapped: %q", width, n, l)
			}
		}
		row := regexp.MustCompile(`^2  ↻ ` + replay + `  \d\d-\d\d \d\d:\d\d  .*SUCCESS .* 7/5 .* payment timeouts on.*…$`)
		if len(lines) != 3 || !row.MatchString(strings.TrimRight(lines[1], " ")) || !strings.HasPrefix(lines[2], "1  "+orig+"  ") {
			t.Errorf("%d columns: want the header, the replay marked ↻ (short time, 7/5: the demo's 5 tool calls, build_timeline first; the query cut) and the original:\n%s", width, fitted)
		}
		if !strings.Contains(wide, "REPLAY OF") || !strings.Contains(wide, "STOP") || !strings.Contains(wide, orig+"  payment timeouts on order-service since 14:00, many 504s at checkout") {
			t.Errorf("%d columns: -o wide lacks a column or the whole query:\n#  RUN %s", width, wide)
		}
	}
}

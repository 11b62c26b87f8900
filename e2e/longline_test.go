package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// hugeLine is the length of issue 17's one very long log line in these
// tests: long enough that parsing it whole took tens of seconds.
const hugeLine = 200 << 20

// longLineSource writes issue 17's reproduction into e's directory: a
// custom-layout source over one file with a normal line, a line of about
// hugeLine bytes with a valid stamp, and another normal line; it returns the
// config flag pair.
func longLineSource(t *testing.T, e *env) []string {
	t.Helper()
	p := filepath.Join(e.dir, "huge.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	_, _ = w.WriteString("2026-03-14 14:01:00 ERROR [api] first payment failed\n2026-03-14 14:02:00 ERROR [api] huge ")
	chunk := []byte(strings.Repeat("payment timeout ", 4096))
	for n := 0; n < hugeLine; n += len(chunk) {
		_, _ = w.Write(chunk)
	}
	_, _ = w.WriteString("\n2026-03-14 14:03:00 ERROR [api] last payment failed\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return customLogSource(t, e, p)
}

// customLogSource configures the source "app" over the file at p with the
// custom layout "2026-03-14 14:01:00 ERROR [api] message", the clock at
// 2026-03-14T15:00:00Z, and returns the config flag pair.
func customLogSource(t *testing.T, e *env, p string) []string {
	t.Helper()
	cfg := filepath.Join(e.dir, "superbiz.toml")
	toml := `[[logs]]
name = "app"
paths = ["` + p + `"]
format = "custom"
pattern = '(?P<ts>\S+ \S+) (?P<level>\w+) \[(?P<service>\w+)\] (?P<msg>.*)'
time_layout = "2006-01-02 15:04:05"
timezone = "UTC"
`
	if err := os.WriteFile(cfg, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	e.vars["SUPERBIZ_NOW"] = "2026-03-14T15:00:00Z"
	return []string{"--config", cfg}
}

const longLineInput = `{"source":"app","since":"2h","level":"ERROR"}`

// TestLongLogLineBounded: `tools call query_logs` over a file with one line
// of 200 MiB answers quickly, reads the lines around it, and counts the
// long line in long_lines (issue 17: it ran for minutes at 1 GB RSS).
func TestLongLogLineBounded(t *testing.T) {
	// not parallel: each writes a 200 MiB file and times its call
	e := newEnv(t, testenv.ClosedURL(t))
	cfg := longLineSource(t, e)
	start := time.Now()
	r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", longLineInput)...)
	elapsed := time.Since(start)
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	var obs struct {
		Result struct {
			Matched     int      `json:"matched"`
			LongLines   int      `json:"long_lines"`
			TruncatedBy []string `json:"truncated_by"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
		t.Fatalf("decode: %v\n%s", err, r)
	}
	if obs.Result.LongLines != 1 || (obs.Result.Matched != 3 && fmt.Sprint(obs.Result.TruncatedBy) != "[time]") {
		t.Fatalf("matched %d long_lines %d, want 3 and 1\n%s", obs.Result.Matched, obs.Result.LongLines, r)
	}
	// the bound is the per-call time limit (5 s: on a loaded machine the
	// call may stop there, saying so); the rest is process start
	if elapsed > 20*time.Second {
		t.Fatalf("took %s", elapsed)
	}
	reliability.Record(t, reliability.SectionBombs, "one 200 MiB log line (custom layout, tools call query_logs)", map[string]any{
		"line_bytes": hugeLine, "elapsed_ms": elapsed.Milliseconds(), "matched": obs.Result.Matched,
		"truncated_by": strings.Join(obs.Result.TruncatedBy, ","), "outcome": "long_lines 1"})
}

// TestLongLogLineSIGTERM: the first SIGTERM ends `tools call` over the long
// line at once (issue 17: it took effect 132 s later). Linux: the scan's
// start is seen in /proc/PID/maps.
func TestLongLogLineSIGTERM(t *testing.T) {
	// not parallel: each writes a 200 MiB file and times its call
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("needs /proc/PID/maps to see the scan start")
	}
	e := newEnv(t, testenv.ClosedURL(t))
	cfg := longLineSource(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, stdout, stderr := e.command(ctx, append(cfg, "-o", "json", "tools", "call", "query_logs", longLineInput)...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// signal once the scan has mapped the file (the signal handler is set
	// by then); a process that ends first is fine too
	maps := filepath.Join("/proc", strconv.Itoa(c.Process.Pid), "maps")
	for {
		b, err := os.ReadFile(maps)
		if err != nil || strings.Contains(string(b), "huge.log") {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	sent := time.Now()
	// the process may have finished already: then the signal finds nothing
	_ = c.Process.Signal(syscall.SIGTERM)
	_ = c.Wait()
	if el := time.Since(sent); el > 5*time.Second {
		t.Fatalf("exited %s after SIGTERM\n%s\n%s", el, stdout, stderr)
	}
	// tools call exits with SIGTERM's code, 143, for a cancelled call; 0
	// when it was done before the signal; -1 would be the default action, a
	// process that had no handler yet
	code := c.ProcessState.ExitCode()
	if code != 0 && (code != 143 || !strings.Contains(stderr.String(), "query_logs was cancelled")) {
		t.Fatalf("exit %d, want 143 with the call cancelled (or 0 when done before the signal)\n%s\n%s", code, stdout, stderr)
	}
}

// TestLongLogLineDeadline: a diagnosis whose model calls query_logs over
// the long line ends within its --timeout (issue 17: --timeout 15s ran for
// 141 s), and the model is sent the observation with long_lines.
func TestLongLogLineDeadline(t *testing.T) {
	// not parallel: each writes a 200 MiB file and times its call
	srv := newServer(t)
	srv.Script(
		skill("call_e2e0001", "diagnose-payment-timeout"),
		ev("call_e2e0002", "query_logs", "", longLineInput),
		ollamatest.Turn{FirstByteDelay: 30 * time.Second, Content: []string{"never sent"}},
	)
	e := newEnv(t, srv.URL())
	cfg := longLineSource(t, e)
	start := time.Now()
	r := e.run(t, append(cfg, "diagnose", "-o", "json", "--timeout", "20s", queryPayment)...)
	elapsed := time.Since(start)
	if elapsed > 40*time.Second {
		t.Fatalf("--timeout 20s took %s\n%s", elapsed, r)
	}
	obs := toolResult(srv.ChatRequests(), "call_e2e0002")
	// on a loaded machine the call may stop at its time limit, saying so
	if !strings.Contains(obs, `"long_lines":1`) || (!strings.Contains(obs, `"matched":3`) && !strings.Contains(obs, `"truncated_by":["time"]`)) {
		t.Fatalf("query_logs observation sent to the model: %.500s\n%s", obs, r)
	}
}

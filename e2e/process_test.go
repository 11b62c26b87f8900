package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/model/ollamatest"
)

// The README's first command on a fresh machine: no Ollama, no config, no
// store, no demo workspace yet. It plays the scripted demo transcript, says
// so first, and releases the report.
func TestReadmeFirstCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, closedPort(t))
	e.vars["XDG_CACHE_HOME"] = t.TempDir() // materialize the demo from scratch
	r := e.run(t, "diagnose", "--demo")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r)
	}
	const note = "_model: scripted demo transcript (no model reachable at " + "http://127.0.0.1:"
	if !strings.HasPrefix(r.stdout, note) {
		t.Errorf("stdout does not start with %q:\n%s", note, r.stdout)
	}
	for _, want := range []string{"## Conclusion", "HikariPool", "\nSUCCESS · run r_"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "call_") || strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("stdout shows a Tool Call ID or a terminal escape:\n%s", r.stdout)
	}
	for _, want := range []string{"[tool] read_skill", "[tool] query_logs", "[tool] query_mysql", "[tool] lookup_knowledge"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("progress on stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	runID := newestRun(t, e)
	assertReplay(t, e, runID)
}

// With the model server down, a query is exit 4 and the message names the
// host and how to start Ollama; the run is stored FAILED (MODEL_UNAVAILABLE).
func TestOllamaDown(t *testing.T) {
	t.Parallel()
	host := closedPort(t)
	e := newEnv(t, host)
	r := e.run(t, "--demo", "diagnose", "-o", "json", "why is checkout slow")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, host) || !strings.Contains(r.stderr, "ollama serve") {
		t.Errorf("stderr does not name the host %s and `ollama serve`:\n%s", host, r.stderr)
	}
	out := decodeOutput(t, r)
	if out.Status != "FAILED" || out.ReleaseOutcome != "FAILED" || out.StopReason != "MODEL_UNAVAILABLE" || string(out.Result) != "null" || out.Error == nil {
		t.Errorf("status %s, release_outcome %s, stop_reason %s, result %s, error %v; want FAILED, FAILED, MODEL_UNAVAILABLE, null and an error",
			out.Status, out.ReleaseOutcome, out.StopReason, out.Result, out.Error)
	}
	assertReplay(t, e, out.RunID)
}

// SIGINT while the model is answering: the run ends CANCELLED, exit 130,
// and the store says so.
func TestInterruptMidRun(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(
		skill("call_e2e0001", "diagnose-payment-timeout"),
		ollamatest.Turn{FirstByteDelay: 30 * time.Second, Content: []string{"never sent"}},
	)
	e := newEnv(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, stdout, stderr := e.command(ctx, "--demo", "diagnose", "-o", "json", queryPayment)
	if err := c.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	// Wait (bounded) until the second model request is in flight.
	for srv.ChatCount() < 2 {
		if ctx.Err() != nil {
			t.Fatalf("the second model request never arrived\n%s", stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("send SIGINT: %v", err)
	}
	_ = c.Wait() // the exit code is checked below
	r := result{args: c.Args[1:], code: c.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if r.code != 130 {
		t.Fatalf("exit %d, want 130\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, "cancelled") {
		t.Errorf("stderr does not say the run was cancelled:\n%s", r.stderr)
	}
	out := decodeOutput(t, r)
	if out.Status != "CANCELLED" || out.ReleaseOutcome != "CANCELLED" || out.StopReason != "CANCELLED" || string(out.Result) != "null" {
		t.Errorf("status %s, release_outcome %s, stop_reason %s, result %s; want CANCELLED x3 and null", out.Status, out.ReleaseOutcome, out.StopReason, out.Result)
	}
	show := e.run(t, "runs", "show", out.RunID, "-o", "json")
	var stored struct {
		Status         string `json:"status"`
		ReleaseOutcome string `json:"release_outcome"`
		Lifecycle      string `json:"lifecycle"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &stored); err != nil || show.code != 0 {
		t.Fatalf("runs show: %v\n%s", err, show)
	}
	if stored.Status != "CANCELLED" || stored.ReleaseOutcome != "CANCELLED" || stored.Lifecycle != "CANCELLED" {
		t.Errorf("stored status %q, release_outcome %q, lifecycle %q; want CANCELLED", stored.Status, stored.ReleaseOutcome, stored.Lifecycle)
	}
	assertReplay(t, e, out.RunID)
}

// newestRun is the run id `runs -o json` lists first.
func newestRun(t *testing.T, e *env) string {
	t.Helper()
	r := e.run(t, "runs", "-o", "json")
	var runs []struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || r.code != 0 || len(runs) == 0 {
		t.Fatalf("runs -o json: %v\n%s", err, r)
	}
	return runs[0].RunID
}

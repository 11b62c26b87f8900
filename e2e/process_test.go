package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// The README's first command on a fresh machine: no Ollama, no config, no
// store, no demo workspace yet. It plays the scripted demo transcript, says
// so first, and releases the report.
func TestReadmeFirstCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["XDG_CACHE_HOME"] = t.TempDir() // materialize the demo from scratch
	r := e.runExit(t, 0, "diagnose", "--demo")
	const note = "model: scripted demo transcript (no model reachable at " + "http://127.0.0.1:"
	if !strings.HasPrefix(r.stdout, note) {
		t.Errorf("stdout does not start with %q:\n%s", note, r.stdout)
	}
	for _, want := range []string{"\nConclusion\n", "HikariPool", "\nSUCCESS · run r_"} {
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
	host := testenv.ClosedURL(t)
	e := newEnv(t, host)
	r := e.runExit(t, 4, "--demo", "diagnose", "-o", "json", "why is checkout slow")
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

// A stop signal while the model is answering (SIGINT: Ctrl-C; SIGTERM: a
// service manager; SIGHUP: the terminal closed): the run ends CANCELLED,
// stored by the process itself before it exits (not left RUNNING for the
// next open to recover), and the exit code is 128 + the signal's number.
func TestSignalMidRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		for _, p := range providers {
			t.Run(p.name+"/"+tc.sig.String(), func(t *testing.T) {
				t.Parallel()
				srv := p.start(t)
				srv.Script(
					skill("call_e2e0001", "diagnose-payment-timeout"),
					ollamatest.Turn{FirstByteDelay: 30 * time.Second, Content: []string{"never sent"}},
				)
				e := srv.env(t)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				c, stdout, stderr := e.command(ctx, "--demo", "diagnose", "-o", "json", queryPayment)
				if err := c.Start(); err != nil {
					t.Fatalf("start: %v", err)
				}
				// Wait (bounded) until the second model request is in flight.
				for len(srv.ChatRequests()) < 2 {
					if ctx.Err() != nil {
						t.Fatalf("the second model request never arrived\n%s", stderr)
					}
					time.Sleep(10 * time.Millisecond)
				}
				if err := c.Process.Signal(tc.sig); err != nil {
					t.Fatalf("send %s: %v", tc.sig, err)
				}
				_ = c.Wait() // the exit code is checked below
				r := result{args: c.Args[1:], code: c.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
				if r.code != tc.code {
					t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
				}
				if !strings.Contains(r.stderr, "cancelled") {
					t.Errorf("stderr does not say the run was cancelled:\n%s", r.stderr)
				}
				out := decodeOutput(t, r)
				if out.Status != "CANCELLED" || out.ReleaseOutcome != "CANCELLED" || out.StopReason != "CANCELLED" || string(out.Result) != "null" {
					t.Errorf("status %s, release_outcome %s, stop_reason %s, result %s; want CANCELLED x3 and null", out.Status, out.ReleaseOutcome, out.StopReason, out.Result)
				}
				// Read the store without opening it through superbiz, whose open
				// would recover a RUNNING run: what the process itself stored.
				db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				var status, outcome, lifecycle string
				if err := db.QueryRow(`SELECT status, COALESCE(release_outcome, ''), lifecycle FROM runs WHERE id = ?`, out.RunID).Scan(&status, &outcome, &lifecycle); err != nil {
					t.Fatalf("read the stored run: %v", err)
				}
				if status != "CANCELLED" || outcome != "CANCELLED" || lifecycle != "CANCELLED" {
					t.Errorf("stored status %q, release_outcome %q, lifecycle %q; want CANCELLED", status, outcome, lifecycle)
				}
				assertReplay(t, e, out.RunID)
				reliability.Record(t, reliability.SectionMutation, "exit "+strconv.Itoa(tc.code)+" and CANCELLED stored at once on "+tc.sig.String()+" (plain, "+p.name+")", map[string]any{"test": t.Name()})
			})
		}
	}
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

// SIGTERM while a chat message (line mode) waits for the model: the turn is
// stored CANCELLED and the process exits 143.
func TestChatLineModeSIGTERM(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Script(
		ollamatest.Turn{Content: []string{`{"intent":"DIAGNOSIS"}`}},
		ollamatest.Turn{FirstByteDelay: 30 * time.Second, Content: []string{"never sent"}},
	)
	e := newEnv(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, stdout, stderr := e.command(ctx, "--demo", "chat", "-o", "json")
	c.Stdin = strings.NewReader(queryPayment + "\n")
	if err := c.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	for srv.ChatCount() < 2 {
		if ctx.Err() != nil {
			t.Fatalf("the diagnosis request never arrived\n%s", stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	r := result{args: c.Args[1:], code: c.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if r.code != 143 {
		t.Fatalf("exit %d, want 143\n%s", r.code, r)
	}
	var turn struct {
		RunID          string `json:"run_id"`
		ReleaseOutcome string `json:"release_outcome"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &turn); err != nil || turn.ReleaseOutcome != "CANCELLED" {
		t.Fatalf("turn %+v (%v)\n%s", turn, err, r)
	}
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var status string
	if err := db.QueryRow(`SELECT status FROM runs WHERE id = ?`, turn.RunID).Scan(&status); err != nil || status != "CANCELLED" {
		t.Fatalf("stored status %q (%v), want CANCELLED", status, err)
	}
	reliability.Record(t, reliability.SectionMutation, "exit 143 and CANCELLED stored on SIGTERM (chat line mode)", map[string]any{"test": t.Name()})
}

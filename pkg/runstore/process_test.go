package runstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// The helper process is this test binary re-executed with these variables.
const (
	envHelper = "RUNSTORE_TEST_HELPER" // "write" or "abandon"
	envDB     = "RUNSTORE_TEST_DB"
	envPrefix = "RUNSTORE_TEST_PREFIX"
	envCount  = "RUNSTORE_TEST_COUNT"
	envReady  = "RUNSTORE_TEST_READY" // file the helper creates when started
	envGo     = "RUNSTORE_TEST_GO"    // file the helper waits for before writing
)

// TestHelperProcess is not a test: it is the body of the child processes of
// TestTwoProcessesShareOneFile and TestRecoverInterruptedRun.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envHelper)
	if mode == "" {
		t.Skip("helper process for the multi-process tests")
	}
	ctx := context.Background()
	switch mode {
	case "write":
		helperWrite(ctx, t)
	case "abandon":
		s, err := Open(ctx, os.Getenv(envDB))
		if err != nil {
			t.Fatal(err)
		}
		mustRun(t, s, NewRun{ID: "r_abandoned", SessionID: "s_1", Query: "q", Intent: runrecord.IntentDiagnosis})
		if _, err := s.AppendToolInvocation(ctx, "r_abandoned", runrecord.Invocation{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence, Status: "COMPLETED"}); err != nil {
			t.Fatal(err)
		}
		// Die without finishing the run or closing the store, as a killed process would.
		os.Exit(0)
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

// helperWrite opens the shared file once both helpers are ready and writes
// COUNT complete runs: create, one tool invocation, one model round, finish.
func helperWrite(ctx context.Context, t *testing.T) {
	prefix := os.Getenv(envPrefix)
	n, err := strconv.Atoi(os.Getenv(envCount))
	if err != nil {
		t.Fatalf("bad %s: %v", envCount, err)
	}
	if err := os.WriteFile(os.Getenv(envReady), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(os.Getenv(envGo)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no go signal from the parent")
		}
	}
	fmt.Printf("WRITING_FROM %d\n", time.Now().UnixMicro())
	defer func() { fmt.Printf("WRITING_UNTIL %d\n", time.Now().UnixMicro()) }()
	s, err := Open(ctx, os.Getenv(envDB))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.EnsureSession(ctx, "s_shared"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("r_%s_%04d", prefix, i)
		if err := s.CreateRun(ctx, NewRun{ID: id, SessionID: "s_shared", Query: "q " + id, Intent: runrecord.IntentDiagnosis}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendToolInvocation(ctx, id, runrecord.Invocation{ToolCallID: "call_1", Tool: "query_logs", Kind: runrecord.KindEvidence,
			Status: "COMPLETED", EvidenceStatus: "NO_EVIDENCE", Observation: json.RawMessage(`{"evidence_status":"NO_EVIDENCE"}`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendModelRound(ctx, id, runrecord.ModelRound{Purpose: runrecord.PurposeDiagnosis, Request: json.RawMessage(`{"messages":[]}`),
			Response: json.RawMessage(`{"message":{}}`)}); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(ctx, id, Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback, StopReason: "NO_CONCLUSION"}); err != nil {
			t.Fatal(err)
		}
	}
}

// helperCmd re-executes this test binary as a helper process.
func helperCmd(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

func TestTwoProcessesShareOneFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1000 runs from two processes")
	}
	const perProcess = 500
	dir := t.TempDir()
	db := filepath.Join(dir, "shared.db")
	goFile := filepath.Join(dir, "go")
	type child struct {
		prefix, ready string
		cmd           *exec.Cmd
		out           bytes.Buffer
	}
	children := []*child{{prefix: "a"}, {prefix: "b"}}
	for _, c := range children {
		c.ready = filepath.Join(dir, "ready-"+c.prefix)
		c.cmd = helperCmd(t, envHelper+"=write", envDB+"="+db, envPrefix+"="+c.prefix,
			envCount+"="+strconv.Itoa(perProcess), envReady+"="+c.ready, envGo+"="+goFile)
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	// Release both at once, so they race on creating and migrating the file too.
	for _, c := range children {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, err := os.Stat(c.ready); err == nil {
				break
			}
			if time.Now().After(deadline) {
				_ = c.cmd.Process.Kill() // it may have exited on its own
				t.Fatalf("helper %s never started", c.prefix)
			}
		}
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var from, until [2]int64
	for i, c := range children {
		err := c.cmd.Wait()
		out := c.out.String()
		if err != nil {
			t.Errorf("helper %s: %v\n%s", c.prefix, err, out)
		}
		for _, bad := range []string{"database is locked", "SQLITE_BUSY"} {
			if strings.Contains(out, bad) {
				t.Errorf("helper %s output contains %q:\n%s", c.prefix, bad, out)
			}
		}
		if !strings.Contains(out, "--- PASS: TestHelperProcess") {
			t.Errorf("helper %s did not run its body:\n%s", c.prefix, out)
		}
		if from[i], until[i], err = helperSpan(out); err != nil {
			t.Errorf("helper %s: %v:\n%s", c.prefix, err, out)
		}
	}
	if t.Failed() {
		return
	}

	ctx := context.Background()
	s, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var finished, invs, rounds int
	err = s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM runs WHERE status = 'SUCCESS' AND release_outcome = 'FALLBACK' AND finished_at IS NOT NULL),
		(SELECT count(*) FROM tool_invocations),
		(SELECT count(*) FROM model_rounds)`).Scan(&finished, &invs, &rounds)
	if err != nil {
		t.Fatal(err)
	}
	if finished != 2*perProcess || invs != 2*perProcess || rounds != 2*perProcess {
		t.Errorf("finished runs %d, invocations %d, model rounds %d; want %d each", finished, invs, rounds, 2*perProcess)
	}
	// The two writers really ran at once: each started (opening the file,
	// then writing) before the other had finished. SQLite's lock is not fair,
	// so their commits need not interleave: one may wait on the busy timeout
	// while the other commits back to back, which is the contention the
	// test is about.
	if from[0] > until[1] || from[1] > until[0] {
		t.Errorf("the helpers did not write at the same time: a [%d, %d] µs, b [%d, %d] µs", from[0], until[0], from[1], until[1])
	}
	var aMin, aMax, bMin, bMax int64
	err = s.db.QueryRowContext(ctx, `SELECT
		(SELECT min(created_at) FROM runs WHERE id LIKE 'r_a_%'), (SELECT max(created_at) FROM runs WHERE id LIKE 'r_a_%'),
		(SELECT min(created_at) FROM runs WHERE id LIKE 'r_b_%'), (SELECT max(created_at) FROM runs WHERE id LIKE 'r_b_%')`).
		Scan(&aMin, &aMax, &bMin, &bMax)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("helper a: %d ms writing, first..last run %d ms; helper b: %d ms writing, first..last run %d ms; commit spans overlap %d ms",
		(until[0]-from[0])/1000, aMax-aMin, (until[1]-from[1])/1000, bMax-bMin, min(aMax, bMax)-max(aMin, bMin))
	reliability.Record(t, reliability.SectionConcurrent, "two processes writing one store file", map[string]any{
		"processes": len(children), "runs_written": finished, "invocations": invs, "model_rounds": rounds, "lock_errors": 0,
		"writing_ms_a": (until[0] - from[0]) / 1000, "writing_ms_b": (until[1] - from[1]) / 1000,
	})
}

// helperSpan reads the WRITING_FROM and WRITING_UNTIL times a helper printed.
func helperSpan(out string) (from, until int64, err error) {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "WRITING_FROM "); ok {
			from, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		if v, ok := strings.CutPrefix(line, "WRITING_UNTIL "); ok {
			until, err = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	if from == 0 || until == 0 {
		return 0, 0, errors.New("no WRITING_FROM/WRITING_UNTIL lines")
	}
	return from, until, nil
}

func TestRecoverInterruptedRun(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.db")
	// This process keeps a store open with a RUNNING run of its own: a live
	// process using the same file at the same time.
	live, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	mustRun(t, live, NewRun{ID: "r_live", SessionID: "s_1", Query: "q", Intent: runrecord.IntentDiagnosis})

	cmd := helperCmd(t, envHelper+"=abandon", envDB+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("abandoning helper: %v\n%s", err, out)
	}
	deadPID := cmd.ProcessState.Pid()

	// A RUNNING run of a dead pid on another host is not ours to judge.
	if _, err := live.db.ExecContext(ctx, `INSERT INTO runs (id, session_id, created_at, query, status, pid, hostname)
		VALUES ('r_elsewhere', 's_1', 0, 'q', 'RUNNING', ?, 'another-host.example')`, deadPID); err != nil {
		t.Fatal(err)
	}
	var (
		stored    string
		storedPID int
	)
	if err := live.db.QueryRowContext(ctx, `SELECT status, pid FROM runs WHERE id = 'r_abandoned'`).Scan(&stored, &storedPID); err != nil {
		t.Fatal(err)
	}
	if stored != string(runrecord.RunStatusRunning) || storedPID != deadPID {
		t.Fatalf("abandoned run before recovery: stored status %s pid %d (helper pid %d)", stored, storedPID, deadPID)
	}
	// Read before any recovery, it already shows as interrupted (computed
	// at read time), and the listing agrees; the live and foreign runs stay RUNNING.
	before, err := live.GetRun(ctx, "r_abandoned")
	if err != nil {
		t.Fatal(err)
	}
	if before.Status != runrecord.RunStatusFailed || before.StopReason != runrecord.StopInterrupted || before.ErrorCode != string(runrecord.StopInterrupted) ||
		!strings.Contains(before.ErrorMessage, "pid "+strconv.Itoa(deadPID)) {
		t.Errorf("abandoned run read before recovery: %+v %q, want FAILED/INTERRUPTED", before.RunSummary, before.ErrorMessage)
	}
	listed, err := live.ListRuns(ctx, ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range listed {
		want := runrecord.RunStatusRunning
		if r.ID == "r_abandoned" {
			want = runrecord.RunStatusFailed
		}
		if r.Status != want {
			t.Errorf("listed %s as %s, want %s", r.ID, r.Status, want)
		}
	}

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.GetRun(ctx, "r_abandoned")
	if err != nil {
		t.Fatal(err)
	}
	if d.Status != runrecord.RunStatusFailed || d.ReleaseOutcome != runrecord.OutcomeFailed || d.StopReason != runrecord.StopInterrupted ||
		d.Lifecycle != runrecord.Failed || d.ErrorCode != string(runrecord.StopInterrupted) || d.FinishedAt.IsZero() {
		t.Errorf("abandoned run after recovery: %+v", d.RunSummary)
	}
	if !strings.Contains(d.ErrorMessage, "pid "+strconv.Itoa(deadPID)) {
		t.Errorf("error message %q does not name the dead pid", d.ErrorMessage)
	}
	if len(d.Invocations) != 1 {
		t.Errorf("recovery lost the audit: %d invocations", len(d.Invocations))
	}
	for _, id := range []string{"r_live", "r_elsewhere"} {
		r, err := s.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != runrecord.RunStatusRunning || !r.FinishedAt.IsZero() {
			t.Errorf("%s was touched by recovery: %+v", id, r.RunSummary)
		}
	}
	if n, err := s.RecoverInterrupted(ctx); err != nil || n != 0 {
		t.Errorf("second recovery = %d, %v; want 0, nil", n, err)
	}
	if err := s.FinishRun(ctx, "r_abandoned", Finish{Status: runrecord.RunStatusSuccess}); !errors.Is(err, ErrAlreadyTerminal) {
		t.Errorf("finishing a recovered run = %v, want ErrAlreadyTerminal", err)
	}
	// The live process can still finish its own run.
	if err := live.FinishRun(ctx, "r_live", Finish{Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback}); err != nil {
		t.Errorf("live run cannot finish: %v", err)
	}
}

func TestProcessAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("this process reported dead")
	}
	cmd := helperCmd(t) // no helper mode: skips and exits at once
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if processAlive(cmd.ProcessState.Pid()) {
		t.Errorf("exited and reaped pid %d reported alive", cmd.ProcessState.Pid())
	}
}

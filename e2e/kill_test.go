package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// SIGKILL at varied moments of a run (opening the store, mid-audit,
// finishing): the store stays intact, and every run the killed processes
// left RUNNING is closed FAILED/INTERRUPTED by the next process's open.
func TestSIGKILLKeepsTheStoreIntact(t *testing.T) {
	t.Parallel()
	const iterations = 24
	e := newEnv(t, testenv.ClosedURL(t)) // the demo transcript plays: no model needed
	killed := 0
	for i := range iterations {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		c, _, stderr := e.command(ctx, "--demo", "diagnose", "-o", "json")
		if err := c.Start(); err != nil {
			cancel()
			t.Fatalf("start: %v", err)
		}
		// Spread the kills over a run's life: a fixed, varied schedule.
		time.Sleep(time.Duration(i*37%200) * time.Millisecond)
		_ = c.Process.Kill()
		_ = c.Wait() // killed, or finished first: both are fine
		if c.ProcessState.ExitCode() == -1 {
			killed++ // ended by the signal, not by finishing
		}
		cancel()
		if t.Failed() {
			t.Fatalf("iteration %d\n%s", i, stderr)
		}
	}
	// The next process that opens the store for writing recovers what the
	// killed ones left (`runs` only reads, so it is not the one: a run
	// finished to the end is).
	if r := e.run(t, "--demo", "diagnose", "-o", "json"); r.code != 0 {
		t.Fatalf("diagnose after the kills:\n%s", r)
	}
	r := e.run(t, "runs", "-o", "json", "--limit", "100")
	if r.code != 0 {
		t.Fatalf("runs after the kills:\n%s", r)
	}
	var runs []struct {
		Status     string `json:"status"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
		t.Fatalf("runs -o json: %v\n%s", err, r)
	}
	counts := map[string]int{}
	running := 0
	for _, run := range runs {
		counts[run.Status+"/"+run.StopReason]++
		if run.Status == "RUNNING" {
			running++
			t.Errorf("a run is still RUNNING after recovery: %+v", run)
		}
	}
	db, err := sql.Open("sqlite", "file:"+e.vars["SUPERBIZ_DB"]+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check = %q, %v", integrity, err)
	}
	var orphans int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM tool_invocations WHERE run_id NOT IN (SELECT id FROM runs)) +
		(SELECT count(*) FROM model_rounds WHERE run_id NOT IN (SELECT id FROM runs))`).Scan(&orphans); err != nil || orphans != 0 {
		t.Fatalf("audit rows without a run: %d, %v", orphans, err)
	}
	t.Logf("%d kills, runs by outcome: %v", killed, counts)
	reliability.Record(t, reliability.SectionKill, "SIGKILL during `diagnose --demo`, then the next open", map[string]any{
		"iterations": iterations, "kills": killed, "runs_stored": len(runs), "runs_interrupted": counts["FAILED/INTERRUPTED"],
		"runs_completed": counts["SUCCESS/COMPLETED"], "integrity": integrity, "still_running": running,
	})
}

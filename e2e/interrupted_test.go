package e2e

import (
	"database/sql"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
)

// A run that a dead process left RUNNING reads as FAILED/INTERRUPTED in
// `runs` and `runs show`, computed when read: the store, opened read-only,
// still holds RUNNING until a process opens it for writing.
func TestRunsShowDeadRunInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t)) // the demo transcript plays: no model needed
	r := e.run(t, "--demo", "diagnose", "-o", "json")
	var out struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.RunID == "" {
		t.Fatalf("diagnose --demo: %v\n%s", err, r)
	}
	// a process that has exited: its pid names no live process
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", e.vars["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// as a process killed mid-run leaves it: RUNNING, without an end
	if _, err := db.Exec(`UPDATE runs SET status = 'RUNNING', release_outcome = NULL, stop_reason = '', lifecycle = NULL,
		error_code = '', finished_at = NULL, pid = ? WHERE id = ?`, dead.ProcessState.Pid(), out.RunID); err != nil {
		t.Fatal(err)
	}
	shown := 0
	list := e.run(t, "runs", "-o", "json")
	var runs []struct {
		ID         string `json:"run_id"`
		Status     string `json:"status"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(list.stdout), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("runs -o json: %v\n%s", err, list)
	}
	if runs[0].ID != out.RunID || runs[0].Status != "FAILED" || runs[0].StopReason != "INTERRUPTED" {
		t.Errorf("runs lists %+v, want %s FAILED/INTERRUPTED", runs[0], out.RunID)
	} else {
		shown++
	}
	text := e.run(t, "runs")
	if !strings.Contains(text.stdout, "INTERRUPTED") || strings.Contains(text.stdout, "RUNNING") {
		t.Errorf("runs (text) does not show the run as INTERRUPTED:\n%s", text)
	}
	show := e.run(t, "runs", "show", out.RunID)
	if !strings.Contains(show.stdout, "INTERRUPTED") || !strings.Contains(show.stdout, "exited before finishing it") {
		t.Errorf("runs show does not show the run as INTERRUPTED:\n%s", show)
	} else {
		shown++
	}
	var stored string
	if err := db.QueryRow(`SELECT status FROM runs WHERE id = ?`, out.RunID).Scan(&stored); err != nil || stored != "RUNNING" {
		t.Errorf("the stored status is %q (%v) after runs: runs must not write the store", stored, err)
	}
	reliability.Record(t, reliability.SectionKill, "a run left RUNNING by a dead process, read by `runs` and `runs show`", map[string]any{
		"views_showing_interrupted": shown, "views": 2, "stored_status_after": stored,
	})
}

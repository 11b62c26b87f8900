package runstore

import (
	"context"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// RecoverInterrupted marks the RUNNING runs of this host whose process is no
// longer alive as FAILED with stop reason and error code INTERRUPTED, and
// returns how many it closed. Open calls it; runs of live processes (another
// superbiz using the same file now) and of other hosts are never touched.
func (s *Store) RecoverInterrupted(ctx context.Context) (int, error) {
	type candidate struct {
		id  string
		pid int
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, pid FROM runs WHERE status = 'RUNNING' AND hostname = ?`, s.hostname)
	if err != nil {
		return 0, fmt.Errorf("find interrupted runs: %w", err)
	}
	var dead []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.id, &c.pid); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find interrupted runs: %w", err)
		}
		if s.ownerDead(c.pid, s.hostname) {
			dead = append(dead, c)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return 0, fmt.Errorf("find interrupted runs: %w", err)
	}
	rows.Close()

	closed := 0
	for _, c := range dead {
		now := time.Now()
		msg := interruptedMessage(c.pid, s.hostname)
		// The status, pid and host conditions make this a no-op if another
		// process recovered or finished the run in the meantime.
		res, err := s.db.ExecContext(ctx, `UPDATE runs SET
			status = 'FAILED', release_outcome = 'FAILED', stop_reason = ?1, lifecycle = 'FAILED',
			error_code = ?1, error_message = ?2, finished_at = ?3,
			duration_ms = max(0, ?3 - created_at)
			WHERE id = ?4 AND status = 'RUNNING' AND pid = ?5 AND hostname = ?6`,
			string(runrecord.StopInterrupted), msg, unixMS(now), c.id, c.pid, s.hostname)
		if err != nil {
			return closed, fmt.Errorf("mark run %s interrupted: %w", c.id, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return closed, fmt.Errorf("mark run %s interrupted: %w", c.id, err)
		}
		closed += int(n)
	}
	return closed, nil
}

// ownerDead reports whether the process that owns a RUNNING run (its pid on
// hostname) is gone: a process of this host, not this one, no longer alive.
// Runs of other hosts and of live processes are never judged dead.
func (s *Store) ownerDead(pid int, hostname string) bool {
	return hostname == s.hostname && pid > 0 && pid != s.pid && !processAlive(pid)
}

// interruptedMessage is the error message of a run whose process died.
func interruptedMessage(pid int, hostname string) string {
	return fmt.Sprintf("the superbiz process running this run (pid %d on %s) exited before finishing it", pid, hostname)
}

// asInterrupted shows a RUNNING run whose process is gone the way recovery
// will store it (FAILED, stop reason and error code INTERRUPTED), computed at
// read time: a store opened read-only (runs, runs show) is never written, and
// a crash must not read RUNNING until some later command recovers it. It
// reports whether r was changed.
func (s *Store) asInterrupted(r *RunSummary, pid int, hostname string) bool {
	if r.Status != runrecord.RunStatusRunning || !s.ownerDead(pid, hostname) {
		return false
	}
	r.Status, r.ReleaseOutcome, r.Lifecycle = runrecord.RunStatusFailed, runrecord.OutcomeFailed, runrecord.Failed
	r.StopReason, r.ErrorCode = runrecord.StopInterrupted, string(runrecord.StopInterrupted)
	return true
}

package runstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// GuardReview is one release guard's verdict, kept for audit and never
// published: runrecord.GuardReview, declared once there.
type GuardReview = runrecord.GuardReview

// AppendToolInvocation adds the next tool invocation of a RUNNING run and
// returns its sequence number; a finished run returns ErrAlreadyTerminal.
// Every member of the record is kept; Seq is assigned here (1, 2, 3… per
// run), the one given is ignored.
func (s *Store) AppendToolInvocation(ctx context.Context, runID string, inv runrecord.Invocation) (int, error) {
	const op = "append tool invocation to run"
	if inv.ToolCallID == "" || inv.Tool == "" || inv.Status == "" {
		return 0, fmt.Errorf("%s %s: tool call ID, tool and status are required (got %q, %q, %q)", op, runID, inv.ToolCallID, inv.Tool, inv.Status)
	}
	if err := oneOf("kind", inv.Kind, runrecord.InvocationKinds()...); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if err := oneOf("control", inv.Control, append([]string{""}, runrecord.Controls()...)...); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if err := checkJSON("canonical input", inv.Input, 0); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if err := checkJSON("observation", inv.Observation, 0); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	var err error
	if inv.Input, err = storedJSON("canonical input", inv.Input); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if inv.Observation, err = storedJSON("observation", inv.Observation); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	inv.Summary, inv.Detail = storedText(inv.Summary), storedText(inv.Detail)
	inv.Evaluated, inv.EmptyWindow, inv.Tally = storedText(inv.Evaluated), storedText(inv.EmptyWindow), storedText(inv.Tally)
	return s.appendRow(ctx, op, runID, `INSERT INTO tool_invocations
		(run_id, seq, tool_call_id, tool, kind, canonical_input, input_summary, status, evidence_status,
		 error_code, control, observation, started_at, duration_ms,
		 detail, evaluated, evaluation, empty_window, tally)
		SELECT ?1, COALESCE((SELECT max(seq) FROM tool_invocations WHERE run_id = ?1), 0) + 1,
		 ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18
		WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'RUNNING')
		RETURNING seq`,
		runID, inv.ToolCallID, inv.Tool, inv.Kind, nullJSON(inv.Input), inv.Summary,
		inv.Status, string(inv.EvidenceStatus), inv.ErrorCode, nullString(inv.Control), nullJSON(inv.Observation),
		unixMS(orNow(inv.StartedAt)), inv.Duration.Milliseconds(),
		inv.Detail, inv.Evaluated, inv.Evaluation, inv.EmptyWindow, inv.Tally)
}

// AppendModelRound adds the next model round of a RUNNING run and returns its
// sequence number; a finished run returns ErrAlreadyTerminal. Every member
// of the record is kept (the duration to the millisecond); Seq is assigned
// here.
func (s *Store) AppendModelRound(ctx context.Context, runID string, r runrecord.ModelRound) (int, error) {
	const op = "append model round to run"
	if err := oneOf("purpose", r.Purpose, runrecord.Purposes()...); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if r.Request == nil {
		return 0, fmt.Errorf("%s %s: the request JSON is required", op, runID)
	}
	if err := checkJSON("request", r.Request, '{'); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if err := checkJSON("response", r.Response, '{'); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	// The request and response are stored redacted: replay plays these
	// recorded forms back, and compares what they produce in the same forms.
	var err error
	if r.Request, err = storedJSON("request", r.Request); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if r.Response, err = storedJSON("response", r.Response); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	return s.appendRow(ctx, op, runID, `INSERT INTO model_rounds
		(run_id, seq, purpose, request, response, prompt_tokens, completion_tokens, duration_ms, error_kind, started_at)
		SELECT ?1, COALESCE((SELECT max(seq) FROM model_rounds WHERE run_id = ?1), 0) + 1,
		 ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
		WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'RUNNING')
		RETURNING seq`,
		runID, r.Purpose, string(r.Request), nullJSON(r.Response), r.PromptTokens, r.CompletionTokens,
		r.Duration.Milliseconds(), r.ErrorKind, unixMS(orNow(r.StartedAt)))
}

// AppendGuardReview adds the next guard verdict of a RUNNING run and returns
// its sequence number; a finished run returns ErrAlreadyTerminal.
func (s *Store) AppendGuardReview(ctx context.Context, runID string, g GuardReview) (int, error) {
	const op = "append guard review to run"
	if err := oneOf("guard", g.Guard, runrecord.Guards()...); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	if g.Verdict == "" {
		return 0, fmt.Errorf("%s %s: empty verdict", op, runID)
	}
	if err := checkJSON("reasons", g.Reasons, '['); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	var err error
	if g.Reasons, err = storedJSON("reasons", g.Reasons); err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	return s.appendRow(ctx, op, runID, `INSERT INTO guard_reviews (run_id, seq, guard, verdict, reasons, created_at)
		SELECT ?1, COALESCE((SELECT max(seq) FROM guard_reviews WHERE run_id = ?1), 0) + 1, ?2, ?3, ?4, ?5
		WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1 AND status = 'RUNNING')
		RETURNING seq`,
		runID, g.Guard, g.Verdict, nullJSON(g.Reasons), unixMS(orNow(g.CreatedAt)))
}

// appendRow runs one INSERT … SELECT … WHERE the run is RUNNING … RETURNING
// seq: the status check, the sequence number and the insert are one atomic
// statement, so an append can never land after the terminal update.
func (s *Store) appendRow(ctx context.Context, op, runID, query string, args ...any) (int, error) {
	var seq int
	err := s.db.QueryRowContext(ctx, query, args...).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, s.refusal(ctx, op, runID)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, runID, err)
	}
	return seq, nil
}

// auditMembersFrom is the version of the store's own schema from which
// tool_invocations has a column for every member of the audit record
// (migration 4); a file of an earlier version, opened read-only and so not
// migrated, reads those members as "".
const auditMembersFrom = 4

// invocations reads limit (-1: all) of a run's tool invocations in order
// after skipping offset, every member; an error code in the spelling of
// earlier releases reads in today's.
func (s *Store) invocations(ctx context.Context, q *sql.Tx, runID string, limit, offset int) ([]runrecord.Invocation, error) {
	members := "detail, evaluated, evaluation, empty_window, tally"
	if s.schema < auditMembersFrom {
		members = "'', '', '', '', ''"
	}
	rows, err := q.QueryContext(ctx, `SELECT seq, tool_call_id, tool, kind, canonical_input, input_summary,
		status, evidence_status, error_code, control, observation, started_at, duration_ms, `+members+`
		FROM tool_invocations WHERE run_id = ? ORDER BY seq LIMIT ? OFFSET ?`, runID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("read tool invocations: %w", err)
	}
	defer rows.Close()
	var out []runrecord.Invocation
	for rows.Next() {
		var (
			inv         runrecord.Invocation
			input, obs  sql.NullString
			control     sql.NullString
			started, ms int64
		)
		if err := rows.Scan(&inv.Seq, &inv.ToolCallID, &inv.Tool, &inv.Kind, &input, &inv.Summary,
			&inv.Status, &inv.EvidenceStatus, &inv.ErrorCode, &control, &obs, &started, &ms,
			&inv.Detail, &inv.Evaluated, &inv.Evaluation, &inv.EmptyWindow, &inv.Tally); err != nil {
			return nil, fmt.Errorf("read tool invocations: %w", err)
		}
		inv.Input, inv.Observation, inv.Control = rawJSON(input), rawJSON(obs), control.String
		inv.ErrorCode = ToolErrorCode(inv.ErrorCode)
		inv.StartedAt, inv.Duration = fromMS(started), time.Duration(ms)*time.Millisecond
		out = append(out, inv)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read tool invocations: %w", err)
	}
	return out, nil
}

// modelRounds reads a run's model rounds in order.
func modelRounds(ctx context.Context, q *sql.Tx, runID string) ([]runrecord.ModelRound, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, purpose, request, response, prompt_tokens, completion_tokens,
		duration_ms, error_kind, started_at FROM model_rounds WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("read model rounds: %w", err)
	}
	defer rows.Close()
	var out []runrecord.ModelRound
	for rows.Next() {
		var (
			r           runrecord.ModelRound
			req         string
			resp        sql.NullString
			started, ms int64
		)
		if err := rows.Scan(&r.Seq, &r.Purpose, &req, &resp, &r.PromptTokens, &r.CompletionTokens,
			&ms, &r.ErrorKind, &started); err != nil {
			return nil, fmt.Errorf("read model rounds: %w", err)
		}
		r.Request, r.Response, r.StartedAt = json.RawMessage(req), rawJSON(resp), fromMS(started)
		r.Duration = time.Duration(ms) * time.Millisecond
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read model rounds: %w", err)
	}
	return out, nil
}

// guardReviews reads a run's guard verdicts in order.
func guardReviews(ctx context.Context, q *sql.Tx, runID string) ([]GuardReview, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq, guard, verdict, reasons, created_at
		FROM guard_reviews WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("read guard reviews: %w", err)
	}
	defer rows.Close()
	var out []GuardReview
	for rows.Next() {
		var (
			g       GuardReview
			reasons sql.NullString
			created int64
		)
		if err := rows.Scan(&g.Seq, &g.Guard, &g.Verdict, &reasons, &created); err != nil {
			return nil, fmt.Errorf("read guard reviews: %w", err)
		}
		g.Reasons, g.CreatedAt = rawJSON(reasons), fromMS(created)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read guard reviews: %w", err)
	}
	return out, nil
}

// orNow defaults a zero time to now.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// Recorder writes a run's canonical audit into the store: it is the
// harness's Recorder (harness.RunOptions.Recorder) for runs stored here.
func (s *Store) Recorder() AuditRecorder { return AuditRecorder{s} }

// AuditRecorder stores every model round and tool step of a run, every
// member of the harness's records.
type AuditRecorder struct{ store *Store }

// RecordModelRound stores one round as sent and as received.
func (r AuditRecorder) RecordModelRound(ctx context.Context, runID string, m runrecord.ModelRound) error {
	_, err := r.store.AppendModelRound(ctx, runID, m)
	return err
}

// RecordInvocation stores one tool step: its canonical input, the
// observation exactly as the model saw it, and the audit-only detail of a
// refused or failed call. An input that is not JSON is stored as none.
func (r AuditRecorder) RecordInvocation(ctx context.Context, runID string, inv runrecord.Invocation) error {
	if len(inv.Input) > 0 && !json.Valid(inv.Input) {
		inv.Input = nil
	}
	_, err := r.store.AppendToolInvocation(ctx, runID, inv)
	return err
}

package runstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// NewRun is what is known when a run starts.
type NewRun struct {
	ID        string
	SessionID string // must exist (CreateSession / EnsureSession)
	Query     string
	Intent    string // "" while routing; DIAGNOSIS for `diagnose`
	Model     string
	Host      string // model host URL, without credentials
	// Clock is the run's start time as the run sees it (SUPERBIZ_NOW or the
	// real time); replay reuses it. Zero means unknown.
	Clock time.Time
	// Settings are the limits in force, stored in the budget column; nil stores NULL.
	Settings *runrecord.Settings
	// ReplayOf is the original run's ID when this run is a replay, or "".
	ReplayOf string
	// CreatedAt defaults to now.
	CreatedAt time.Time
}

// Finish is a run's terminal record, written once by FinishRun.
type Finish struct {
	Status         runrecord.RunStatus // SUCCESS, FAILED or CANCELLED
	ReleaseOutcome runrecord.Outcome   // or "" (none)
	StopReason     runrecord.StopReason
	Lifecycle      runrecord.Lifecycle // a terminal one, or ""
	Answer         string              // the Markdown shown to the user
	// PublishedResult is the PublishedResult JSON object, only with release
	// outcome SUCCESS; nil stores NULL.
	PublishedResult json.RawMessage
	// Checks are the checks printed as `checks`; nil stores NULL, empty stores [].
	Checks []runrecord.Check
	// Usage includes the run's duration.
	Usage        runrecord.Usage
	ErrorCode    string
	ErrorMessage string
	// FinishedAt defaults to now.
	FinishedAt time.Time
}

// RunSummary is one line of `runs`.
type RunSummary struct {
	ID string
	// Number is the run's place in this store, 1 for its first run
	// (docs/SPEC.md#short-names): what a person types to name it.
	Number         int64
	SessionID      string
	CreatedAt      time.Time
	FinishedAt     time.Time // zero while RUNNING
	Query          string
	Intent         string
	Status         runrecord.RunStatus
	ReleaseOutcome runrecord.Outcome
	StopReason     runrecord.StopReason // INTERRUPTED is set by recovery
	Lifecycle      runrecord.Lifecycle
	Model          string
	Usage          runrecord.Usage // includes the run's duration
	ErrorCode      string
	ReplayOf       string
}

// RunDetail is one run in full, for `runs show` and `replay`.
type RunDetail struct {
	RunSummary
	Answer          string
	PublishedResult json.RawMessage // nil when NULL
	Checks          json.RawMessage // a runrecord.Check array as stored (DecodeChecks); nil when NULL
	Host            string
	Clock           time.Time
	// Settings is the runrecord.Settings object as stored in the budget column
	// (DecodeSettings); nil when NULL.
	Settings     json.RawMessage
	ErrorMessage string
	PID          int
	Hostname     string
	Invocations  []runrecord.Invocation // by Seq; GetRunPage reads one page of them
	// InvocationsTotal is how many tool invocations the run holds, and
	// InvocationsOffset how many of the first were skipped before
	// Invocations (0 from GetRun, which reads them all).
	InvocationsTotal  int
	InvocationsOffset int
	ModelRounds       []runrecord.ModelRound // by Seq
	GuardReviews      []GuardReview          // by Seq
}

// ListFilter selects runs for `runs`.
type ListFilter struct {
	SessionID string // "" for all sessions
	Limit     int    // 0 means DefaultListLimit
}

// DefaultListLimit is how many runs `runs` lists when not told.
const DefaultListLimit = 20

// InvocationPage selects the tool invocations GetRunPage reads: at most
// Limit of them (1 to MaxInvocationPage) in Seq order, after skipping the
// first Offset. A run may hold far more than a reader can show: before
// answers were capped at 32 calls, one answer could audit 80,000 steps.
type InvocationPage struct {
	Offset, Limit int
}

// Check refuses a page out of bounds, saying which bound it breaks in the
// words of the flags and arguments that give it (offset, limit).
func (p InvocationPage) Check() error {
	switch {
	case p.Offset < 0:
		return fmt.Errorf("offset must be at least 0, got %d", p.Offset)
	case p.Limit < 1 || p.Limit > MaxInvocationPage:
		return fmt.Errorf("limit must be 1 to %d, got %d", MaxInvocationPage, p.Limit)
	}
	return nil
}

// The page sizes of `runs show` and MCP's run_show: the default, and the
// most one page may hold.
const (
	DefaultInvocationPage = 50
	MaxInvocationPage     = 200
)

// SafeDiagnosis is the raw material of a PreviousTurn: the published result
// of a session's last safe diagnosis, unvalidated (the caller parses it and
// gives no PreviousTurn when it is corrupt).
type SafeDiagnosis struct {
	RunID           string
	Query           string
	PublishedResult json.RawMessage
	CreatedAt       time.Time
}

// CreateRun stores a new RUNNING run owned by this process (its pid and host
// name are recorded for interrupted-run recovery) and marks its session used.
func (s *Store) CreateRun(ctx context.Context, r NewRun) error {
	if err := checkID("run", r.ID); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	if err := checkID("session", r.SessionID); err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	if err := oneOf("intent", r.Intent, append([]string{""}, runrecord.Intents()...)...); err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	settings, err := settingsJSON(r.Settings)
	if err != nil {
		return fmt.Errorf("create run %s: encode settings: %w", r.ID, err)
	}
	if r.ReplayOf != "" {
		if err := checkID("replayed run", r.ReplayOf); err != nil {
			return fmt.Errorf("create run %s: %w", r.ID, err)
		}
	}
	r.Query = storedText(r.Query)
	created := r.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	clock := ""
	if !r.Clock.IsZero() {
		clock = r.Clock.Format(time.RFC3339Nano)
	}

	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create run %s: begin: %w", r.ID, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM sessions WHERE id = ?`, r.SessionID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("create run %s: session %q: %w (create it first)", r.ID, r.SessionID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("create run %s: find session: %w", r.ID, err)
	}
	if r.ReplayOf != "" {
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, r.ReplayOf).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("create run %s: replayed run %q: %w", r.ID, r.ReplayOf, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("create run %s: find replayed run: %w", r.ID, err)
		}
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO runs
		(id, session_id, created_at, query, intent, status, model, host, clock, budget, replay_of, pid, hostname)
		VALUES (?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		r.ID, r.SessionID, unixMS(created), r.Query, r.Intent, r.Model, r.Host, clock,
		nullJSON(settings), nullString(r.ReplayOf), s.pid, s.hostname)
	if err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	} else if n == 0 {
		return fmt.Errorf("create run %s: %w", r.ID, ErrExists)
	}
	if err := touchSession(ctx, tx, r.SessionID, r.Intent, r.Query, created); err != nil {
		return fmt.Errorf("create run %s: %w", r.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create run %s: commit: %w", r.ID, err)
	}
	return nil
}

// touchSession marks a session used and, once the intent is known, records
// the turn as the router's last intent and query.
func touchSession(ctx context.Context, tx *sql.Tx, sessionID, intent, query string, at time.Time) error {
	var err error
	if intent == "" {
		_, err = tx.ExecContext(ctx,
			`UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?`, unixMS(at), sessionID)
	} else {
		_, err = tx.ExecContext(ctx,
			`UPDATE sessions SET updated_at = max(updated_at, ?), last_intent = ?, last_query = ? WHERE id = ?`,
			unixMS(at), intent, query, sessionID)
	}
	if err != nil {
		return fmt.Errorf("update session %s: %w", sessionID, err)
	}
	return nil
}

// SetIntent records the router's decision on a RUNNING run and makes it the
// session's last intent and query.
func (s *Store) SetIntent(ctx context.Context, runID, intent string) error {
	if err := oneOf("intent", intent, runrecord.Intents()...); err != nil {
		return fmt.Errorf("set intent of run %s: %w", runID, err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("set intent of run %s: begin: %w", runID, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var sessionID, query, status string
	err = tx.QueryRowContext(ctx, `SELECT session_id, query, status FROM runs WHERE id = ?`, runID).
		Scan(&sessionID, &query, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("set intent of run %q: %w", runID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set intent of run %s: %w", runID, err)
	}
	if status != string(runrecord.RunStatusRunning) {
		return fmt.Errorf("set intent of run %s: it is %s: %w", runID, status, ErrAlreadyTerminal)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET intent = ? WHERE id = ?`, intent, runID); err != nil {
		return fmt.Errorf("set intent of run %s: %w", runID, err)
	}
	if err := touchSession(ctx, tx, sessionID, intent, query, time.Now()); err != nil {
		return fmt.Errorf("set intent of run %s: %w", runID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("set intent of run %s: commit: %w", runID, err)
	}
	return nil
}

// validate checks a terminal record against the release contract: a
// PublishedResult only with release outcome SUCCESS, and an outcome that
// agrees with the status (FALLBACK is a SUCCESS run).
func (f Finish) validate() error {
	if err := oneOf("status", f.Status, runrecord.RunStatusSuccess, runrecord.RunStatusFailed, runrecord.RunStatusCancelled); err != nil {
		return err
	}
	allowed := map[runrecord.RunStatus][]runrecord.Outcome{
		runrecord.RunStatusSuccess:   {"", runrecord.OutcomeSuccess, runrecord.OutcomeFallback},
		runrecord.RunStatusFailed:    {"", runrecord.OutcomeFailed},
		runrecord.RunStatusCancelled: {"", runrecord.OutcomeCancelled},
	}[f.Status]
	if err := oneOf("release outcome for status "+string(f.Status), f.ReleaseOutcome, allowed...); err != nil {
		return err
	}
	if err := oneOf("lifecycle", f.Lifecycle, "", runrecord.Completed, runrecord.BudgetExhausted,
		runrecord.DeadlineReached, runrecord.Cancelled, runrecord.Failed); err != nil {
		return err
	}
	if f.PublishedResult != nil && f.ReleaseOutcome != runrecord.OutcomeSuccess {
		return fmt.Errorf("a published result needs release outcome SUCCESS, not %q", f.ReleaseOutcome)
	}
	if err := checkJSON("published result", f.PublishedResult, '{'); err != nil {
		return err
	}
	u := f.Usage
	if u.ModelCalls < 0 || u.ToolCalls < 0 || u.PromptTokens < 0 || u.CompletionTokens < 0 || u.Bytes < 0 || u.DurationMS < 0 {
		return fmt.Errorf("negative usage or duration: %+v", u)
	}
	return nil
}

// FinishRun performs the run's one terminal transition. A run that is no
// longer RUNNING is left as it is and ErrAlreadyTerminal is returned; a
// missing run returns ErrNotFound.
func (s *Store) FinishRun(ctx context.Context, runID string, f Finish) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("finish run %s: %w", runID, err)
	}
	f.Answer, f.ErrorMessage = storedText(f.Answer), storedText(f.ErrorMessage)
	var err error
	if f.PublishedResult, err = storedJSON("published result", f.PublishedResult); err != nil {
		return fmt.Errorf("finish run %s: %w", runID, err)
	}
	var checks json.RawMessage
	if f.Checks != nil {
		if checks, err = json.Marshal(f.Checks); err != nil {
			return fmt.Errorf("finish run %s: encode checks: %w", runID, err)
		}
		if checks, err = storedJSON("checks", checks); err != nil {
			return fmt.Errorf("finish run %s: %w", runID, err)
		}
	}
	at := f.FinishedAt
	if at.IsZero() {
		at = time.Now()
	}
	res, err := s.db.ExecContext(ctx, `UPDATE runs SET
		status = ?, release_outcome = ?, stop_reason = ?, lifecycle = ?, answer = ?,
		published_result = ?, checks = ?,
		model_calls = ?, tool_calls = ?, prompt_tokens = ?, completion_tokens = ?, bytes = ?,
		duration_ms = ?, error_code = ?, error_message = ?, finished_at = ?
		WHERE id = ? AND status = 'RUNNING'`,
		f.Status, nullString(f.ReleaseOutcome), f.StopReason, nullString(f.Lifecycle), f.Answer,
		nullJSON(f.PublishedResult), nullJSON(checks),
		f.Usage.ModelCalls, f.Usage.ToolCalls, f.Usage.PromptTokens, f.Usage.CompletionTokens, f.Usage.Bytes,
		f.Usage.DurationMS, f.ErrorCode, f.ErrorMessage, unixMS(at),
		runID)
	if err != nil {
		return fmt.Errorf("finish run %s: %w", runID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("finish run %s: %w", runID, err)
	}
	if n == 0 {
		return s.refusal(ctx, "finish run", runID)
	}
	return nil
}

// refusal explains why a write guarded by "status = 'RUNNING'" changed
// nothing: the run is missing, or it already finished.
func (s *Store) refusal(ctx context.Context, op, runID string) error {
	var status string
	err := s.db.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s %q: %w", op, runID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, runID, err)
	}
	return fmt.Errorf("%s %s: it is %s: %w", op, runID, status, ErrAlreadyTerminal)
}

// summaryColumns are the runs columns scanned by scanSummary, in order.
func (s *Store) summaryColumns() string {
	return `id, session_id, created_at, finished_at, query, intent, status,
	release_outcome, stop_reason, lifecycle, model,
	model_calls, tool_calls, prompt_tokens, completion_tokens, bytes, duration_ms,
	error_code, replay_of, ` + s.numberColumn()
}

// runNumbersFrom is the version of the store's own schema from which runs
// has its number column (migration 6).
const runNumbersFrom = 6

// unmigratedNumber is a run's number in a file before migration 6, opened
// read-only and so not migrated: the number migration 6 will give it, its
// place by creation time, then insertion order.
const unmigratedNumber = `(SELECT count(*) FROM runs AS earlier
	WHERE earlier.created_at < runs.created_at OR (earlier.created_at = runs.created_at AND earlier.rowid <= runs.rowid))`

// numberColumn is the expression of a run's number in this file.
func (s *Store) numberColumn() string {
	if s.schema < runNumbersFrom {
		return unmigratedNumber
	}
	return "number"
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanSummary reads summaryColumns (plus extra destinations after them).
func scanSummary(sc scanner, r *RunSummary, extra ...any) error {
	var (
		created                      int64
		finished                     sql.NullInt64
		outcome, lifecycle, replayOf sql.NullString
		number                       sql.NullInt64
		u                            = &r.Usage
	)
	dest := append([]any{&r.ID, &r.SessionID, &created, &finished, &r.Query, &r.Intent, &r.Status,
		&outcome, &r.StopReason, &lifecycle, &r.Model,
		&u.ModelCalls, &u.ToolCalls, &u.PromptTokens, &u.CompletionTokens, &u.Bytes, &u.DurationMS,
		&r.ErrorCode, &replayOf, &number}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return err
	}
	r.CreatedAt, r.ErrorCode, r.Number = fromMS(created), ToolErrorCode(r.ErrorCode), number.Int64
	if finished.Valid {
		r.FinishedAt = fromMS(finished.Int64)
	}
	r.ReleaseOutcome, r.Lifecycle, r.ReplayOf = runrecord.Outcome(outcome.String), runrecord.Lifecycle(lifecycle.String), replayOf.String
	return nil
}

// ListRuns returns run summaries newest first.
func (s *Store) ListRuns(ctx context.Context, f ListFilter) ([]RunSummary, error) {
	if f.Limit < 0 {
		return nil, fmt.Errorf("list runs: limit %d is negative: give a positive number (0 for the default %d)", f.Limit, DefaultListLimit)
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	var (
		rows *sql.Rows
		err  error
	)
	if f.SessionID == "" {
		rows, err = s.db.QueryContext(ctx, `SELECT `+s.summaryColumns()+`, pid, hostname FROM runs
			ORDER BY created_at DESC, rowid DESC LIMIT ?`, limit)
	} else {
		rows, err = s.db.QueryContext(ctx, `SELECT `+s.summaryColumns()+`, pid, hostname FROM runs WHERE session_id = ?
			ORDER BY created_at DESC, rowid DESC LIMIT ?`, f.SessionID, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	out := make([]RunSummary, 0, min(limit, 256))
	for rows.Next() {
		var (
			r    RunSummary
			pid  int
			host string
		)
		if err := scanSummary(rows, &r, &pid, &host); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		s.asInterrupted(&r, pid, host)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return out, nil
}

// GetRun returns one run with its whole audit, read from one snapshot;
// ErrNotFound when there is no such run.
func (s *Store) GetRun(ctx context.Context, id string) (*RunDetail, error) {
	return s.getRun(ctx, id, -1, 0)
}

// GetRunPage is GetRun reading only page's tool invocations, with the run's
// total count of them; an offset past the last reads none. A page outside
// its bounds is an error.
func (s *Store) GetRunPage(ctx context.Context, id string, page InvocationPage) (*RunDetail, error) {
	if err := page.Check(); err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return s.getRun(ctx, id, page.Limit, page.Offset)
}

// getRun reads a run with limit of its invocations (-1 for all) after offset.
func (s *Store) getRun(ctx context.Context, id string, limit, offset int) (*RunDetail, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("get run %s: begin: %w", id, err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only

	d := &RunDetail{}
	var (
		published, checks, settings sql.NullString
		clock                       string
	)
	err = scanSummary(tx.QueryRowContext(ctx, `SELECT `+s.summaryColumns()+`,
		answer, published_result, checks, host, clock, budget, error_message, pid, hostname
		FROM runs WHERE id = ?`, id), &d.RunSummary,
		&d.Answer, &published, &checks, &d.Host, &clock, &settings, &d.ErrorMessage, &d.PID, &d.Hostname)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	d.PublishedResult, d.Checks, d.Settings = rawJSON(published), rawJSON(checks), rawJSON(settings)
	if s.asInterrupted(&d.RunSummary, d.PID, d.Hostname) {
		d.ErrorMessage = interruptedMessage(d.PID, d.Hostname)
	}
	if clock != "" {
		if d.Clock, err = time.Parse(time.RFC3339Nano, clock); err != nil {
			return nil, fmt.Errorf("get run %s: stored clock %q: %w", id, clock, err)
		}
	}
	if d.Invocations, err = s.invocations(ctx, tx, id, limit, offset); err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	d.InvocationsTotal, d.InvocationsOffset = len(d.Invocations), offset
	if limit >= 0 {
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tool_invocations WHERE run_id = ?`, id).Scan(&d.InvocationsTotal); err != nil {
			return nil, fmt.Errorf("get run %s: count tool invocations: %w", id, err)
		}
	}
	if d.ModelRounds, err = modelRounds(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	if d.GuardReviews, err = guardReviews(ctx, tx, id); err != nil {
		return nil, fmt.Errorf("get run %s: %w", id, err)
	}
	return d, nil
}

// LastSafeDiagnosis returns the published result of the session's most
// recent run with intent DIAGNOSIS and release outcome SUCCESS; newer
// FALLBACK, FAILED, CANCELLED, RUNNING or non-diagnosis runs are skipped, as
// PreviousTurn requires. ok is false when there is no such run, and also when
// that run's published result is NULL or blank: a damaged record fails closed
// (no PreviousTurn) rather than reviving an older diagnosis. The JSON is not
// validated here; the caller parses it and gives no PreviousTurn when corrupt.
func (s *Store) LastSafeDiagnosis(ctx context.Context, sessionID string) (d SafeDiagnosis, ok bool, err error) {
	var (
		created int64
		result  sql.NullString
	)
	err = s.db.QueryRowContext(ctx, `SELECT id, query, published_result, created_at FROM runs
		WHERE session_id = ? AND intent = 'DIAGNOSIS' AND status = 'SUCCESS' AND release_outcome = 'SUCCESS'
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, sessionID).
		Scan(&d.RunID, &d.Query, &result, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return SafeDiagnosis{}, false, nil
	}
	if err != nil {
		return SafeDiagnosis{}, false, fmt.Errorf("last safe diagnosis of session %s: %w", sessionID, err)
	}
	if !result.Valid || strings.TrimSpace(result.String) == "" {
		return SafeDiagnosis{}, false, nil
	}
	d.PublishedResult = json.RawMessage(result.String)
	d.CreatedAt = fromMS(created)
	return d, true, nil
}

// oneOf rejects a value outside the allowed set, naming the field and the
// accepted values.
func oneOf[T ~string](field string, v T, allowed ...T) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("invalid %s %q: want one of %q", field, v, allowed)
}

// checkJSON accepts nil (stored as NULL) or valid JSON whose first
// non-space byte is want ('{' object, '[' array; 0 for any value).
func checkJSON(field string, v json.RawMessage, want byte) error {
	if v == nil {
		return nil
	}
	if !json.Valid(v) {
		return fmt.Errorf("%s is not valid JSON", field)
	}
	if want != 0 {
		if t := bytes.TrimLeft(v, " \t\r\n"); t[0] != want {
			kind := map[byte]string{'{': "object", '[': "array"}[want]
			return fmt.Errorf("%s must be a JSON %s", field, kind)
		}
	}
	return nil
}

// nullJSON stores nil JSON as NULL.
func nullJSON(v json.RawMessage) any {
	if v == nil {
		return nil
	}
	return string(v)
}

// nullString stores "" as NULL, for nullable enum columns.
func nullString[T ~string](v T) any {
	if v == "" {
		return nil
	}
	return string(v)
}

// rawJSON reads a nullable JSON column.
func rawJSON(v sql.NullString) json.RawMessage {
	if !v.Valid {
		return nil
	}
	return json.RawMessage(v.String)
}

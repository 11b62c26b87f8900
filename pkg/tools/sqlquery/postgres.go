package sqlquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
	pgq "github.com/pganalyze/pg_query_go/v6"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// PostgresToolName is the name the model calls the PostgreSQL tool by: the
// name tells it which SQL dialect to write.
const PostgresToolName = "query_postgres"

// pgConnectTimeout bounds opening a connection when the DSN sets no
// connect_timeout.
const pgConnectTimeout = 5 * time.Second

// postgresConfig parses the DSN with pgconn (libpq URL or keywords; sslmode,
// sslrootcert and the other parameters pass through) and installs the
// context handler that sends a cancel request to the server when a
// statement's deadline passes, so no statement outlives its timeout. Its
// errors never quote the DSN.
func postgresConfig(d Database) (*pgconn.Config, error) {
	cfg, err := pgconn.ParseConfig(d.DSN.Reveal())
	if err != nil {
		return nil, fmt.Errorf("database %q: the postgres dsn is invalid: use postgres://user:password@host:5432/dbname or keywords host=HOST user=USER dbname=NAME", d.Name)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	cfg.MaxProtocolMessageBodyLen = pgMaxMessageBytes
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: killTimeout}
	}
	return cfg, nil
}

// queryPostgres checks the statement and runs it through every
// server-side layer.
func (h *handle) queryPostgres(ctx context.Context, stmt string, maxRows int) (Result, error) {
	c, err := checkPostgres(stmt)
	if err != nil {
		return Result{}, err
	}
	return h.runPostgres(ctx, "", maxRows, c, timeLimits{server: h.db.Timeout, client: h.db.Timeout})
}

// pgExecutable is the text that runs: the deparsed statement, with a LIMIT
// of one row past the cap added to a SELECT that has none, so the server
// stops producing rows nobody reads.
func pgExecutable(c *PostgresChecked, maxRows int) (string, error) {
	sel := c.tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if c.Kind != KindSelect || sel == nil || sel.GetLimitCount() != nil {
		out, err := safePGDeparse(c.tree)
		if err != nil {
			return "", refuse(ReasonUnparsable, egress.Sprintf("%v", err))
		}
		return out, nil
	}
	sel.LimitCount = pgq.MakeAConstIntNode(int64(maxRows+1), -1)
	sel.LimitOption = pgq.LimitOption_LIMIT_OPTION_COUNT
	defer func() { sel.LimitCount, sel.LimitOption = nil, pgq.LimitOption_LIMIT_OPTION_DEFAULT }()
	out, err := safePGDeparse(c.tree)
	if err != nil {
		return "", refuse(ReasonUnparsable, egress.Sprintf("%v", err))
	}
	return out, nil
}

// pgSessionSetup is our own statement, sent before the model's: a READ ONLY
// transaction whose settings end with it (SET LOCAL): the statement, lock
// and idle time limits, and read-only as the default of anything the
// statement might start, and pg_catalog first on the search path (a table
// name and a regclass literal resolve as the role's own path says; every
// function and operator the admitted statement names is qualified with
// pg_catalog by pgResolve, so no other schema's can win).
func pgSessionSetup(limit time.Duration) string {
	ms := strconv.FormatInt(max(1, limit.Milliseconds()), 10)
	return "BEGIN READ ONLY; " +
		"SET LOCAL statement_timeout = " + ms + "; " +
		"SET LOCAL lock_timeout = " + ms + "; " +
		"SET LOCAL idle_in_transaction_session_timeout = " + strconv.FormatInt(max(1, (limit+killTimeout).Milliseconds()), 10) + "; " +
		"SET LOCAL default_transaction_read_only = on; " +
		"SELECT pg_catalog.set_config('search_path', 'pg_catalog, ' || pg_catalog.current_setting('search_path'), true)"
}

// runPostgres is every layer after the guard. Its own connection; BEGIN
// READ ONLY with the session limits; for an admitted statement c, what the
// server resolves (pgResolve: functions and operators qualified with
// pg_catalog, views built on refused catalogs refused, settings masked at
// the source)
// decides the text that runs; the statement alone in one extended-protocol
// message (the server refuses a second statement there, where the simple
// protocol would run it) under a client deadline that sends a cancel
// request; ROLLBACK; close. With c nil, text runs as given (the seam tests
// use it to show each server-side layer holds with the guard bypassed) and
// masking goes by column name.
func (h *handle) runPostgres(ctx context.Context, text string, maxRows int, c *PostgresChecked, lim timeLimits) (res Result, err error) {
	conn, err := pgconn.ConnectConfig(ctx, h.pgcfg)
	if err != nil {
		if tools.ContextCode(ctx.Err()) == tools.CodeCancelled {
			return Result{}, &cancelledError{where: h.where(), how: "while connecting", err: err}
		}
		return Result{}, &unavailableError{where: h.where(), err: err}
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		// Closing ends the backend; a transaction still open rolls back.
		_ = conn.Close(cctx)
	}()
	if err := conn.Exec(ctx, pgSessionSetup(lim.server)).Close(); err != nil {
		return Result{}, h.pgFailure(ctx, fmt.Errorf("start the read-only transaction: %w", err))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		if _, rerr := conn.Exec(rctx, "ROLLBACK").ReadAll(); rerr != nil && err == nil {
			err = fmt.Errorf("%s: rollback: %w", h.where(), rerr)
		}
	}()

	qctx, cancel := context.WithTimeout(ctx, lim.client)
	defer cancel()
	var resolved *pgResolution
	if c != nil {
		var rerr error
		if text, resolved, rerr = pgResolve(qctx, conn, c, maxRows); rerr != nil {
			if _, refused := IsRefusal(rerr); refused {
				return Result{}, rerr
			}
			return Result{}, h.pgFailure(ctx, pgMaskError(rerr, c.Rendered))
		}
	}
	res, qerr := readPGRows(qctx, conn, text, maxRows, c, resolved)
	if qerr != nil {
		qerr = pgMaskError(qerr, text)
		if qctx.Err() != nil || pgCode(qerr) == pgQueryCanceled || pgCode(qerr) == pgLockNotAvailable {
			how, limit := "cancel request sent", lim.client
			if name := pgServerLimit(qerr); name != "" {
				how, limit = "the server's own limit stopped it: "+name, lim.server
			}
			if tools.ContextCode(ctx.Err()) == tools.CodeCancelled {
				return Result{}, &cancelledError{where: h.where(), how: how, err: qerr}
			}
			return Result{}, &timeoutError{where: h.where(), limit: limit, how: how, err: qerr}
		}
		return Result{}, h.pgFailure(ctx, qerr)
	}
	res.Database = h.db.Name
	return res, nil
}

// pgFailure wraps an error of the server or the connection.
func (h *handle) pgFailure(ctx context.Context, err error) error {
	if tools.ContextCode(ctx.Err()) == tools.CodeCancelled {
		return &cancelledError{where: h.where(), how: "the call was cancelled", err: err}
	}
	if isPGConnError(err) {
		return &unavailableError{where: h.where(), err: err}
	}
	return fmt.Errorf("%s: %w", h.where(), err)
}

// readPGRows runs text in one extended-protocol message with every result
// column in text format (PostgreSQL's own rendering of each type) and reads
// at most maxRows rows, and one more to know whether the answer was
// truncated. Cells are bounded, cleaned and masked as query_mysql's are,
// and by what the server returns: a composite or record value that can
// carry a secret-named column is masked whole (pgTypeSecrets), an EXPLAIN's
// literals that are not the statement's own are masked (pgMaskPlanLiterals).
// No message over pgMaxMessageBytes is read (postgresConfig).
func readPGRows(ctx context.Context, conn *pgconn.PgConn, text string, maxRows int, c *PostgresChecked, resolved *pgResolution) (Result, error) {
	rr := conn.ExecParams(ctx, text, nil, nil, nil, nil)
	fields := rr.FieldDescriptions()
	res := Result{Columns: make([]string, len(fields)), Rows: [][]any{}}
	for i, f := range fields {
		res.Columns[i] = Cell(f.Name).(string)
	}
	mask := newColumnMask(nil, res.Columns, nil)
	for i, secret := range pgSecretOutputs(c, res.Columns, resolved) {
		mask.secret[i] = mask.secret[i] || secret
	}
	if mask.key >= 0 && mask.val < 0 {
		// SHOW ALL and pg_settings answer name / setting.
		for i, n := range res.Columns {
			if i != mask.key && strings.EqualFold(n, "setting") {
				mask.val = i
			}
		}
	}
	explain := c != nil && c.Kind == KindExplain
	for rr.NextRow() {
		if len(res.Rows) == maxRows {
			res.Truncated = true
			break
		}
		vals := rr.Values()
		row := make([]any, len(vals))
		for i, v := range vals {
			if explain && v != nil {
				v = []byte(pgMaskPlanLiterals(string(pgClip(v)), c.Rendered))
			}
			row[i] = pgCell(v, fields[i].DataTypeOID)
		}
		mask.apply(row)
		if mask.key >= 0 && mask.val >= 0 {
			if k, ok := row[mask.key].(string); ok && pgSecretSetting(k) && row[mask.val] != nil && row[mask.val] != "" {
				row[mask.val] = egress.Marker
			}
		}
		res.Rows = append(res.Rows, row)
	}
	if _, err := rr.Close(); err != nil {
		var big *pgproto3.ExceededMaxBodyLenErr
		if errors.As(err, &big) {
			return Result{}, &tooLargeError{size: big.ActualBodyLen, limit: big.MaxExpectedBodyLen}
		}
		return Result{}, err
	}
	oids := make([]uint32, len(fields))
	for i, f := range fields {
		oids[i] = f.DataTypeOID
	}
	secretTypes, err := pgTypeSecrets(ctx, conn, oids, resolved)
	if err != nil {
		return Result{}, err
	}
	for i, oid := range oids { // fields is pgconn's buffer, reused by the query above
		if secretTypes[oid] && !mask.secret[i] {
			for _, row := range res.Rows {
				row[i] = egress.Cell(row[i], true)
			}
		}
	}
	res.RowCount = len(res.Rows)
	return res, nil
}

// pgMaxMessageBytes bounds one protocol message the client reads (a row,
// an error): a row over it fails the call with a clear error instead of
// holding its size in memory (pgconn refuses the message from its length
// header, before reading the body).
const pgMaxMessageBytes = 4 << 20

// pgCellReadBytes bounds the text of one cell that masking and cleaning
// look at: far more than MaxCellBytes, so a secret near the cut is still
// recognised, and far less than a cell can be.
const pgCellReadBytes = 64 << 10

// tooLargeError is an answer with a row over pgMaxMessageBytes.
type tooLargeError struct{ size, limit int }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("a row of the answer is %d bytes, over the %d-byte read limit: select fewer or shorter columns (left(col, 200), length(col))", e.size, e.limit)
}

// pgClip cuts a cell to pgCellReadBytes on a rune boundary.
func pgClip(v []byte) []byte {
	if len(v) <= pgCellReadBytes {
		return v
	}
	cut := pgCellReadBytes
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut]
}

// pgCell turns one text-format value into a bounded JSON value: NULL →
// null, numbers stay numbers, booleans booleans, everything else is text
// through Cell (masked, cleaned, cut to MaxCellBytes).
func pgCell(v []byte, oid uint32) any {
	if v == nil {
		return nil
	}
	switch oid {
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID, pgtype.Float4OID, pgtype.Float8OID, pgtype.NumericOID:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && !isInfOrNaN(f) {
			return json.Number(string(v))
		}
	case pgtype.BoolOID:
		switch string(v) {
		case "t":
			return true
		case "f":
			return false
		}
	}
	return Cell(pgClip(v))
}

func isInfOrNaN(f float64) bool { return f != f || f > 1e308 || f < -1e308 }

// The SQLSTATE codes the tool tells apart.
const (
	pgReadOnlyTransaction = "25006" // a write inside the READ ONLY transaction
	pgQueryCanceled       = "57014" // statement_timeout or a cancel request
	pgLockNotAvailable    = "55P03" // lock_timeout
)

// pgCode is the server's SQLSTATE, "" when err is not a server error.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// pgServerLimit names the server setting that stopped a statement, ""
// when the server did not stop it by a limit of its own (a cancel request
// ends it with the same SQLSTATE as statement_timeout but another message).
func pgServerLimit(err error) string {
	var pe *pgconn.PgError
	switch {
	case !errors.As(err, &pe):
		return ""
	case pe.Code == pgLockNotAvailable:
		return "lock_timeout"
	case pe.Code == pgQueryCanceled && strings.Contains(pe.Message, "statement timeout"):
		return "statement_timeout"
	}
	return ""
}

// isPGConnError recognises a lost or refused connection: connection
// exceptions (08), authentication (28), a missing database (3D000), too many
// connections (53300) and a server shutting down (57P01-57P03).
func isPGConnError(err error) bool {
	code := pgCode(err)
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "28"), code == "3D000", code == "53300",
		code == "57P01", code == "57P02", code == "57P03":
		return true
	case code != "":
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) || errors.Is(err, net.ErrClosed)
}

// pgNotReadOnly recognises the server refusing a write in the READ ONLY
// transaction.
func pgNotReadOnly(err error) bool { return pgCode(err) == pgReadOnlyTransaction }

// pgWhere names a PostgreSQL database for error messages: host and port
// only, never the user's password.
func pgWhere(name string, cfg *pgconn.Config) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("database %q at socket %s (port %d)", name, host, cfg.Port)
	}
	return fmt.Sprintf("database %q at %s", name, net.JoinHostPort(host, strconv.Itoa(int(cfg.Port))))
}

// pgDescription is query_postgres's description for the model.
const pgDescription = "Run one read-only PostgreSQL statement (SELECT, VALUES, TABLE, SHOW, EXPLAIN without ANALYZE) against a configured PostgreSQL database " +
	"and return columns and rows. Use it to check order, payment, lock-wait (pg_locks, pg_stat_activity wait events, pg_blocking_pids) or connection state at the time of an incident."

// pgSQLDescription replaces the MySQL wording of the sql member for query_postgres.
const pgSQLDescription = "exactly one read-only PostgreSQL statement: SELECT (joins, aggregates, CTEs, subqueries), VALUES, TABLE, SHOW or EXPLAIN without ANALYZE; " +
	"built-in functions only (no user-defined functions, nextval, pg_sleep, file or large-object functions, set_config or admin functions); no locking reads, SELECT INTO, " +
	"data-modifying CTEs, SET, COPY, DO, CALL or transaction control; no credential catalogs (pg_authid, pg_shadow, pg_user_mapping), function or view bodies " +
	"(pg_proc.prosrc, pg_views.definition) or other sessions' statement text (pg_stat_activity.query): for sessions select pid, usename, state, wait_event_type, wait_event, " +
	"query_start, pg_blocking_pids(pid) from pg_stat_activity"

package sqlquery

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/superbiz/superbiz/pkg/tools"
)

// killTimeout bounds the KILL QUERY and ROLLBACK issued after a statement ends.
const killTimeout = 3 * time.Second

// mysqlConfig parses the DSN and forces the driver settings the read-only
// layers rely on. Its errors never quote the DSN.
func mysqlConfig(d Database) (*mysql.Config, error) {
	cfg, err := mysql.ParseDSN(d.DSN.Reveal())
	if err != nil {
		// The driver's message names the problem, not the DSN's content.
		return nil, fmt.Errorf("database %q: the mysql dsn is invalid (%v): use user:password@tcp(host:port)/dbname", d.Name, err)
	}
	cfg.MultiStatements = false
	cfg.InterpolateParams = false
	cfg.AllowAllFiles = false
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Logger = &mysql.NopLogger{}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	// A backstop behind the server limit and the context deadline.
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = d.Timeout + 30*time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	return cfg, nil
}

// open connects the pool once and detects MariaDB versus MySQL.
func (h *handle) openMySQL(ctx context.Context) (*sql.DB, Dialect, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pool == nil {
		conn, err := mysql.NewConnector(h.cfg)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: configure driver: %w", h.where(), err)
		}
		h.connector = conn
		h.pool = sql.OpenDB(conn)
		h.pool.SetMaxOpenConns(4)
		h.pool.SetMaxIdleConns(2)
		h.pool.SetConnMaxLifetime(5 * time.Minute)
	}
	if !h.probed {
		var version string
		if err := h.pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
			return nil, 0, &unavailableError{where: h.where(), err: err}
		}
		h.dialect = MySQL
		if strings.Contains(strings.ToLower(version), "mariadb") {
			h.dialect = MariaDB
		}
		h.probed = true
	}
	return h.pool, h.dialect, nil
}

// unavailableError marks a failure to reach the server (UNAVAILABLE).
type unavailableError struct {
	where string
	err   error
}

func (e *unavailableError) Error() string { return e.where + " unreachable: " + e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }

// timeoutError marks a statement stopped by the time limit (TIMEOUT); how
// names the mechanism that stopped it, which differs per engine.
type timeoutError struct {
	where string
	limit time.Duration
	how   string
	err   error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%s: statement exceeded %s (%s): %v", e.where, e.limit, e.how, e.err)
}
func (e *timeoutError) Unwrap() error { return e.err }

// cancelledError marks a statement stopped because the call was cancelled
// (Ctrl-C, a client gone): CANCELLED, never a timeout; how names what
// stopped it.
type cancelledError struct {
	where string
	how   string
	err   error
}

func (e *cancelledError) Error() string {
	return fmt.Sprintf("%s: statement cancelled (%s): %v", e.where, e.how, e.err)
}
func (e *cancelledError) Unwrap() error { return e.err }

// queryMySQL runs one admitted statement: its own connection, a server-side
// time limit, a read-only session and START TRANSACTION READ ONLY, the statement under a context
// deadline with KILL QUERY from a second connection on expiry, and ROLLBACK.
func (h *handle) queryMySQL(ctx context.Context, stmt string, maxRows int) (Result, error) {
	_, dialect, err := h.openMySQL(ctx)
	if err != nil {
		return Result{}, err
	}
	checked, err := check(stmt, dialect, h.schema())
	if err != nil {
		return Result{}, err
	}
	return h.runMySQL(ctx, executable(checked, maxRows), maxRows, checked, timeLimits{server: h.db.Timeout, client: h.db.Timeout})
}

// timeLimits are the two time limits of one statement: the server's own
// (max_statement_time / max_execution_time) and the client's deadline, after
// which KILL QUERY is sent. They are equal in use; tests set them apart to
// show each one stops a statement by itself.
type timeLimits struct {
	server, client time.Duration
}

// runMySQL is every layer after the guard, on text as given: the seam tests
// use to show each server-side layer holds with the guard bypassed. checked
// may be nil (masking then goes by column name).
func (h *handle) runMySQL(ctx context.Context, text string, maxRows int, checked *Checked, lim timeLimits) (res Result, err error) {
	pool, dialect, err := h.openMySQL(ctx)
	if err != nil {
		return Result{}, err
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return Result{}, &unavailableError{where: h.where(), err: err}
	}
	discard := false
	defer func() {
		if discard {
			// The connection's state is unknown: make the pool drop it.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		if cerr := conn.Close(); cerr != nil && !errors.Is(cerr, driver.ErrBadConn) && err == nil {
			err = fmt.Errorf("%s: release connection: %w", h.where(), cerr)
		}
	}()

	var connID int64
	var sqlMode string
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID(), @@SESSION.sql_mode").Scan(&connID, &sqlMode); err != nil {
		discard = true
		return Result{}, &unavailableError{where: h.where(), err: err}
	}
	// The rendered statement escapes quotes with backslashes: make sure the
	// session reads them that way.
	if strings.Contains(strings.ToUpper(sqlMode), "NO_BACKSLASH_ESCAPES") {
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?", withoutMode(sqlMode, "NO_BACKSLASH_ESCAPES")); err != nil {
			discard = true
			return Result{}, fmt.Errorf("%s: clear NO_BACKSLASH_ESCAPES: %w", h.where(), err)
		}
	}
	if _, err := conn.ExecContext(ctx, serverLimit(dialect, lim.server)); err != nil {
		discard = true
		return Result{}, fmt.Errorf("%s: set the server time limit: %w", h.where(), err)
	}
	// START TRANSACTION READ ONLY alone refuses DML only: DDL commits the
	// transaction implicitly and runs. A read-only session refuses it too.
	if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY"); err != nil {
		discard = true
		return Result{}, fmt.Errorf("%s: make the session read-only: %w", h.where(), err)
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
		discard = true
		return Result{}, fmt.Errorf("%s: start read-only transaction: %w", h.where(), err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		if _, rerr := conn.ExecContext(rctx, "ROLLBACK"); rerr != nil {
			discard = true
		}
	}()

	qctx, cancel := context.WithTimeout(ctx, lim.client)
	defer cancel()
	killed := make(chan error, 1)
	stop := context.AfterFunc(qctx, func() { killed <- h.killQuery(ctx, connID) })
	var views *viewTaint
	qerr := error(nil)
	if checked != nil && checked.Kind == KindSelect {
		views, qerr = myViewTaint(qctx, conn, checked.stmt, dialect)
	}
	if qerr == nil {
		res, qerr = readRows(qctx, conn, text, maxRows, checked, views)
	}
	// A server error is evidence and passes the same door: what it quotes
	// from data is masked before any wrapping sees it.
	qerr = myMaskError(qerr, text)
	// After the rows are read (or failed) the kill is moot; if it already
	// started, wait for it so the server is done with the statement. The
	// driver can see the deadline and return before the context runs the
	// kill: stop then wins, and a statement failed by the deadline gets its
	// KILL QUERY here, or it would go on running on the server.
	wasKilled := false
	var killErr error
	switch {
	case !stop():
		killErr = <-killed
		wasKilled = killErr == nil
		discard = true
	case qerr != nil && qctx.Err() != nil:
		killErr = h.killQuery(ctx, connID)
		wasKilled = killErr == nil
		discard = true
	}
	if qerr != nil {
		if qctx.Err() != nil || isServerTimeout(qerr) {
			discard = discard || qctx.Err() != nil
			how, limit := fmt.Sprintf("KILL QUERY sent: %t", wasKilled), lim.client
			if n := mysqlErrorNumber(qerr); n == 1969 || n == 3024 {
				how, limit = "the server's own time limit stopped it: "+serverLimitName(dialect), lim.server
			}
			var terr error = &timeoutError{where: h.where(), limit: limit, how: how, err: qerr}
			if tools.ContextCode(ctx.Err()) == tools.CodeCancelled {
				terr = &cancelledError{where: h.where(), how: how, err: qerr}
			}
			if killErr != nil {
				return Result{}, errors.Join(terr, killErr)
			}
			return Result{}, terr
		}
		if isConnError(qerr) {
			discard = true
			return Result{}, &unavailableError{where: h.where(), err: qerr}
		}
		return Result{}, fmt.Errorf("%s: %w", h.where(), qerr)
	}
	res.Database = h.db.Name
	return res, nil
}

// killQuery stops the statement on the server from a fresh connection
// outside the pool: cancelling the context alone only closes the client side.
func (h *handle) killQuery(ctx context.Context, connID int64) error {
	kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
	defer cancel()
	c, err := h.connector.Connect(kctx)
	if err != nil {
		return fmt.Errorf("%s: connect to send KILL QUERY: %w", h.where(), err)
	}
	defer c.Close()
	ex, ok := c.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("%s: driver connection cannot execute KILL QUERY", h.where())
	}
	if _, err := ex.ExecContext(kctx, "KILL QUERY "+strconv.FormatInt(connID, 10), nil); err != nil {
		var me *mysql.MySQLError
		// 1094: unknown thread — the statement already ended.
		if errors.As(err, &me) && me.Number == 1094 {
			return nil
		}
		return fmt.Errorf("%s: KILL QUERY %d: %w", h.where(), connID, err)
	}
	return nil
}

// serverLimitName names the session variable serverLimit sets.
func serverLimitName(d Dialect) string {
	if d == MariaDB {
		return "max_statement_time"
	}
	return "max_execution_time"
}

// serverLimit is our own statement that bounds the next statement's run time
// on the server, in the unit each dialect uses.
func serverLimit(d Dialect, limit time.Duration) string {
	if d == MariaDB {
		return "SET SESSION " + serverLimitName(d) + " = " + strconv.FormatFloat(limit.Seconds(), 'f', 3, 64)
	}
	return "SET SESSION " + serverLimitName(d) + " = " + strconv.FormatInt(max(1, limit.Milliseconds()), 10)
}

func withoutMode(modes, drop string) string {
	var keep []string
	for _, m := range strings.Split(modes, ",") {
		if m != "" && !strings.EqualFold(m, drop) {
			keep = append(keep, m)
		}
	}
	return strings.Join(keep, ",")
}

// executable is the text that runs: the guard's rendering, with a LIMIT of
// one row past the cap added to a SELECT that has none, so the server stops
// producing rows nobody reads.
func executable(c *Checked, maxRows int) string {
	if c.Kind != KindSelect {
		return c.Rendered
	}
	limit := sqlparser.NewLimitWithoutOffset(maxRows + 1)
	switch s := c.stmt.(type) {
	case *sqlparser.Select:
		if s.Limit != nil {
			return c.Rendered
		}
		s.Limit = limit
		defer func() { s.Limit = nil }()
	case *sqlparser.Union:
		if s.Limit != nil {
			return c.Rendered
		}
		s.Limit = limit
		defer func() { s.Limit = nil }()
	default:
		return c.Rendered
	}
	out, err := safeRender(c.stmt, c.dialect)
	if err != nil {
		return c.Rendered // the checked rendering, without the row-cap LIMIT
	}
	return out
}

// isServerTimeout recognises the servers' "time limit reached" errors:
// 1317 query interrupted, 1969 MariaDB max_statement_time, 3024 MySQL
// MAX_EXECUTION_TIME.
func isServerTimeout(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1317, 1969, 3024:
			return true
		}
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// isConnError recognises a lost or refused connection.
func isConnError(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1040, 1045, 1044, 1049, 1129, 1130, 1203, 2002, 2003, 2006, 2013:
			return true
		}
		return false
	}
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne)
}

// notReadOnly recognises a server refusing a write inside the read-only
// transaction (1792) or the account lacking a privilege to write (1142).
func notReadOnly(err error) bool {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1792
	}
	return false
}

// mysqlErrorNumber is the server's error number, 0 when err is not a server error.
func mysqlErrorNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

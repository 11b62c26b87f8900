package sqlquery

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/superbiz/superbiz/pkg/tools"
)

// sqliteDSN opens the file read-only at the SQLite level (mode=ro) and makes
// every connection refuse writes on its own (query_only), so a write fails
// even if the guard were bypassed.
func sqliteDSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve sqlite path: %w", err)
	}
	u := url.URL{Path: filepath.ToSlash(abs)}
	return "file:" + u.EscapedPath() + "?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)", nil
}

// MaxSQLiteValueBytes caps every string or blob SQLite builds or reads for
// one statement (SQLITE_LIMIT_LENGTH): printf/format widths, replace and
// concat growth, group_concat, json_group_array, hex. Without it
// printf('%.*c', 900000000, 'x') allocates gigabytes in one function call,
// which the time limit cannot interrupt.
const MaxSQLiteValueBytes = 4 << 20

// sqliteLimits are the per-connection limits set before every statement.
var sqliteLimits = []struct {
	id    int
	value int
	name  string
}{
	{sqlite3.SQLITE_LIMIT_LENGTH, MaxSQLiteValueBytes, "SQLITE_LIMIT_LENGTH"},
	{sqlite3.SQLITE_LIMIT_ATTACHED, 0, "SQLITE_LIMIT_ATTACHED"},
}

// setSQLiteLimits lowers the connection's limits: they are per connection
// and a pooled connection may be new.
func setSQLiteLimits(conn *sql.Conn) error {
	for _, l := range sqliteLimits {
		if _, err := sqlite.Limit(conn, l.id, l.value); err != nil {
			return fmt.Errorf("set %s: %w", l.name, err)
		}
	}
	return nil
}

func (h *handle) openSQLite() (*sql.DB, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pool != nil {
		return h.pool, nil
	}
	dsn, err := sqliteDSN(h.db.DSN.Reveal())
	if err != nil {
		return nil, &unavailableError{where: h.where(), err: err}
	}
	pool, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, &unavailableError{where: h.where(), err: err}
	}
	pool.SetMaxOpenConns(2)
	h.pool = pool
	return pool, nil
}

// querySQLite runs one admitted statement inside a transaction that always
// rolls back, with the value-length limit set and under the context deadline
// (modernc calls sqlite3_interrupt when the context ends).
func (h *handle) querySQLite(ctx context.Context, stmt string, maxRows int) (Result, error) {
	checked, err := check(stmt, SQLite, "")
	if err != nil {
		return Result{}, err
	}
	return h.runSQLite(ctx, executable(checked, maxRows), maxRows, checked)
}

// runSQLite is every layer after the guard: the seam tests use to show each
// one holds on its own. checked may be nil (masking then goes by column name).
func (h *handle) runSQLite(ctx context.Context, text string, maxRows int, checked *Checked) (Result, error) {
	pool, err := h.openSQLite()
	if err != nil {
		return Result{}, err
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return Result{}, &unavailableError{where: h.where(), err: err}
	}
	defer conn.Close()
	if err := setSQLiteLimits(conn); err != nil {
		return Result{}, fmt.Errorf("%s: %w", h.where(), err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return Result{}, sqliteOpenError(h, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		_, _ = conn.ExecContext(rctx, "ROLLBACK") // a failed ROLLBACK of a read leaves nothing to undo
	}()
	qctx, cancel := context.WithTimeout(ctx, h.db.Timeout)
	defer cancel()
	var views *viewTaint
	if checked != nil && checked.Kind == KindSelect {
		views, err = myViewTaint(qctx, conn, checked.stmt, SQLite)
	}
	var res Result
	if err == nil {
		res, err = readRows(qctx, conn, text, maxRows, checked, views)
	}
	if err != nil {
		switch {
		case tools.ContextCode(ctx.Err()) == tools.CodeCancelled:
			return Result{}, &cancelledError{where: h.where(), how: "the statement was interrupted (sqlite3_interrupt)", err: err}
		case qctx.Err() != nil || sqliteCode(err) == sqlite3.SQLITE_INTERRUPT:
			return Result{}, &timeoutError{where: h.where(), limit: h.db.Timeout, how: "the statement was interrupted (sqlite3_interrupt)", err: err}
		case sqliteCode(err)&0xff == sqlite3.SQLITE_TOOBIG:
			return Result{}, fmt.Errorf("%s: the statement built or read a value over the SQLite length limit (SQLITE_LIMIT_LENGTH = %d bytes): %w", h.where(), MaxSQLiteValueBytes, err)
		}
		return Result{}, fmt.Errorf("%s: %w", h.where(), err)
	}
	res.Database = h.db.Name
	return res, nil
}

// sqliteOpenError classifies the first statement's failure: a file that
// cannot be opened is UNAVAILABLE.
func sqliteOpenError(h *handle, err error) error {
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH, sqlite3.SQLITE_BUSY:
		return &unavailableError{where: h.where(), err: err}
	}
	return fmt.Errorf("%s: begin: %w", h.where(), err)
}

func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 0
}

// sqliteNotReadOnly recognises SQLite refusing a write (query_only or mode=ro).
func sqliteNotReadOnly(err error) bool {
	return sqliteCode(err)&0xff == sqlite3.SQLITE_READONLY
}

// isServerError is an error the database itself raised about the statement
// (unknown column, syntax the server rejects): the model's input is wrong.
func isServerError(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) || mysqlErrorNumber(err) != 0
}

package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrSchemaBehind is returned by OpenReadOnly for a file whose schema is
// older than this binary's: migrating it would need a write.
var ErrSchemaBehind = errors.New("run store schema is older than this superbiz")

// OpenReadOnly opens an existing run store for reading only (mode=ro and
// query_only): it never creates the file or its directory, never switches
// the journal mode, never migrates and never recovers interrupted runs, so
// `runs` and `runs show` work on an archived copy or a read-only mount. A
// file in WAL mode whose directory does not let SQLite create its -shm
// file is opened as immutable. A missing file is an error wrapping
// fs.ErrNotExist; a schema older or newer than this binary's is refused.
// Writes through the returned Store fail.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	return openReadOnly(ctx, path, false)
}

// OpenSnapshot is OpenReadOnly for a glance that must create and change no
// file at all, SQLite's own included: the shell completion. When no other
// connection has the store open (no -wal file beside it, so every commit
// is in the file itself), the file is read as immutable, which takes no
// lock and creates no -wal or -shm file (a WAL file's reader creates both
// and leaves them). While another process has it open, it is OpenReadOnly:
// the runs in its WAL are read, and a lock that keeps readers out is
// waited on (the caller's deadline bounds that).
func OpenSnapshot(ctx context.Context, path string) (*Store, error) {
	return openReadOnly(ctx, path, true)
}

// openReadOnly is OpenReadOnly, reading a file without a -wal beside it as
// immutable when snapshot is set.
func openReadOnly(ctx context.Context, path string, snapshot bool) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, ErrNoPath
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open run store %s: resolve path: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open run store %s: not a regular file", abs)
	}
	immutable := false
	if snapshot {
		_, err := os.Lstat(abs + "-wal")
		immutable = errors.Is(err, fs.ErrNotExist)
	}
	db, err := openRO(ctx, abs, immutable)
	if err != nil && !immutable && cannotOpen(err) {
		// A WAL file on read-only media: no -shm can be created, and no
		// other process can be writing it, so reading it as immutable is safe.
		db, err = openRO(ctx, abs, true)
	}
	if err != nil {
		return nil, fmt.Errorf("open run store %s read-only: %w", abs, err)
	}
	schema, err := checkSchema(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s read-only: %w", abs, err)
	}
	return &Store{db: db, path: abs, hostname: localHost(), pid: os.Getpid(), schema: schema}, nil
}

// roDSN is the read-only data source name: mode=ro (SQLite refuses every
// write, whoever the process runs as), query_only, and immutable when asked.
func roDSN(absPath string, immutable bool) string {
	q := "mode=ro" +
		"&_pragma=busy_timeout(" + fmt.Sprint(BusyTimeout.Milliseconds()) + ")" +
		"&_pragma=query_only(1)"
	if immutable {
		q += "&immutable=1"
	}
	return fileURI(absPath) + "?" + q
}

// openRO opens the pool and reads the schema once, so an unreadable file
// fails here rather than at the first listing.
func openRO(ctx context.Context, abs string, immutable bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", roDSN(abs, immutable))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// cannotOpen reports SQLite's SQLITE_CANTOPEN or SQLITE_READONLY (any
// extended code): what a WAL file gives when its -shm cannot be created.
func cannotOpen(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_CANTOPEN || code == sqlite3.SQLITE_READONLY
}

// checkSchema returns the version of the file's own schema, refusing one
// this binary cannot read as is (its registered components are not opened
// read-only).
func checkSchema(ctx context.Context, db *sql.DB) (int, error) {
	latest, err := SchemaVersion()
	if err != nil {
		return 0, err
	}
	cur, err := storedVersion(ctx, db, coreName)
	if err != nil {
		return 0, err
	}
	switch {
	case cur > latest:
		return 0, newerError(coreName, cur, latest)
	case cur < readableFrom:
		return 0, fmt.Errorf("%w: version %d, this superbiz needs %d: run any superbiz command on a writable copy once to migrate it", ErrSchemaBehind, cur, latest)
	}
	return cur, nil
}

// readableFrom is the oldest version of the store's own schema read as is:
// migration 3 only widened the runs intent CHECK (TOOL_CALL), so a file of
// version 2 reads the same and stays unwritten; migration 4 added the audit
// record's members to tool_invocations, which a file before it reads as
// empty (auditMembersFrom); migration 5 widened the intent CHECK again
// (TIMELINE), which a file before it never holds; migration 6 numbered the
// runs, which a file before it reads as migration 6 will number them
// (unmigratedNumber).
const readableFrom = 2

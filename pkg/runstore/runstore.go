// Package runstore is superbiz's local SQLite record of every run: sessions,
// runs with their one terminal outcome, and the audit (tool invocations, model
// rounds, guard reviews) that `runs show` prints and `replay` re-executes.
//
// One file in WAL mode is shared safely by several processes at once: writes
// take the write lock up front (BEGIN IMMEDIATE) and wait on a busy timeout,
// the schema is versioned by numbered embedded migrations, the store's own
// and those a component registers for its tables (Component), recorded in
// schema_migrations, and runs left RUNNING by a process that died are closed
// as FAILED (stop reason INTERRUPTED) the next time the file is opened.
package runstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite" // registers the pure-Go "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned when a run or session does not exist, so callers
// can tell "no such run" from a storage failure (errors.Is).
var ErrNotFound = errors.New("not found")

// ErrAlreadyTerminal is returned when a run that already reached its one
// terminal state is finished or appended to again: a run has exactly one
// terminal transition and its audit is immutable afterwards.
var ErrAlreadyTerminal = errors.New("run already finished")

// ErrExists is returned by CreateSession for an ID already in use, so a
// caller generating IDs can tell a collision from a storage failure.
var ErrExists = errors.New("already exists")

// BusyTimeout is how long a statement waits for another process's write
// lock before failing; writes are short, so this is only reached when a
// writer is stuck.
const BusyTimeout = 10 * time.Second

// MaxOpenConns bounds the pool (idle connections are kept up to the same
// number): SQLite has one writer at a time anyway, and every connection
// holds its own page cache.
const MaxOpenConns = 4

// Store is an open run store. It is safe for concurrent use by goroutines,
// and other processes may use the same file at the same time.
type Store struct {
	db       *sql.DB
	path     string
	hostname string
	pid      int
	ids      IDs
	// components names the components registered at Open, whose tables
	// Tables hands out.
	components map[string]bool
	// schema is the version of the store's own schema the file has: the
	// latest after Open migrates it, the file's own when opened read-only.
	schema int
}

// ErrNoPath is an empty or blank path given to Open, OpenReadOnly or
// OpenSnapshot; the caller says where a path comes from.
var ErrNoPath = errors.New("open run store: empty database path")

// Open opens (creating if needed, with its parent directory as 0700) the run
// store at path, applies its pending migrations and those of the registered
// components, and marks runs left RUNNING by a dead process on this host as
// FAILED/INTERRUPTED. It refuses a file whose schema (its own or a
// registered component's) is newer than this binary knows.
func Open(ctx context.Context, path string, registered ...Component) (*Store, error) {
	if strings.TrimSpace(path) == "" {
		return nil, ErrNoPath
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open run store %s: resolve path: %w", path, err)
	}
	comps, err := components(registered)
	if err != nil {
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open run store %s: it is a directory: give a file path such as %s", abs, filepath.Join(abs, "superbiz.db"))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open run store %s: create directory: %w", abs, err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	db.SetMaxOpenConns(MaxOpenConns)
	db.SetMaxIdleConns(MaxOpenConns)
	if err := enableWAL(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	s := &Store{db: db, path: abs, hostname: localHost(), pid: os.Getpid(), components: map[string]bool{}}
	for _, c := range registered {
		s.components[c.Name] = true
	}
	if err := migrate(ctx, db, comps); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	if s.schema, err = SchemaVersion(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	if _, err := s.RecoverInterrupted(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run store %s: %w", abs, err)
	}
	return s, nil
}

// Close releases the database; runs still RUNNING stay so until finished or
// recovered by a later Open after this process exits.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close run store %s: %w", s.path, err)
	}
	return nil
}

// Path is the absolute file path, for `doctor` and error messages.
func (s *Store) Path() string { return s.path }

// dsn builds the modernc.org/sqlite data source name: a busy timeout,
// foreign keys, synchronous=NORMAL (safe in WAL; a power loss may drop the
// last commits, never corrupt the file) and BEGIN IMMEDIATE for write
// transactions so two processes never deadlock upgrading a read lock.
// WAL itself is persistent in the file and set once by enableWAL, not on
// every new connection: switching a new file to WAL while another process
// opens it fails with SQLITE_BUSY without waiting on the busy timeout.
func dsn(absPath string) string {
	q := "_pragma=busy_timeout(" + fmt.Sprint(BusyTimeout.Milliseconds()) + ")" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_txlock=immediate"
	return fileURI(absPath) + "?" + q
}

// enableWAL switches the file to WAL (a no-op when it already is), retrying
// for up to BusyTimeout while another process holds the lock the switch
// needs: SQLite reports that conflict at once instead of waiting.
func enableWAL(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode)
		if err == nil {
			if !strings.EqualFold(mode, "wal") {
				return fmt.Errorf("switch to WAL journal mode: got %q: put the database on a local file system that supports shared memory", mode)
			}
			return nil
		}
		if !isBusy(err) || time.Now().After(deadline) {
			return fmt.Errorf("switch to WAL journal mode: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("switch to WAL journal mode: %w", ctx.Err())
		case <-time.After(wait):
		}
	}
}

// IsFull reports whether err says there is no room left for the store:
// SQLite's SQLITE_FULL (the disk, or a size limit) or ENOSPC, so callers
// report a full disk instead of an internal error.
func IsFull(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL {
		return true
	}
	return errors.Is(err, syscall.ENOSPC)
}

// isBusy reports whether err is SQLite's SQLITE_BUSY or SQLITE_LOCKED (any
// extended code), the errors that mean "another connection holds the lock".
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// fileURI turns an absolute OS path into an SQLite "file:" URI with an
// empty authority ("file:///dir/x.db", "file:////server/share/x.db" for a
// Windows UNC path), escaping the characters URI parsing would otherwise take
// as delimiters ('?', '#', '%') and anything non-printable, so any legal file
// name opens that exact file.
func fileURI(absPath string) string {
	p := filepath.ToSlash(absPath)
	if runtime.GOOS == "windows" && !strings.HasPrefix(p, "/") {
		p = "/" + p // file:///C:/dir/x.db; SQLite drops the slash before a drive letter
	}
	var b strings.Builder
	b.WriteString("file:")
	if strings.HasPrefix(p, "/") {
		b.WriteString("//")
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '?' || c == '#' || c == '%' || c <= 0x20 || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// uriPath decodes the path part of a URI made by fileURI, for tests; it
// rejects a non-empty authority, which SQLite would refuse to open.
func uriPath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, "file:")
	if !ok {
		return "", fmt.Errorf("not a file: URI: %q", uri)
	}
	if strings.ContainsAny(rest, "?#") {
		return "", fmt.Errorf("unescaped delimiter in %q", uri)
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		if !strings.HasPrefix(after, "/") {
			return "", fmt.Errorf("non-empty authority in %q", uri)
		}
		rest = after
	} else if strings.HasPrefix(rest, "/") {
		return "", fmt.Errorf("absolute path without an empty authority in %q", uri)
	}
	return url.PathUnescape(rest)
}

// unixMS is how every timestamp is stored: UTC unix milliseconds, which sort
// numerically.
func unixMS(t time.Time) int64 { return t.UnixMilli() }

// fromMS is the inverse of unixMS, in UTC.
func fromMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// localHost is the host name runs are owned under ("" when it cannot be
// read: interrupted runs are then judged among processes that also failed
// to get one, never on other hosts).
func localHost() string {
	host, err := os.Hostname()
	if err != nil {
		return ""
	}
	return host
}

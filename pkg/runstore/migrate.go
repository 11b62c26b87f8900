package runstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrationFS holds the store's own schema history: migrations/NNNN_name.sql,
// applied in number order, each exactly once per file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// Component is a part of superbiz that keeps its own tables in the run store
// file (the knowledge index): Open applies its migrations with the store's
// and records them under its name, so the store never imports it.
type Component struct {
	// Name keys the component's rows in the migration bookkeeping.
	Name string
	// Migrations holds migrations/NNNN_description.sql, numbered from 0001
	// without gaps, applied in order, each once per file.
	Migrations fs.FS
}

// coreName is the component name of the store's own migrations.
const coreName = "runstore"

// bookkeepingVersion is the PRAGMA user_version of a file whose migrations
// are recorded per component in schema_migrations. Versions 1 to 4 are the
// single migration sequence of earlier releases (see legacySteps); a release
// that knows only those refuses this file as newer instead of misreading it.
const bookkeepingVersion = 5

// applied is one migration recorded in schema_migrations.
type applied struct {
	component string
	version   int
	name      string
}

// legacySteps are the migrations behind user_version 1, 2, 3 and 4 of a file
// written before components recorded their own: step i applied
// legacySteps()[i-1]. Converting such a file records them, so nothing of it
// is applied twice.
func legacySteps() []applied {
	return []applied{
		{coreName, 1, "0001_init.sql"},
		{"knowledge", 1, "0002_knowledge.sql"},
		{coreName, 2, "0003_knowledge_guard.sql"},
		{"knowledge", 2, "0004_knowledge_vectors.sql"},
	}
}

// bookkeepingDDL creates the table recording every applied migration.
const bookkeepingDDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
    component  TEXT    NOT NULL CHECK (component <> ''),
    version    INTEGER NOT NULL CHECK (version > 0),
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (component, version)
) WITHOUT ROWID`

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// coreComponent is the store's own schema as a component.
func coreComponent() Component { return Component{Name: coreName, Migrations: migrationFS} }

// components puts the store's own schema first and checks the registered
// ones have distinct names of their own.
func components(registered []Component) ([]Component, error) {
	out := []Component{coreComponent()}
	seen := map[string]bool{coreName: true}
	for _, c := range registered {
		switch {
		case strings.TrimSpace(c.Name) == "":
			return nil, errors.New("register component: empty name")
		case seen[c.Name]:
			return nil, fmt.Errorf("register component %q: name already taken", c.Name)
		case c.Migrations == nil:
			return nil, fmt.Errorf("register component %q: no migrations", c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	return out, nil
}

// loadMigrations reads migrations/*.sql from fsys and checks that
// they are numbered 1, 2, 3… without gaps or duplicates, so a misnamed file
// fails the build's tests instead of silently skipping a step.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		v, err := migrationVersion(e.Name())
		if err != nil {
			return nil, err
		}
		body, err := fs.ReadFile(fsys, path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			if i > 0 && m.version == ms[i-1].version {
				return nil, fmt.Errorf("migrations %s and %s share number %d: renumber one", ms[i-1].name, m.name, m.version)
			}
			return nil, fmt.Errorf("migration %s has number %d, want %d: migrations must be numbered 1, 2, 3… without gaps", m.name, m.version, i+1)
		}
	}
	if len(ms) == 0 {
		return nil, errors.New("no migrations found under migrations/")
	}
	return ms, nil
}

// migrationVersion parses the NNNN of "NNNN_name.sql".
func migrationVersion(name string) (int, error) {
	num, rest, ok := strings.Cut(name, "_")
	if !ok || rest == ".sql" || len(num) != 4 {
		return 0, fmt.Errorf("migration file %q: name it NNNN_description.sql (four digits)", name)
	}
	v, err := strconv.Atoi(num)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("migration file %q: name it NNNN_description.sql with NNNN from 0001", name)
	}
	return v, nil
}

// SchemaVersion is the version this binary migrates the store's own schema
// to (the number of its last embedded migration), for `doctor`.
func SchemaVersion() (int, error) {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return 0, err
	}
	return ms[len(ms)-1].version, nil
}

// migrate brings the file's bookkeeping to today's form, then applies every
// migration of each component (the store's own first) newer than the one it
// recorded last, each in its own BEGIN IMMEDIATE transaction that re-reads
// the record under the write lock, so two processes opening a new file at
// once apply each step once.
func migrate(ctx context.Context, db *sql.DB, comps []Component) error {
	type loaded struct {
		name string
		ms   []migration
	}
	var all []loaded
	for _, c := range comps {
		ms, err := loadMigrations(c.Migrations)
		if err != nil {
			return fmt.Errorf("component %s: %w", c.Name, err)
		}
		all = append(all, loaded{c.Name, ms})
	}
	if err := ensureBookkeeping(ctx, db); err != nil {
		return err
	}
	for _, c := range all {
		latest := c.ms[len(c.ms)-1].version
		cur, err := componentVersion(ctx, db, c.name)
		if err != nil {
			return err
		}
		if cur > latest {
			return newerError(c.name, cur, latest)
		}
		for _, m := range c.ms {
			if m.version <= cur {
				continue
			}
			if err := applyMigration(ctx, db, c.name, m, latest); err != nil {
				return err
			}
		}
	}
	return nil
}

// NewerError refuses a file that a newer superbiz migrated: this one
// cannot read or write it safely. What to do about it (upgrade, or open
// another file) is the caller's to say, in its own words.
type NewerError struct {
	// Component is the schema's component ("runstore"), "" for the file's
	// own bookkeeping.
	Component string
	// Version is the file's schema version; Known, the newest this build knows.
	Version, Known int
}

func (e *NewerError) Error() string {
	if e.Component == "" {
		return fmt.Sprintf("database schema version %d is newer than this superbiz knows (%d)", e.Version, e.Known)
	}
	return fmt.Sprintf("database schema version %d of %s is newer than this superbiz knows (%d)", e.Version, e.Component, e.Known)
}

// newerError refuses a file migrated by a newer superbiz.
func newerError(component string, cur, latest int) error {
	return &NewerError{Component: component, Version: cur, Known: latest}
}

// newerFile refuses a file whose bookkeeping a newer superbiz changed.
func newerFile(v int) error {
	return &NewerError{Version: v, Known: bookkeepingVersion}
}

// ensureBookkeeping creates schema_migrations on a new file, or on a file of
// an earlier release records the steps its user_version says were applied,
// and sets user_version to bookkeepingVersion, all in one transaction.
func ensureBookkeeping(ctx context.Context, db *sql.DB) error {
	v, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if v == bookkeepingVersion {
		return nil
	}
	if v > bookkeepingVersion {
		return newerFile(v)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration bookkeeping: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("migration bookkeeping: read schema version: %w", err)
	}
	if v >= bookkeepingVersion {
		return nil // another process converted it first; migrate checks the rest
	}
	if _, err := tx.ExecContext(ctx, bookkeepingDDL); err != nil {
		return fmt.Errorf("migration bookkeeping: create: %w", err)
	}
	now := unixMS(time.Now())
	for _, a := range legacySteps()[:v] {
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)`,
			a.component, a.version, a.name, now); err != nil {
			return fmt.Errorf("migration bookkeeping: record %s: %w", a.name, err)
		}
	}
	// PRAGMA takes no bound parameters; the version is a constant.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(bookkeepingVersion)); err != nil {
		return fmt.Errorf("migration bookkeeping: set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration bookkeeping: commit: %w", err)
	}
	return nil
}

// querier is what reading the bookkeeping needs: a pool or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// componentVersion is the last migration of component recorded in
// schema_migrations, 0 for none.
func componentVersion(ctx context.Context, q querier, component string) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations WHERE component = ?`, component).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", component, err)
	}
	return v, nil
}

// applyMigration runs one migration and records it in the same transaction,
// skipping it when another process got there first. It runs on a connection
// of its own with foreign keys off, SQLite's documented procedure for a
// schema change that rebuilds a parent table (a CHECK widened on runs):
// DROP TABLE of a parent fails at COMMIT while they are on, and the pragma
// is a no-op inside a transaction, so it is set before BEGIN. PRAGMA
// foreign_key_check must find no row before COMMIT, and foreign keys are
// turned back on whatever happened; a connection on which that fails is
// never returned to the pool.
func applyMigration(ctx context.Context, db *sql.DB, component string, m migration, latest int) (err error) {
	what := component + " migration " + m.name
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("%s: connect: %w", what, err)
	}
	defer func() {
		if rerr := restoreForeignKeys(conn); rerr != nil {
			err = errors.Join(err, fmt.Errorf("%s: %w", what, rerr))
		}
		conn.Close() //nolint:errcheck // a discarded connection's close error says nothing more
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return fmt.Errorf("%s: foreign keys off: %w", what, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	cur, err := componentVersion(ctx, tx, component)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if cur > latest {
		return newerError(component, cur, latest)
	}
	if cur >= m.version {
		return nil
	}
	if cur != m.version-1 {
		return fmt.Errorf("%s: %s is at version %d, expected %d", what, component, cur, m.version-1)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := foreignKeyCheck(ctx, tx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)`,
		component, m.version, m.name, unixMS(time.Now())); err != nil {
		return fmt.Errorf("%s: record: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", what, err)
	}
	return nil
}

// foreignKeyCheck fails when PRAGMA foreign_key_check finds a row whose
// parent is missing, naming the first one.
func foreignKeyCheck(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fkid int
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return fmt.Errorf("foreign key check: %w", err)
		}
		return fmt.Errorf("foreign key check: a row of %s (rowid %v) refers to a missing row of %s", table, rowid.Int64, parent)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	return nil
}

// restoreForeignKeys turns foreign keys back on for conn (without ctx: a
// cancelled open must still restore them) and reads them back; when either
// fails the connection is marked bad so the pool discards it instead of
// handing out a connection without foreign keys.
func restoreForeignKeys(conn *sql.Conn) error {
	ctx := context.Background()
	on := 0
	_, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = ON")
	if err == nil {
		err = conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&on)
	}
	if err == nil && on == 1 {
		return nil
	}
	if err == nil {
		err = errors.New("PRAGMA foreign_keys still reads 0")
	}
	// driver.ErrBadConn from Raw makes database/sql close the connection.
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	return fmt.Errorf("restore foreign keys: %w", err)
}

// userVersion reads PRAGMA user_version: bookkeepingVersion, or the applied
// step of an earlier release's single sequence.
func userVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// storedVersion is the version of component a file holds without writing
// to it: from schema_migrations, or for a file of an earlier release from
// its user_version step.
func storedVersion(ctx context.Context, db *sql.DB, component string) (int, error) {
	v, err := userVersion(ctx, db)
	if err != nil {
		return 0, err
	}
	switch {
	case v == bookkeepingVersion:
		return componentVersion(ctx, db, component)
	case v > bookkeepingVersion:
		return 0, newerFile(v)
	}
	n := 0
	for _, a := range legacySteps()[:min(v, len(legacySteps()))] {
		if a.component == component {
			n = a.version
		}
	}
	return n, nil
}

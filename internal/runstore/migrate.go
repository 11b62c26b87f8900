package runstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFS holds the schema history: migrations/NNNN_name.sql, applied in
// number order, each exactly once per file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads migrations/*.sql from fsys and checks that they are
// numbered 1, 2, 3… without gaps or duplicates, so a misnamed file fails the
// build's tests instead of silently skipping a step.
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

// SchemaVersion is the schema version this binary migrates files to (the
// number of the last embedded migration), for `doctor`.
func SchemaVersion() (int, error) {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return 0, err
	}
	return ms[len(ms)-1].version, nil
}

// migrate applies every migration newer than the file's user_version, each in
// its own BEGIN IMMEDIATE transaction that re-reads user_version under the
// write lock, so two processes opening a new file at once apply each step once.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].version
	cur, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if cur > latest {
		return fmt.Errorf("database schema version %d is newer than this superbiz knows (%d): upgrade superbiz, or point --db at another file", cur, latest)
	}
	for _, m := range ms {
		if m.version <= cur {
			continue
		}
		if err := applyMigration(ctx, db, m, latest); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs one migration and bumps user_version in the same
// transaction, skipping it when another process got there first.
func applyMigration(ctx context.Context, db *sql.DB, m migration, latest int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", m.name, err)
	}
	defer tx.Rollback() //nolint:errcheck // no-op after Commit
	var cur int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return fmt.Errorf("migration %s: read schema version: %w", m.name, err)
	}
	if cur > latest {
		return fmt.Errorf("database schema version %d is newer than this superbiz knows (%d): upgrade superbiz, or point --db at another file", cur, latest)
	}
	if cur >= m.version {
		return nil
	}
	if cur != m.version-1 {
		return fmt.Errorf("migration %s: database is at version %d, expected %d", m.name, cur, m.version-1)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	// PRAGMA takes no bound parameters; m.version is an int we parsed.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return fmt.Errorf("migration %s: set schema version: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.name, err)
	}
	return nil
}

// userVersion reads PRAGMA user_version, the applied schema version.
func userVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

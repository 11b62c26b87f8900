package databases

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // the SQLite copies

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// PackDir is the pack folder the SQLite copies are written under.
const PackDir = "databases"

// databaseFile is one [[databases]] entry of the pack's superbiz.toml.
type databaseFile struct {
	Name    string `toml:"name"`
	Driver  string `toml:"driver"`
	DSN     string `toml:"dsn"`
	MaxRows int    `toml:"max_rows"`
	Timeout string `toml:"timeout"`
}

// Freezes is query_mysql.
func (Source) Freezes() []string { return []string{sqlquery.ToolName} }

// Freeze freezes each database query_mysql read: a SQLite file is copied
// with its cells masked, a MySQL database is frozen as the run's
// statements and their observations (RecordedFile).
func (s Source) Freeze(ctx context.Context, p *frozen.Pack) error {
	return freezeTool(ctx, p, sqlquery.ToolName, s.Reads)
}

// Freezes is query_postgres.
func (Postgres) Freezes() []string { return []string{sqlquery.PostgresToolName} }

// Freeze freezes each database query_postgres read as the run's statements
// and their observations (RecordedFile).
func (s Postgres) Freeze(ctx context.Context, p *frozen.Pack) error {
	return freezeTool(ctx, p, sqlquery.PostgresToolName, s.Reads)
}

// freezeTool freezes each database the run's calls of tool read, as
// reads names them (tool:name).
func freezeTool(ctx context.Context, p *frozen.Pack, tool string, reads func(input, observation json.RawMessage) []string) error {
	var names []string
	for _, inv := range p.Calls(tool) {
		for _, s := range reads(inv.Input, inv.Observation) {
			if _, name, ok := strings.Cut(s, ":"); ok && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	rec := Recording{}
	dbs := Entries(p.Config)
	for _, name := range names {
		i := slices.IndexFunc(dbs, func(d sqlquery.Database) bool { return d.Name == name })
		if i < 0 {
			return p.Gone("database", name)
		}
		db := dbs[i]
		if db.Driver == sqlquery.DriverSQLite {
			if err := freezeSQLite(ctx, p, db); err != nil {
				return err
			}
			continue
		}
		record(p, &rec, db, tool, reads)
	}
	return writeRecording(p, rec)
}

// freezeSQLite copies the SQLite database db into the pack and masks it as
// the egress policy masks what leaves the process (maskSQLite).
func freezeSQLite(ctx context.Context, p *frozen.Pack, db sqlquery.Database) error {
	dst := p.Path(PackDir, db.Name+".db")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("eval pack: %w", err)
	}
	abs, err := filepath.Abs(db.DSN.Reveal())
	if err != nil {
		return fmt.Errorf("eval pack: database %s: %w", db.Name, err)
	}
	src, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()+"?mode=ro")
	if err != nil {
		return fmt.Errorf("eval pack: database %s: %w", db.Name, err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("eval pack: copy the database %s: %w", db.Name, err)
	}
	m, err := maskSQLite(ctx, dst)
	if err != nil {
		return fmt.Errorf("eval pack: database %s: %w", db.Name, err)
	}
	p.Append("databases", databaseFile{
		Name: db.Name, Driver: string(sqlquery.DriverSQLite), DSN: p.Rel(dst),
		MaxRows: db.MaxRows, Timeout: config.FormatDuration(db.Timeout),
	})
	p.Frozen("database %s: the SQLite file, %d cell(s) masked%s", db.Name, m.cells, strings.Join(append([]string{""}, m.notes...), "; "))
	return nil
}

// column reads the first column of a query's rows.
func column[T any](ctx context.Context, db *sql.DB, query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ident quotes a SQLite identifier.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// record adds the run's statements on the MySQL or PostgreSQL database db
// (read by tool) and their observations to rec: the canonical inputs and
// results as the run store keeps them, redacted. The DSN is not kept, only
// the name, the engine and MySQL's default schema.
func record(p *frozen.Pack, rec *Recording, db sqlquery.Database, tool string, reads func(input, observation json.RawMessage) []string) {
	rd := RecordedDatabase{Name: db.Name, Driver: db.Driver}
	if db.Driver == sqlquery.DriverMySQL {
		if c, err := mysql.ParseDSN(db.DSN.Reveal()); err == nil {
			rd.Schema = c.DBName
		}
	}
	rec.Databases = append(rec.Databases, rd)
	calls := p.Record(tool, []string{db.Name}, reads)
	rec.Calls = append(rec.Calls, calls...)
	n := len(calls)
	p.Frozen("database %s (%s): %d recorded statement(s); any other gets %s in eval", db.Name, db.Driver, n, tools.CodeNotRecorded)
}

// writeRecording adds rec to the pack's RecordedFile (which query_mysql's
// and query_postgres's freezes share), redacted whole; nothing when rec
// holds no database.
func writeRecording(p *frozen.Pack, rec Recording) error {
	if len(rec.Databases) == 0 {
		return nil
	}
	file := p.Path(RecordedFile)
	switch _, err := os.Lstat(file); {
	case err == nil:
		prev, err := readRecording(file)
		if err != nil {
			return fmt.Errorf("eval pack: %w", err)
		}
		rec.Databases = append(prev.Databases, rec.Databases...)
		rec.Calls = append(prev.Calls, rec.Calls...)
		if err := os.Remove(file); err != nil {
			return fmt.Errorf("eval pack: %w", err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("eval pack: %w", err)
	}
	return p.WriteRecorded(file, rec)
}

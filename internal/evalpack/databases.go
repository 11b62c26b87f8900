package evalpack

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	_ "modernc.org/sqlite" // the SQLite copies

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/eval"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// DatabasesDir is the pack folder the SQLite copies are written under.
const DatabasesDir = "databases"

// databaseFile is one [[databases]] entry of the pack's superbiz.toml.
type databaseFile struct {
	Name    string `toml:"name"`
	Driver  string `toml:"driver"`
	DSN     string `toml:"dsn"`
	MaxRows int    `toml:"max_rows"`
	Timeout string `toml:"timeout"`
}

// freezeDatabases freezes each database the run read: a SQLite file is
// copied (VACUUM INTO) with its text cells redacted; a MySQL or PostgreSQL
// database is frozen as the run's statements and their observations.
func (p *pack) freezeDatabases(ctx context.Context) error {
	for _, tool := range []string{sqlquery.ToolName, sqlquery.PostgresToolName} {
		for _, name := range sourcesRead(reads(p.opts.Run, tool)) {
			i := slices.IndexFunc(p.opts.Config.Databases, func(d config.Database) bool { return d.Name == name })
			if i < 0 {
				return refused("the run read the database %q, which the configuration (%s) no longer has: freeze with the configuration the run was made with (--config)", name, cmpOr(p.opts.Config.File, "defaults"))
			}
			db := p.opts.Config.Databases[i]
			if db.Driver == config.DriverSQLite {
				if err := p.freezeSQLite(ctx, db); err != nil {
					return err
				}
				continue
			}
			if err := p.record(db, tool); err != nil {
				return err
			}
		}
	}
	return p.writeRecording()
}

// freezeSQLite copies the SQLite database db into the pack and masks its
// cells as redaction masks them: a column named like a secret whole, every
// other text cell's secret shapes. The copy is then rewritten (VACUUM), so
// no masked value survives in a free page.
func (p *pack) freezeSQLite(ctx context.Context, db config.Database) error {
	dst := filepath.Join(p.dir, DatabasesDir, db.Name+".db")
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
	n, err := maskSQLite(ctx, dst)
	if err != nil {
		return fmt.Errorf("eval pack: database %s: %w", db.Name, err)
	}
	p.cfg.Databases = append(p.cfg.Databases, databaseFile{
		Name: db.Name, Driver: string(config.DriverSQLite), DSN: p.rel(dst),
		MaxRows: db.MaxRows, Timeout: config.FormatDuration(db.Timeout),
	})
	p.frozen("database %s: the SQLite file, %d cell(s) masked", db.Name, n)
	return nil
}

// maskSQLite masks every text cell of the database file path in place and
// rewrites the file; it returns how many distinct values it masked.
func maskSQLite(ctx context.Context, path string) (int, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return 0, err
	}
	tables, err := column[string](ctx, db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' AND sql NOT LIKE 'CREATE VIRTUAL%'`)
	if err != nil {
		return 0, err
	}
	masked := 0
	for _, t := range tables {
		cols, err := column[string](ctx, db, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return 0, err
		}
		for _, c := range cols {
			vals, err := column[string](ctx, db, fmt.Sprintf("SELECT DISTINCT %s FROM %s WHERE typeof(%[1]s) = 'text'", ident(c), ident(t)))
			if err != nil {
				return 0, err
			}
			for _, v := range vals {
				r := redact.Field(c, v)
				if r == v {
					continue
				}
				if _, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = ? WHERE %[2]s = ?", ident(t), ident(c)), r, v); err != nil {
					return 0, fmt.Errorf("mask %s.%s: %w", t, c, err)
				}
				masked++
			}
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		return 0, err
	}
	return masked, nil
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
// (read by tool) and their observations to the pack's recording: the
// canonical inputs and results as the run store keeps them, redacted. The
// DSN is not kept, only the name, the engine and MySQL's default schema.
func (p *pack) record(db config.Database, tool string) error {
	rd := eval.RecordedDatabase{Name: db.Name, Driver: db.Driver}
	if db.Driver == config.DriverMySQL {
		if c, err := mysql.ParseDSN(db.DSN.Reveal()); err == nil {
			rd.Schema = c.DBName
		}
	}
	p.rec.Databases = append(p.rec.Databases, rd)
	n := 0
	for _, inv := range p.opts.Run.Invocations {
		if inv.Tool != tool || !inv.Ready() || !slices.Contains(registry.SourcesOf(inv.Tool, inv.Input, inv.Observation), tool+":"+db.Name) {
			continue
		}
		out, ok := usecase.RecordedOutcome(inv.Observation)
		if !ok {
			continue // a discarded observation holds nothing to answer with
		}
		result, _ := out.Result.(json.RawMessage)
		p.rec.Calls = append(p.rec.Calls, eval.RecordedCall{
			Tool: tool, Input: runstore.Redacted(inv.Input), EvidenceStatus: out.Status,
			ErrorCode: out.ErrorCode, Result: runstore.Redacted(result),
		})
		n++
	}
	p.frozen("database %s (%s): %d recorded statement(s); any other gets %s in eval", db.Name, db.Driver, n, tools.CodeNotRecorded)
	return nil
}

// writeRecording writes the recording, when there is one, redacted whole.
func (p *pack) writeRecording() error {
	if len(p.rec.Databases) == 0 {
		return nil
	}
	b, err := tools.MarshalJSON(p.rec)
	if err != nil {
		return fmt.Errorf("eval pack: encode the recording: %w", err)
	}
	if b, err = redact.JSON(b); err != nil {
		return fmt.Errorf("eval pack: redact the recording: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return fmt.Errorf("eval pack: encode the recording: %w", err)
	}
	out.WriteByte('\n')
	return writeFile(filepath.Join(p.dir, eval.RecordedFile), out.Bytes())
}

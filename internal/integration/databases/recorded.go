package databases

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// A pack frozen from a run that read a MySQL or PostgreSQL database holds no
// server: it holds the run's statements and their observations in
// RecordedFile. In eval, a statement whose canonical form equals a recorded
// one gets the recorded observation; any other gets ERROR NOT_RECORDED
// (tools.CodeNotRecorded), which the results count per pack.

// RecordedFile is the pack file of recorded database answers.
const RecordedFile = "recorded.json"

// Recording is a pack's recorded.json.
type Recording struct {
	// Databases are the recorded databases, as the tools name them.
	Databases []RecordedDatabase `json:"databases"`
	// Calls are the recorded statements, in the order the run made them.
	Calls []RecordedCall `json:"calls"`
}

// RecordedDatabase is one MySQL or PostgreSQL database of the run: its
// name, engine and (MySQL) default schema, which canonical forms depend on.
type RecordedDatabase struct {
	Name   string          `json:"name"`
	Driver sqlquery.Driver `json:"driver"`
	Schema string          `json:"schema,omitempty"`
}

// RecordedCall is one statement the run made and what it observed, as the
// run store keeps them (redacted); its input is the canonical business
// input (database, sql, max_rows).
type RecordedCall = frozen.RecordedCall

func readRecording(file string) (*Recording, error) {
	var r Recording
	if err := frozen.ReadRecorded(file, &r, &r.Calls); err != nil {
		return nil, err
	}
	for i, d := range r.Databases {
		if d.Driver != sqlquery.DriverMySQL && d.Driver != sqlquery.DriverPostgres {
			return nil, frozen.PackError(file, fmt.Sprintf("databases[%d].driver", i), "%q: a recording holds mysql or postgres databases", d.Driver)
		}
	}
	return &r, nil
}

// recordedHost is where a recorded database "is": the discard port of the
// loopback, never dialled (the recording answers every statement).
const recordedHost = "127.0.0.1:9"

// addRecorded adds the recording's databases to cfg, so that query_mysql
// and query_postgres offer them to the model by name and canonicalise
// their statements as the run's tools did; WithRecording then answers for
// them. Their DSNs name no server a statement could reach.
func addRecorded(cfg *config.Config, rec *Recording) error {
	dbs := slices.Clone(Entries(cfg))
	for _, d := range rec.Databases {
		raw := "recorded@tcp(" + recordedHost + ")/" + d.Schema
		if d.Driver == sqlquery.DriverPostgres {
			raw = "postgres://recorded@" + recordedHost + "/recorded?sslmode=disable"
		}
		dsn, err := sqlquery.NewDSN(d.Driver, raw)
		if err != nil {
			return fmt.Errorf("recorded database %s: %w", d.Name, err)
		}
		db := NewEntry()
		db.Name, db.Driver, db.DSN = d.Name, d.Driver, dsn
		dbs = append(dbs, db)
	}
	SetEntries(cfg, dbs...)
	// The names are the pack's: checked as any configured database's.
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%s: %w", RecordedFile, err)
	}
	return nil
}

// WithRecording returns adapters with the SQL tool named tool answering for the
// recorded databases from rec: the recorded observation of an equal
// canonical input, else ERROR NOT_RECORDED. Statements on the pack's own
// SQLite files still run. rec nil returns adapters as they are.
func WithRecording(adapters []tools.Adapter, rec *Recording, tool string) []tools.Adapter {
	if rec == nil {
		return adapters
	}
	return frozen.Answering(adapters, tool, rec.answer)
}

// answer answers a statement on a recorded database from the recording,
// comparing canonical inputs in the stored (redacted) form; ok is false for
// any other statement (the live tool runs it).
func (rec *Recording) answer(call tools.Call) (tools.Outcome, bool) {
	var in struct {
		Database string `json:"database"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("read the canonical input: %w", err)), true
	}
	if !slices.ContainsFunc(rec.Databases, func(d RecordedDatabase) bool { return d.Name == in.Database }) {
		return tools.Outcome{}, false
	}
	if out, ok := frozen.Recorded(rec.Calls, call); ok {
		return out, true
	}
	return tools.Failed(tools.CodeNotRecorded, fmt.Errorf("database %s: no recorded observation for %s (the pack holds the run's statements only)", in.Database, runstore.Redacted(call.Input))), true
}

// Owns is RecordedFile, which query_mysql and query_postgres share.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile for its MySQL databases.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	return replay(r, sqlquery.ToolName, sqlquery.DriverMySQL)
}

// Owns is RecordedFile, which query_mysql and query_postgres share.
func (Postgres) Owns() frozen.Owned { return frozen.Owned{Files: []string{RecordedFile}} }

// Replay reads the pack's RecordedFile for its PostgreSQL databases.
func (Postgres) Replay(r frozen.Replay) (frozen.Served, error) {
	return replay(r, sqlquery.PostgresToolName, sqlquery.DriverPostgres)
}

// replay is the recording of the pack in r for the databases of driver,
// which tool answers for; nil when the pack has none.
func replay(r frozen.Replay, tool string, driver sqlquery.Driver) (frozen.Served, error) {
	file := filepath.Join(r.Dir, RecordedFile)
	switch _, err := os.Lstat(file); {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, frozen.PackError(file, "", "%v", err)
	}
	rec, err := readRecording(file)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(rec.Databases, func(d RecordedDatabase) bool { return d.Driver == driver }) {
		return nil, nil
	}
	return recorded{rec: rec, tool: tool, driver: driver}, nil
}

// recorded is a pack's recording, served for the databases of driver.
type recorded struct {
	rec    *Recording
	tool   string
	driver sqlquery.Driver
}

// Missing is "": a recording needs nothing of the machine.
func (recorded) Missing() string { return "" }

// Start needs nothing started: the recording answers.
func (r recorded) Start(context.Context, string) (frozen.Server, error) { return r, nil }

// Configure adds the recorded databases of the driver, named as the run
// named them, on no server.
func (r recorded) Configure(cfg *config.Config) error {
	own := &Recording{}
	for _, d := range r.rec.Databases {
		if d.Driver == r.driver {
			own.Databases = append(own.Databases, d)
		}
	}
	return addRecorded(cfg, own)
}

// Wrap makes the tool answer for the recorded databases.
func (r recorded) Wrap(adapters []tools.Adapter) []tools.Adapter {
	return WithRecording(adapters, r.rec, r.tool)
}

// Stop has nothing to stop.
func (recorded) Stop() error { return nil }

package databases

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/model"
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

// MaxRecordedBytes bounds a pack's recorded.json.
const MaxRecordedBytes = 16 << 20

// recordedJSON is how recorded.json is read: a regular file, bounded.
var recordedJSON = config.Untrusted{What: "pack recording", Limit: MaxRecordedBytes, Kind: "a .json file eval pack wrote", Size: "freeze fewer statements"}

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
// run store keeps them (redacted).
type RecordedCall struct {
	Tool string `json:"tool"`
	// Input is the canonical business input (database, sql, max_rows).
	Input          json.RawMessage      `json:"input"`
	EvidenceStatus tools.EvidenceStatus `json:"evidence_status"`
	ErrorCode      string               `json:"error_code,omitempty"`
	Result         json.RawMessage      `json:"result,omitempty"`
}

func readRecording(file string) (*Recording, error) {
	b, err := config.ReadRegular(file, recordedJSON)
	if err != nil {
		return nil, err
	}
	var r Recording
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, frozen.PackError(file, "", "not a recording eval pack wrote: %v", err)
	}
	for i, c := range r.Calls {
		if _, ok := inputKey(c.Input); !ok {
			return nil, frozen.PackError(file, fmt.Sprintf("calls[%d].input", i), "not a JSON object")
		}
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
	for _, d := range rec.Databases {
		raw := "recorded@tcp(" + recordedHost + ")/" + d.Schema
		if d.Driver == sqlquery.DriverPostgres {
			raw = "postgres://recorded@" + recordedHost + "/recorded?sslmode=disable"
		}
		dsn, err := config.NewDSN(d.Driver, raw)
		if err != nil {
			return fmt.Errorf("recorded database %s: %w", d.Name, err)
		}
		db := config.NewDatabase()
		db.Name, db.Driver, db.DSN = d.Name, d.Driver, dsn
		cfg.Databases = append(cfg.Databases, db)
	}
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
	out := slices.Clone(adapters)
	for i, a := range out {
		if a.Definition().Name == tool {
			out[i] = recordedTool{live: a, rec: rec}
		}
	}
	return out
}

// recordedTool is a SQL tool whose recorded databases answer from a recording.
type recordedTool struct {
	live tools.Adapter
	rec  *Recording
}

func (r recordedTool) Definition() model.Tool { return r.live.Definition() }

func (r recordedTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return r.live.Canonical(in)
}

// Tally is the live tool's, so a recorded answer's check line reads the same.
func (r recordedTool) Tally(result json.RawMessage) string {
	if t, ok := r.live.(tools.Tallier); ok {
		return t.Tally(result)
	}
	return ""
}

// Execute answers a statement on a recorded database from the recording,
// comparing canonical inputs in the stored (redacted) form, and runs any
// other statement on the live tool.
func (r recordedTool) Execute(ctx context.Context, call tools.Call) tools.Outcome {
	var in struct {
		Database string `json:"database"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("read the canonical input: %w", err))
	}
	if !slices.ContainsFunc(r.rec.Databases, func(d RecordedDatabase) bool { return d.Name == in.Database }) {
		return r.live.Execute(ctx, call)
	}
	want, _ := inputKey(call.Input)
	for _, c := range r.rec.Calls {
		if have, ok := inputKey(c.Input); c.Tool != call.Tool || !ok || have != want {
			continue
		}
		// The call's members are those of a stored observation.
		obs, err := json.Marshal(c)
		if err != nil {
			return tools.Failed(tools.CodeInternal, fmt.Errorf("the recorded call: %w", err))
		}
		if out, ok := runstore.RecordedOutcome(obs); ok {
			return out
		}
	}
	return tools.Failed(tools.CodeNotRecorded, fmt.Errorf("database %s: no recorded observation for %s (the pack holds the run's statements only)", in.Database, runstore.Redacted(call.Input)))
}

// inputKey is a canonical input in the stored form (redacted), decoded and
// encoded again, so that two encodings of one input (indented, escaped
// differently) compare equal; ok is false when it is no JSON object.
func inputKey(raw json.RawMessage) (string, bool) {
	var v map[string]any
	if err := json.Unmarshal(runstore.Redacted(raw), &v); err != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
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

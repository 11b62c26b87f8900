// Package sqlquery holds the SQL evidence tools: query_mysql runs one
// read-only statement against a configured MySQL, MariaDB or SQLite database,
// query_postgres against a PostgreSQL one. Each is made read-only by
// construction in layers that each fail closed (the parser guards in
// guard.go and pgguard.go, a READ ONLY transaction that always rolls back,
// server and client time limits with KILL QUERY or a cancel request, a row
// cap and bounded cells).
package sqlquery

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ToolName is the name the model calls this tool by.
const ToolName = "query_mysql"

// Input limits of docs/SPEC.md#query_mysql and the defaults the config may leave out.
const (
	DefaultMaxRows  = 20
	MaxRowsLimit    = 100
	DefaultTimeout  = 5 * time.Second
	MaxCellBytes    = 256
	summaryMaxBytes = 100
)

// Tool is the query_mysql or query_postgres adapter over the configured
// databases. Connections are opened lazily on first use and closed by Close.
type Tool struct {
	name  string
	order []string
	dbs   map[string]*handle
}

var _ tools.Adapter = (*Tool)(nil)

// New validates the configured mysql and sqlite [[databases]] entries for
// query_mysql; it connects to none of them. Each DSN stays the redacting
// DSN until the pool is opened; MaxRows 0 means MaxRowsLimit and
// Timeout 0 DefaultTimeout.
func New(dbs []Database) (*Tool, error) {
	return newTool(ToolName, dbs)
}

// NewPostgres validates the configured postgres [[databases]] entries for
// query_postgres, as New does for query_mysql.
func NewPostgres(dbs []Database) (*Tool, error) {
	return newTool(PostgresToolName, dbs)
}

// Split sorts the configured databases by the tool that reads them:
// mysql and sqlite entries for query_mysql, postgres entries for
// query_postgres (in configuration order; an unknown driver stays with
// query_mysql, whose New reports it).
func Split(dbs []Database) (mysql, postgres []Database) {
	for _, d := range dbs {
		if d.Driver == DriverPostgres {
			postgres = append(postgres, d)
		} else {
			mysql = append(mysql, d)
		}
	}
	return mysql, postgres
}

func newTool(name string, dbs []Database) (*Tool, error) {
	if len(dbs) == 0 {
		return nil, fmt.Errorf("%s: no [[databases]] configured", name)
	}
	t := &Tool{name: name, dbs: make(map[string]*handle, len(dbs))}
	for i, d := range dbs {
		if strings.TrimSpace(d.Name) == "" {
			return nil, fmt.Errorf("databases[%d]: name is empty: give every [[databases]] entry a name", i)
		}
		if _, dup := t.dbs[d.Name]; dup {
			return nil, fmt.Errorf("databases[%d]: name %q is used twice: names must be unique", i, d.Name)
		}
		if d.MaxRows < 0 || d.MaxRows > MaxRowsLimit {
			return nil, fmt.Errorf("database %q: max_rows %d is out of range: use 1..%d (0 for the default)", d.Name, d.MaxRows, MaxRowsLimit)
		}
		if d.MaxRows == 0 {
			d.MaxRows = MaxRowsLimit
		}
		if d.Timeout < 0 {
			return nil, fmt.Errorf("database %q: timeout %s is negative", d.Name, d.Timeout)
		}
		if d.Timeout == 0 {
			d.Timeout = DefaultTimeout
		}
		if (d.Driver == DriverPostgres) != (name == PostgresToolName) {
			return nil, fmt.Errorf("database %q: driver %q is read by %s, not %s", d.Name, d.Driver, toolFor(d.Driver), name)
		}
		h, err := newHandle(d)
		if err != nil {
			return nil, err
		}
		t.dbs[d.Name] = h
		t.order = append(t.order, d.Name)
	}
	return t, nil
}

// toolFor names the tool that reads a driver's databases.
func toolFor(d Driver) string {
	if d == DriverPostgres {
		return PostgresToolName
	}
	return ToolName
}

// Name is the tool's name: query_mysql or query_postgres.
func (t *Tool) Name() string { return t.name }

// Close closes every connection pool that was opened.
func (t *Tool) Close() error {
	var errs []error
	for _, name := range t.order {
		if err := t.dbs[name].close(); err != nil {
			errs = append(errs, fmt.Errorf("close database %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Names lists the configured databases in configuration order.
func (t *Tool) Names() []string { return append([]string(nil), t.order...) }

// Definition declares the business input to the model.
func (t *Tool) Definition() model.Tool {
	params := schema.Reflect(input{})
	db, _ := params.Properties.Get("database")
	db.Enum = make([]any, len(t.order))
	for i, name := range t.order {
		db.Enum[i] = name
	}
	desc := "Run one read-only SQL statement (SELECT, SHOW, DESCRIBE, EXPLAIN) against a configured database " +
		"and return columns and rows. Use it to check order, payment or connection state at the time of an incident."
	if t.name == PostgresToolName {
		desc = pgDescription
		sqlProp, _ := params.Properties.Get("sql")
		sqlProp.Description = pgSQLDescription
	}
	return model.Tool{
		Name:        t.name,
		Description: desc,
		Parameters:  schema.Marshal(params),
	}
}

// input is the business input of docs/SPEC.md#query_mysql. Its tags are
// the schema the model receives (the database enum is added per
// configuration by Definition); TestInputSchemaBounds holds the bounds to
// MaxSQLBytes, MaxRowsLimit and DefaultMaxRows.
type input struct {
	Database string `json:"database,omitempty" jsonschema_description:"configured database to query; optional when only one is configured"`
	SQL      string `json:"sql" jsonschema:"required,maxLength=4096" jsonschema_description:"exactly one read-only statement: SELECT (joins, aggregates, CTEs, subqueries), SHOW, DESCRIBE or EXPLAIN; a comment before or after it is dropped, none inside it and no optimizer hints; no user variables (@x) or assignments; system variables (@@max_connections) only on MySQL/MariaDB and none named like a secret; no locking reads; no credential tables (mysql.user), stored routine, view, trigger or event bodies, or other sessions' statement text (SHOW PROCESSLIST, processlist.info): for sessions select id, user, host, db, command, time, state from information_schema.processlist"`
	MaxRows  *int   `json:"max_rows,omitempty" jsonschema:"minimum=1,maximum=100,default=20" jsonschema_description:"rows to return"`
}

// canonicalInput is the canonical form: every member present, defaults applied.
type canonicalInput struct {
	Database string `json:"database"`
	SQL      string `json:"sql"`
	MaxRows  int    `json:"max_rows"`
}

// Canonical strictly decodes the business input and applies defaults. The
// canonical sql is the guard's rendering when the statement is admitted, so
// calls that differ only in spacing, case or quoting are detected as
// equivalent; a statement the guard refuses is kept as sent and refused by
// Execute as NOT_READ_ONLY or NOT_ALLOWED (a refusal is a verdict, not a malformed input).
func (t *Tool) Canonical(raw json.RawMessage) (tools.Canonical, error) {
	var in input
	if err := jsonv2.Unmarshal(raw, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return tools.Canonical{}, tools.InvalidInput("%s input: %v", t.name, err)
	}
	h, err := t.resolve(in.Database)
	if err != nil {
		return tools.Canonical{}, err
	}
	if strings.TrimSpace(in.SQL) == "" {
		return tools.Canonical{}, tools.InvalidInput("sql is required: give one SELECT, SHOW, DESCRIBE or EXPLAIN statement")
	}
	if len(in.SQL) > MaxSQLBytes {
		return tools.Canonical{}, tools.InvalidInput("sql is %d bytes, the limit is %d", len(in.SQL), MaxSQLBytes)
	}
	if !utf8.ValidString(in.SQL) {
		return tools.Canonical{}, tools.InvalidInput("sql is not valid UTF-8")
	}
	maxRows := DefaultMaxRows
	if in.MaxRows != nil {
		maxRows = *in.MaxRows
		if maxRows < 1 || maxRows > MaxRowsLimit {
			return tools.Canonical{}, tools.InvalidInput("max_rows %d is out of range 1..%d", maxRows, MaxRowsLimit)
		}
	}
	stmt := strings.TrimSpace(in.SQL)
	if h.db.Driver == DriverPostgres {
		if c, err := checkPostgres(stmt); err == nil {
			stmt = c.Rendered
		}
	} else if c, err := check(stmt, h.guardDialect(), h.schema()); err == nil {
		stmt = c.Canonical
	}
	out, err := tools.EncodeCanonical(canonicalInput{Database: h.db.Name, SQL: stmt, MaxRows: maxRows})
	if err != nil {
		return tools.Canonical{}, fmt.Errorf("encode canonical %s input: %w", t.name, err)
	}
	return tools.Canonical{Input: out, Summary: summarize(h.db.Name, stmt)}, nil
}

func (t *Tool) resolve(name string) (*handle, error) {
	if name == "" {
		if len(t.order) == 1 {
			return t.dbs[t.order[0]], nil
		}
		return nil, tools.InvalidInput("database is required when several are configured: one of %s", strings.Join(t.order, ", "))
	}
	h, ok := t.dbs[name]
	if !ok {
		return nil, tools.InvalidInput("unknown database %q: configured are %s", name, strings.Join(t.order, ", "))
	}
	return h, nil
}

// Result is the whitelisted projection the model sees.
type Result struct {
	Database  string   `json:"database"`
	Columns   []string `json:"columns"`
	Rows      [][]any  `json:"rows"`
	RowCount  int      `json:"row_count"`
	Truncated bool     `json:"truncated"`
	// Note says which columns were masked whole and why (a view whose body
	// the account cannot read); absent when none was.
	Note string `json:"note,omitempty"`
}

// Tally says how many rows a result's statement returned ("20 rows").
func (t *Tool) Tally(result json.RawMessage) string {
	return tools.TallyCount(result, "row_count", "row", "rows")
}

// Execute runs one canonical input through every read-only layer.
func (t *Tool) Execute(ctx context.Context, call tools.Call) tools.Outcome {
	var in canonicalInput
	if err := jsonv2.Unmarshal(call.Input, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return tools.Failed(tools.CodeInvalidInput, fmt.Errorf("decode canonical %s input: %w", t.name, err))
	}
	h, err := t.resolve(in.Database)
	if err != nil {
		return tools.Failed(tools.CodeInvalidInput, err)
	}
	if in.MaxRows < 1 || in.MaxRows > MaxRowsLimit {
		return tools.Failed(tools.CodeInvalidInput, tools.InvalidInput("max_rows %d is out of range 1..%d", in.MaxRows, MaxRowsLimit))
	}
	maxRows := min(in.MaxRows, h.db.MaxRows)
	res, err := h.query(ctx, in.SQL, maxRows)
	if err != nil {
		code := classify(err)
		if tools.ContextCode(ctx.Err()) == tools.CodeCancelled && (code == tools.CodeUnavailable || code == tools.CodeTimeout || code == tools.CodeInternal) {
			// The caller cancelled (Ctrl-C, an MCP client): whatever the
			// driver made of the broken connection, the call was cancelled.
			code = tools.CodeCancelled
		}
		return tools.Failed(code, err)
	}
	if call.MaxBytes > 0 {
		if err := shrink(&res, call.MaxBytes); err != nil {
			return tools.Failed(tools.CodeInternal, err)
		}
	}
	status := tools.NoEvidence
	if res.RowCount > 0 {
		status = tools.EvidenceFound
	}
	return tools.Outcome{Status: status, Result: res}
}

// shrink drops trailing rows until the result's JSON fits maxBytes.
func shrink(res *Result, maxBytes int) error {
	for {
		b, err := json.Marshal(res)
		if err != nil {
			return fmt.Errorf("encode SQL result: %w", err)
		}
		if len(b) <= maxBytes {
			return nil
		}
		if len(res.Rows) == 0 {
			return fmt.Errorf("SQL result without rows is %d bytes, over the %d-byte observation limit", len(b), maxBytes)
		}
		// Drop proportionally, at least one row, so wide results converge fast.
		drop := max(1, len(res.Rows)*(len(b)-maxBytes)/len(b))
		res.Rows = res.Rows[:len(res.Rows)-drop]
		res.RowCount = len(res.Rows)
		res.Truncated = true
	}
}

// summarize is the bounded one-line timeline text: "orders: SELECT …",
// with secrets in literals masked before the clip, which could cut one in
// half so the boundary's pass no longer recognises it.
func summarize(name, stmt string) string {
	s := name + ": " + egress.Mask(strings.Join(strings.Fields(stmt), " ")).String()
	return textclip.Bytes(s, summaryMaxBytes)
}

// handle is one configured database and its lazily opened pool.
type handle struct {
	db Database

	mu      sync.Mutex
	pool    *sql.DB
	dialect Dialect
	// mysql only: parsed config (never printed) and the killer's connector.
	cfg       *mysql.Config
	connector driver.Connector
	probed    bool
	// postgres only: parsed config (never printed); each statement opens
	// its own connection.
	pgcfg *pgconn.Config
}

func newHandle(d Database) (*handle, error) {
	h := &handle{db: d}
	if d.DSN.IsZero() {
		return nil, fmt.Errorf("database %q: dsn is empty: give the data source name (a SQLite file path for sqlite)", d.Name)
	}
	switch d.Driver {
	case DriverMySQL:
		cfg, err := mysqlConfig(d)
		if err != nil {
			return nil, err
		}
		h.cfg = cfg
		h.dialect = MySQL
	case DriverSQLite:
		h.dialect = SQLite
	case DriverPostgres:
		cfg, err := postgresConfig(d)
		if err != nil {
			return nil, err
		}
		h.pgcfg = cfg
	default:
		return nil, fmt.Errorf("database %q: driver %q is not supported: use \"mysql\", \"postgres\" or \"sqlite\"", d.Name, d.Driver)
	}
	return h, nil
}

// guardDialect is the dialect the guard checks against before the server's
// flavour is known: MySQL and MariaDB share the guard's rules.
func (h *handle) guardDialect() Dialect {
	if h.db.Driver == DriverSQLite {
		return SQLite
	}
	return MySQL
}

// schema is the default database an unqualified table name refers to: the
// DSN's database for MySQL and MariaDB, none for SQLite.
func (h *handle) schema() string {
	if h.cfg != nil {
		return h.cfg.DBName
	}
	return ""
}

func (h *handle) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pool == nil {
		return nil
	}
	err := h.pool.Close()
	h.pool = nil
	h.probed = false
	return err
}

// where names the database for error messages without any credential.
func (h *handle) where() string {
	if h.cfg != nil {
		return fmt.Sprintf("database %q at %s", h.db.Name, h.cfg.Addr)
	}
	if h.pgcfg != nil {
		return pgWhere(h.db.Name, h.pgcfg)
	}
	return fmt.Sprintf("database %q at %s", h.db.Name, h.db.DSN.Redacted())
}

// query checks the statement and runs it on the handle's driver.
func (h *handle) query(ctx context.Context, stmt string, maxRows int) (Result, error) {
	switch h.db.Driver {
	case DriverSQLite:
		return h.querySQLite(ctx, stmt, maxRows)
	case DriverPostgres:
		return h.queryPostgres(ctx, stmt, maxRows)
	}
	return h.queryMySQL(ctx, stmt, maxRows)
}

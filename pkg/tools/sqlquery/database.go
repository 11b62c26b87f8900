package sqlquery

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/go-sql-driver/mysql"

	"github.com/superbiz/superbiz/pkg/egress"
)

// Database is one [[databases]] entry query_mysql may read. Its tags give
// the table's keys, defaults and bounds (internal/config reads them;
// defaults.Of[Database]() holds the defaults).
type Database struct {
	Name   string `toml:"name" json:"name"`
	Driver Driver `toml:"driver" json:"driver" enum:"mysql,postgres,sqlite" required:"true"`
	// DSN redacts its password when printed; Reveal gives the real value.
	DSN     DSN           `toml:"dsn" json:"dsn"`
	MaxRows int           `toml:"max_rows" json:"max_rows" default:"50" min:"1" max:"100"`
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"5s" min:"100ms" max:"10m"`
}

// Driver names the database engine behind a [[databases]] entry: mysql and
// sqlite are read by query_mysql, postgres by query_postgres.
type Driver string

// The database engines query_mysql can read.
const (
	DriverMySQL    Driver = "mysql"
	DriverPostgres Driver = "postgres"
	DriverSQLite   Driver = "sqlite"
)

// DSN is a database data source name whose password never leaves it by
// accident: every way of printing or encoding it (String, GoString, all fmt
// verbs, JSON, text, slog) shows the redacted form; Reveal is the only way to
// the real value, for the one place that opens the connection.
type DSN struct {
	driver Driver
	raw    string
}

// NewDSN checks raw as a data source name for driver and returns it. The
// error never contains the password, even when raw cannot be parsed.
// For sqlite, raw is a file path (an optional "file:" prefix is removed).
func NewDSN(driver Driver, raw string) (DSN, error) {
	if strings.TrimSpace(raw) == "" {
		return DSN{}, errors.New("empty: write the data source name")
	}
	switch driver {
	case DriverMySQL:
		cfg, err := mysql.ParseDSN(raw)
		if err != nil {
			return DSN{}, errors.New(mysqlDSNProblem(err))
		}
		if !mysqlNets[cfg.Net] {
			return DSN{}, errors.New("not a valid MySQL DSN: the network before the address must be tcp(...) or unix(...); write it as user:password@tcp(host:3306)/dbname")
		}
		return DSN{driver: driver, raw: raw}, nil
	case DriverSQLite:
		p := strings.TrimPrefix(raw, "file:")
		if p == "" || p == ":memory:" || strings.HasPrefix(p, ":memory:") {
			return DSN{}, errors.New("not a SQLite file path (an in-memory database holds no data to diagnose)")
		}
		if strings.ContainsAny(p, "?#") {
			return DSN{}, errors.New("not a plain SQLite file path: remove the ?parameters, superbiz opens the file read-only itself")
		}
		return DSN{driver: driver, raw: p}, nil
	case DriverPostgres:
		// pgconn's own message may quote the DSN (it redacts the password
		// only on a best-effort basis): give fixed advice instead. It also
		// reads the TLS files the DSN names (sslrootcert, sslcert, sslkey).
		if _, err := pgconn.ParseConfig(raw); err != nil {
			return DSN{}, errors.New("not a valid PostgreSQL DSN, or a TLS file it names (sslrootcert, sslcert, sslkey) cannot be read: write it as postgres://user:password@host:5432/dbname?sslmode=require or as keywords host=HOST port=5432 user=USER password=PASSWORD dbname=NAME")
		}
		return DSN{driver: driver, raw: raw}, nil
	default:
		return DSN{}, fmt.Errorf("cannot be checked for driver %q: use mysql, postgres or sqlite", string(driver))
	}
}

// mysqlNets are the networks a MySQL DSN may name; anything else is a typo
// (often a missing '@' that would turn the password into the network name).
var mysqlNets = map[string]bool{"tcp": true, "tcp4": true, "tcp6": true, "unix": true}

// mysqlDSNProblem turns a go-sql-driver parse error into advice. It uses only
// fixed texts: some driver errors echo parts of the DSN, which may hold the password.
func mysqlDSNProblem(err error) string {
	const how = `write it as user:password@tcp(host:3306)/dbname`
	msg := err.Error()
	switch {
	case strings.Contains(msg, "missing the slash"):
		return "not a valid MySQL DSN: the slash before the database name is missing; " + how
	case strings.Contains(msg, "network address not terminated"):
		return "not a valid MySQL DSN: the network address lacks its closing parenthesis; " + how
	case strings.Contains(msg, "escape a param value"):
		return "not a valid MySQL DSN: a parameter value needs URL escaping"
	case strings.Contains(msg, "default addr for network"):
		return "not a valid MySQL DSN: unknown network before the address (did you forget tcp(...)?); " + how
	case strings.Contains(msg, "invalid bool value"):
		return "not a valid MySQL DSN: a boolean parameter is not true or false"
	case strings.Contains(msg, "invalid dbname"):
		return "not a valid MySQL DSN: the database name is not valid URL-escaped text"
	default:
		return "not a valid MySQL DSN: a parameter or the address is malformed; " + how
	}
}

// Reveal returns the real data source name, password included. Call it only
// to open the connection; never print or store the result.
func (d DSN) Reveal() string { return d.raw }

// Driver returns the engine this DSN was checked for.
func (d DSN) Driver() Driver { return d.driver }

// IsZero reports whether no DSN was set.
func (d DSN) IsZero() bool { return d.raw == "" }

// Password is the password the DSN carries (zero for none, for SQLite, and
// for a DSN that does not parse), for a policy that removes it from text
// read back later (runs show): internal/config's Policy finds it by this
// method in every table.
func (d DSN) Password() egress.Secret {
	switch d.driver {
	case DriverMySQL:
		if cfg, err := mysql.ParseDSN(d.raw); err == nil {
			return egress.NewSecret(cfg.Passwd)
		}
	case DriverPostgres:
		if cfg, err := pgconn.ParseConfig(d.raw); err == nil {
			return egress.NewSecret(cfg.Password)
		}
	}
	return egress.Secret{}
}

// Redacted returns the DSN with its password replaced by egress.Marker, the only form
// that may appear in output, logs, prompts and the run store.
func (d DSN) Redacted() string { return d.shown().String() }

// shown is Redacted as the egress policy's text.
func (d DSN) shown() egress.Text {
	switch d.driver {
	case DriverSQLite:
		return egress.Mask(d.raw)
	case DriverMySQL:
		return redactMySQL(d.raw)
	case DriverPostgres:
		return redactPostgres(d.raw)
	default:
		if d.raw == "" {
			return egress.Text{}
		}
		return egress.Const(egress.Marker)
	}
}

// redactMySQL hides the password go-sql-driver finds (egress.DSN); a DSN
// that does not parse is hidden whole.
func redactMySQL(raw string) egress.Text {
	cfg, err := mysql.ParseDSN(raw)
	if err != nil || !mysqlNets[cfg.Net] {
		return egress.Const(egress.Marker)
	}
	return egress.DSN(raw, cfg.Passwd)
}

// String returns the redacted form.
func (d DSN) String() string { return d.Redacted() }

// GoString keeps %#v redacted.
func (d DSN) GoString() string { return "sqlquery.DSN(" + strconv.Quote(d.Redacted()) + ")" }

// Format keeps every fmt verb (%s %v %+v %#v %q %x ...) redacted.
func (d DSN) Format(f fmt.State, verb rune) { egress.Format(f, verb, d.shown(), d.GoString()) }

// MarshalJSON encodes the redacted form so a dumped config holds no password.
func (d DSN) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(d.Redacted())), nil }

// MarshalText encodes the redacted form for text-based encoders (TOML, YAML).
func (d DSN) MarshalText() ([]byte, error) { return []byte(d.Redacted()), nil }

// UnmarshalText keeps the text as an unchecked DSN, redacted as a whole,
// for the TOML decoder; NewDSN checks it once the driver is known.
func (d *DSN) UnmarshalText(text []byte) error {
	*d = DSN{raw: string(text)}
	return nil
}

// ForDriver checks d, a DSN decoded as text (UnmarshalText), for driver:
// blank text is no DSN, and for a driver that is none of the three d
// stays unchecked and redacted whole (the driver is what is wrong). The
// error never contains the password.
func (d DSN) ForDriver(driver Driver) (DSN, error) {
	if strings.TrimSpace(d.raw) == "" {
		return DSN{}, nil
	}
	switch driver {
	case DriverMySQL, DriverPostgres, DriverSQLite:
		return NewDSN(driver, d.raw)
	}
	return d, nil
}

// LogValue keeps slog output redacted.
func (d DSN) LogValue() slog.Value { return slog.StringValue(d.Redacted()) }

// redactPostgres hides the secrets of a libpq URL or keyword DSN
// (egress.LibPQ); one pgconn cannot parse is hidden whole.
func redactPostgres(raw string) egress.Text {
	cfg, err := pgconn.ParseConfig(raw)
	if err != nil {
		return egress.Const(egress.Marker)
	}
	return egress.LibPQ(raw, cfg.Password)
}

package databases

import (
	"errors"
	"fmt"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Config is the [[databases]] share of the configuration, for every driver
// (query_mysql's and query_postgres's): the rules of each entry its tags
// cannot state, its summary lines, and a SQLite file's path resolved at
// load. The table is declared in pkg/tools/sqlquery (sqlquery.Database's
// tags) and handed to config by Schema: config has no field for it. Each
// DSN's password still reaches config.Policy, which walks every table.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: []sqlquery.Database(nil), Decoded: checkDSNs, Paths: resolvePaths, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [[databases]] table.
const table = "databases"

// Entries are the configuration's [[databases]] entries, every driver's, as loaded.
func Entries(cfg *config.Config) []sqlquery.Database {
	return config.TableOf[[]sqlquery.Database](cfg, table)
}

// NewEntry is a [[databases]] entry holding its declared defaults.
func NewEntry() sqlquery.Database { return defaults.Of[sqlquery.Database]() }

// SQLite is a [[databases]] entry holding its declared defaults that
// reads the SQLite file at path under name (the demo's database).
func SQLite(name, path string) (sqlquery.Database, error) {
	dsn, err := sqlquery.NewDSN(sqlquery.DriverSQLite, path)
	if err != nil {
		return sqlquery.Database{}, fmt.Errorf("database %s: %w", name, err)
	}
	db := NewEntry()
	db.Name, db.Driver, db.DSN = name, sqlquery.DriverSQLite, dsn
	return db, nil
}

// SetEntries replaces the configuration's [[databases]] entries (the
// demo's, eval's recorded ones); other copies of cfg keep theirs.
func SetEntries(cfg *config.Config, es ...sqlquery.Database) { config.SetTable(cfg, table, es) }

// checkDSNs checks each decoded entry's DSN, read as unchecked text, for
// its driver (DSN.ForDriver); one that fails is an error naming its key
// and never echoing the DSN. An unknown driver is checkConfig's to
// report; its DSN stays redacted whole meanwhile.
func checkDSNs(cfg *config.Config) error {
	es := slices.Clone(Entries(cfg))
	var errs []error
	for i, db := range es {
		dsn, err := db.DSN.ForDriver(db.Driver)
		if err != nil {
			errs = append(errs, &config.KeyError{Key: fmt.Sprintf("databases[%d].dsn", i), Problem: err.Error()})
		}
		es[i].DSN = dsn
	}
	SetEntries(cfg, es...)
	return errors.Join(errs...)
}

// resolvePaths makes every SQLite entry's file path absolute.
func resolvePaths(cfg *config.Config, r config.Paths) (probs []string) {
	es := slices.Clone(Entries(cfg))
	defer SetEntries(cfg, es...)
	for i, db := range es {
		if db.DSN.Driver() != sqlquery.DriverSQLite || db.DSN.IsZero() {
			continue
		}
		dsn, err := sqlquery.NewDSN(sqlquery.DriverSQLite, r.Abs(db.DSN.Reveal()))
		if err != nil {
			probs = append(probs, fmt.Sprintf("databases[%d].dsn: %v", i, err))
			continue
		}
		es[i].DSN = dsn
	}
	return probs
}

// checkConfig reports, per entry, a missing DSN, or one not checked for the
// entry's driver (a configuration built in Go).
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, d := range Entries(cfg) {
		key := fmt.Sprintf("databases[%d].dsn", i)
		switch d.Driver {
		case sqlquery.DriverMySQL, sqlquery.DriverPostgres, sqlquery.DriverSQLite:
		default:
			continue // the driver's own problem is reported
		}
		if d.DSN.IsZero() {
			c.Bad(key, `""`, `empty: write e.g. "readonly:secret@tcp(127.0.0.1:3306)/orders" (mysql), "postgres://readonly:secret@127.0.0.1:5432/orders" (postgres) or a file path (sqlite)`)
		} else if d.DSN.Driver() != d.Driver {
			c.Rule(key, fmt.Sprintf("was not checked for driver %q: build it with sqlquery.NewDSN", d.Driver))
		}
	}
}

// summaryLines is one line per database, its DSN masked.
func summaryLines(cfg *config.Config) []string {
	var lines []string
	for _, d := range Entries(cfg) {
		lines = append(lines, fmt.Sprintf("database %s: %s %s (%s)", d.Name, d.Driver, d.DSN.Redacted(), cfg.Pairs("", d, "name", "driver", "dsn")))
	}
	if len(Entries(cfg)) == 0 {
		lines = append(lines, "databases: none configured")
	}
	return lines
}

// example configures both tools of the table: query_mysql (a SQLite file)
// and query_postgres.
const example = `[[databases]]
name = "orders"
driver = "sqlite"
dsn = "orders.db"

[[databases]]
name = "billing"
driver = "postgres"
dsn = "postgres://readonly@127.0.0.1:5432/billing"
`

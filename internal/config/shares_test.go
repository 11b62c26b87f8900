package config

import (
	"slices"

	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// sourceShares declare, as the integrations' folders do (Part.Schema),
// the tables whose values config itself decodes, redacts and encodes but
// does not own: [[logs]], [[databases]], whose DSN is a secret, and
// [[metrics]], whose credentials Policy gathers. Only
// the declarations (and the DSNs checked for their drivers, as a load
// gives them): each folder tests its own rules, summary lines, paths and
// what it completes after decode; internal/registry tests them
// together. The folders import this package, so its tests cannot import
// them.
var sourceShares = []Part{
	{Table: "logs", Schema: []logs.Source(nil)},
	{Table: "databases", Schema: []sqlquery.Database(nil), Decoded: checkedDSNs},
	{Table: "metrics", Schema: []metrics.Source(nil)},
}

// testParts are envParts and sourceShares: what config's own tests load with.
var testParts = append(append([]Part(nil), envParts...), sourceShares...)

// logsOf is cfg's [[logs]] table as sourceShares declare it.
func logsOf(cfg *Config) []logs.Source {
	return TableOf[[]logs.Source](cfg, "logs")
}

// pathsTable stands in for [knowledge] and [skills] (declared by the
// runbooks and playbooks folders) where a test loads SPEC's example,
// which sets their paths.
type pathsTable struct {
	Paths []string `toml:"paths"`
}

// specParts are testParts and the stand-ins SPEC's example needs.
var specParts = append(slices.Clone(testParts), Part{Table: "knowledge", Schema: pathsTable{}}, Part{Table: "skills", Schema: pathsTable{}})

// checkedDSNs checks each [[databases]] DSN for its driver, as the
// folder's share does after decode (without its messages), so config's
// tests see the DSNs a load gives.
func checkedDSNs(cfg *Config) error {
	dbs := slices.Clone(databasesOf(cfg))
	for i := range dbs {
		dsn, err := dbs[i].DSN.ForDriver(dbs[i].Driver)
		if err != nil {
			return err
		}
		dbs[i].DSN = dsn
	}
	SetTable(cfg, "databases", dbs)
	return nil
}

// metricsOf is cfg's [[metrics]] table as sourceShares declare it.
func metricsOf(cfg *Config) []metrics.Source {
	return TableOf[[]metrics.Source](cfg, "metrics")
}

// databasesOf is cfg's [[databases]] table as sourceShares declare it.
func databasesOf(cfg *Config) []sqlquery.Database {
	return TableOf[[]sqlquery.Database](cfg, "databases")
}

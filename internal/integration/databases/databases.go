// Package databases is the SQL database integration ([[databases]]):
// read-only MySQL/MariaDB and SQLite databases queried by the query_mysql
// tool (Source) and PostgreSQL ones queried by query_postgres (Postgres),
// both in pkg/tools/sqlquery; their doctor checks (reachable, read-only)
// and what eval reads of their results.
package databases

import (
	"context"
	"encoding/json"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Source is the database integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "databases" }

// Build adds query_mysql over every mysql and sqlite [[databases]] entry,
// and its closer (the connection pools); nothing without one.
func (Source) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	dbs, _ := sqlquery.Split(Entries(cfg))
	return build(dbs, sqlquery.New, parts)
}

// build adds the SQL tool new makes over dbs, and its closer; nothing
// without an entry.
func build(dbs []sqlquery.Database, newTool func([]sqlquery.Database) (*sqlquery.Tool, error), parts *integration.Parts) error {
	if len(dbs) == 0 {
		return nil
	}
	return parts.Add(newTool(dbs))
}

// Reads names the database a call asked for and its result reports.
func (Source) Reads(input, observation json.RawMessage) []string {
	return integration.Named(sqlquery.ToolName, "database", input, observation)
}

// Tool is the tool the source adds.
func (Source) Tool() string { return sqlquery.ToolName }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string {
	return `add a [[databases]] entry (driver = "mysql" or "sqlite") to the config`
}

// Guide is query_mysql's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`query_mysql`, `query_postgres`: one read-only SQL statement on a MySQL/MariaDB or PostgreSQL database.",
		ZH: "`query_mysql`、`query_postgres`：在 MySQL/MariaDB 或 PostgreSQL 数据库上执行一条只读 SQL。",
	}
}

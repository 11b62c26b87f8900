package databases

import (
	"context"
	"encoding/json"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Postgres is the PostgreSQL half of [[databases]] (driver = "postgres"),
// read by query_postgres; its zero value is ready.
type Postgres struct{}

// Name is the integration's name.
func (Postgres) Name() string { return "postgres" }

// Build adds query_postgres over every postgres [[databases]] entry, and
// its closer; nothing without one.
func (Postgres) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	_, dbs := sqlquery.Split(Entries(cfg))
	return build(dbs, sqlquery.NewPostgres, parts)
}

// Doctor connects to each postgres database the way query_postgres will and
// reads the role's attributes, predefined roles and table privileges: a
// role that can write is a warning.
func (Postgres) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	_, dbs := sqlquery.Split(Entries(cfg))
	return check(ctx, cfg, dbs, sqlquery.NewPostgres, "give superbiz a role with pg_read_all_data or SELECT grants only (CREATE ROLE superbiz LOGIN PASSWORD '...' IN ROLE pg_read_all_data)")
}

// Reads names the database a call asked for and its result reports.
func (Postgres) Reads(input, observation json.RawMessage) []string {
	return integration.Named(sqlquery.PostgresToolName, "database", input, observation)
}

// Tool is the tool the source adds.
func (Postgres) Tool() string { return sqlquery.PostgresToolName }

// Setup says how to configure the tool when the configuration has none.
func (Postgres) Setup() string {
	return `add a [[databases]] entry with driver = "postgres" to the config`
}

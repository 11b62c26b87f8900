package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Databases connects to each configured database the way query_mysql or
// query_postgres will, then reports what the account may do: anything
// beyond reading is a warning, since the account is the real read-only
// boundary.
func Databases(ctx context.Context, cfg *config.Config) []Result {
	if len(cfg.Databases) == 0 {
		return nil
	}
	byName := map[string]*sqlquery.Tool{}
	mysqlDBs, postgresDBs := sqlquery.Split(cfg.Databases)
	for _, g := range []struct {
		dbs []config.Database
		New func([]config.Database) (*sqlquery.Tool, error)
	}{{mysqlDBs, sqlquery.New}, {postgresDBs, sqlquery.NewPostgres}} {
		if len(g.dbs) == 0 {
			continue
		}
		tool, err := g.New(g.dbs)
		if err != nil {
			return []Result{Failed("databases", err.Error(), "fix the [[databases]] entries in "+cfg.File)}
		}
		defer tool.Close()
		for _, d := range g.dbs {
			byName[d.Name] = tool
		}
	}

	var out []Result
	for _, d := range cfg.Databases {
		tool := byName[d.Name]
		name := "database " + d.Name
		dctx, cancel := context.WithTimeout(ctx, Timeout)
		err := tool.Ping(dctx, d.Name)
		if err != nil {
			cancel()
			out = append(out, Failed(name, err.Error(), fmt.Sprintf("check that the server is up and the dsn of database %s in %s (user, host, port, database name)", d.Name, cfg.File)))
			continue
		}
		warnings, err := tool.Grants(dctx, d.Name)
		cancel()
		switch {
		case err != nil:
			out = append(out, Warned(name, fmt.Sprintf("%s reachable; its grants could not be read: %v", d.DSN.Redacted(), err), readOnlyHint(d.Driver)))
		case len(warnings) > 0:
			out = append(out, Warned(name, fmt.Sprintf("%s reachable; the account can do more than read: %s", d.DSN.Redacted(), strings.Join(warnings, "; ")), readOnlyHint(d.Driver)))
		default:
			out = append(out, Passed(name, fmt.Sprintf("%s reachable, read-only", d.DSN.Redacted())))
		}
	}
	return out
}

// readOnlyHint is the account doctor recommends for a driver.
func readOnlyHint(d config.Driver) string {
	if d == config.DriverPostgres {
		return "give superbiz a role with pg_read_all_data or SELECT grants only (CREATE ROLE superbiz LOGIN PASSWORD '...' IN ROLE pg_read_all_data)"
	}
	return "give superbiz an account with SELECT only (GRANT SELECT ON db.* TO ...)"
}

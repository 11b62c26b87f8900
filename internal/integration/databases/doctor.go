package databases

import (
	"context"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// Doctor connects to each configured mysql and sqlite database the way
// query_mysql will, then reports what the account may do: anything beyond
// reading is a warning, since the account is the real read-only boundary.
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	dbs, _ := sqlquery.Split(Entries(cfg))
	return check(ctx, cfg, dbs, sqlquery.New, "give superbiz an account with SELECT only (GRANT SELECT ON db.* TO ...)")
}

// check connects to each of dbs through the tool new makes and reads what
// its account may do; readOnly is the account to recommend.
func check(ctx context.Context, cfg *config.Config, dbs []sqlquery.Database, newTool func([]sqlquery.Database) (*sqlquery.Tool, error), readOnly string) []doctor.Result {
	if len(dbs) == 0 {
		return nil
	}
	tool, err := newTool(dbs)
	if err != nil {
		return []doctor.Result{doctor.Failed("databases", err.Error(), "fix the [[databases]] entries in "+cfg.File)}
	}
	defer tool.Close()

	var out []doctor.Result
	for _, d := range dbs {
		name := "database " + d.Name
		dctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
		err := tool.Ping(dctx, d.Name)
		if err != nil {
			cancel()
			out = append(out, doctor.Failed(name, err.Error(), fmt.Sprintf("check that the server is up and the dsn of database %s in %s (user, host, port, database name)", d.Name, cfg.File)))
			continue
		}
		warnings, err := tool.Grants(dctx, d.Name)
		cancel()
		switch {
		case err != nil:
			out = append(out, doctor.Warned(name, fmt.Sprintf("%s reachable; its grants could not be read: %v", d.DSN.Redacted(), err), readOnly))
		case len(warnings) > 0:
			out = append(out, doctor.Warned(name, fmt.Sprintf("%s reachable; the account can do more than read: %s", d.DSN.Redacted(), strings.Join(warnings, "; ")), readOnly))
		default:
			out = append(out, doctor.Passed(name, fmt.Sprintf("%s reachable, read-only", d.DSN.Redacted())))
		}
	}
	return out
}

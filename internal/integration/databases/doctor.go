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

// Doctor connects to each configured database the way query_mysql
// will, then reports what the account may do: anything beyond reading is a
// warning, since the account is the real read-only boundary.
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	if len(cfg.Databases) == 0 {
		return nil
	}
	tool, err := sqlquery.New(cfg.Databases)
	if err != nil {
		return []doctor.Result{doctor.Failed("databases", err.Error(), "fix the [[databases]] entries in "+cfg.File)}
	}
	defer tool.Close()

	var out []doctor.Result
	for _, d := range cfg.Databases {
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
			out = append(out, doctor.Warned(name, fmt.Sprintf("%s reachable; its grants could not be read: %v", d.DSN.Redacted(), err), "give superbiz an account with SELECT only"))
		case len(warnings) > 0:
			out = append(out, doctor.Warned(name, fmt.Sprintf("%s reachable; the account can do more than read: %s", d.DSN.Redacted(), strings.Join(warnings, "; ")), "give superbiz an account with SELECT only (GRANT SELECT ON db.* TO ...)"))
		default:
			out = append(out, doctor.Passed(name, fmt.Sprintf("%s reachable, read-only", d.DSN.Redacted())))
		}
	}
	return out
}

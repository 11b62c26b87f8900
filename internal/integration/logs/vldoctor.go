package logs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/internal/victorialogs"
	"github.com/superbiz/superbiz/pkg/egress"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
)

// secretProblem says which variable a victorialogs source names but the
// environment lacks, "" when its secret (if any) is there.
func secretProblem(cfg *config.Config, src logtool.Source) string {
	env := src.BearerTokenEnv
	if env == "" {
		env = src.PasswordEnv
	}
	if env == "" || !src.Secret.IsZero() {
		return ""
	}
	return fmt.Sprintf("log source %s in %s names $%s, which is not set: export it with the source's credential before running superbiz", src.Name, cfg.File, env)
}

// vlDoctor checks a victorialogs source as query_logs reaches it: the
// credential's variable, then a tiny query (its entries of the last hour)
// that shows the server answers, for this tenant, with these credentials
// and this filter.
func vlDoctor(ctx context.Context, cfg *config.Config, src logtool.Source) doctor.Result {
	name := "logs " + src.Name
	if problem := secretProblem(cfg, src); problem != "" {
		return doctor.Failed(name, problem, "export the variable (its value is never printed), or change the [[logs]] entry")
	}
	tenant := src.Tenant
	if tenant == "" {
		tenant = "0:0 (default)"
	}
	where := fmt.Sprintf("victorialogs %s, tenant %s, auth %s", egress.Mask(src.URL).String(), tenant, src.Auth())
	n, err := logtool.Probe(ctx, src, time.Now())
	if err != nil {
		return doctor.Failed(name, where+": "+err.Error(), vlHint(err, src, cfg.File))
	}
	scope := "its entries"
	if src.Filter != "" {
		scope = "entries of " + src.Filter
	}
	return doctor.Passed(name, fmt.Sprintf("%s: answers; %d %s in the last %s", where, n, scope, "hour"))
}

// vlHint is the hint of a failed probe: what to check for the way it failed.
func vlHint(err error, src logtool.Source, file string) string {
	var ve *victorialogs.Error
	var he *httpsource.Error
	switch {
	case errors.As(err, &ve) && ve.Unavailable():
		return "check that VictoriaLogs (every storage node of a cluster) is up and that url of log source " + src.Name + " in " + file + " reaches it"
	case errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden):
		return "check the credentials of log source " + src.Name + " (username and password_env, or bearer_token_env) and its tenant"
	case errors.As(err, &he) && he.Status == http.StatusBadRequest:
		return "check filter of log source " + src.Name + " in " + file + ": a LogsQL filter such as {namespace=\"shop\"}"
	}
	return "check url, tenant and credentials of log source " + src.Name + " in " + file
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
)

// metricsSecretsSet refuses a [[metrics]] entry whose secret variable is
// unset (naming the key and the variable, never a value).
func metricsSecretsSet(cfg *config.Config) error {
	for i := range cfg.Metrics {
		if problem := metricsSecretProblem(cfg, i); problem != "" {
			return errors.New(problem)
		}
	}
	return nil
}

// metricsSecretProblem says which variable entry i names but the
// environment lacks, "" when its credentials (if any) are there.
func metricsSecretProblem(cfg *config.Config, i int) string {
	m := cfg.Metrics[i]
	env, key := m.BearerTokenEnv, "bearer_token_env"
	if env == "" {
		env, key = m.PasswordEnv, "password_env"
	}
	if env == "" || !m.Secret.IsZero() {
		return ""
	}
	where := ""
	if cfg.File != "" {
		where = " in " + cfg.File
	}
	return fmt.Sprintf("metrics[%d].%s%s names $%s, which is not set: export it with the %s's credential before running superbiz", i, key, where, env, m.Name)
}

// metricsChecks runs the trivial query vector(1) on each metrics source the
// way query_metrics sends queries (same URL, credentials and timeout).
func metricsChecks(ctx context.Context, cfg *config.Config) []doctor.Result {
	var out []doctor.Result
	for i, m := range cfg.Metrics {
		name := "metrics " + m.Name
		if problem := metricsSecretProblem(cfg, i); problem != "" {
			out = append(out, doctor.Failed(name, problem, "export the variable (its value is never printed), or change the [[metrics]] entry"))
			continue
		}
		tool, err := metrics.New(cfg.Metrics[i : i+1])
		if err != nil {
			out = append(out, doctor.Failed(name, err.Error(), "fix the [[metrics]] entry in "+cfg.File))
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
		err = tool.Check(cctx, m.Name)
		cancel()
		if err == nil {
			out = append(out, doctor.Passed(name, fmt.Sprintf("%s answers the query vector(1) (auth %s)", m.URL, m.Auth())))
			continue
		}
		out = append(out, doctor.Failed(name, fmt.Sprintf("%s: %v", m.URL, err), metricsHint(m, err)))
	}
	return out
}

// metricsHint names the fix for a failed metrics check.
func metricsHint(m config.MetricsSource, err error) string {
	var ae *metrics.APIError
	if !errors.As(err, &ae) {
		return "check the url of metrics " + m.Name
	}
	switch {
	case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
		return fmt.Sprintf("the server refused the credentials (auth %s): check the value of the variable, or set bearer_token_env / username + password_env", m.Auth())
	case ae.Status == http.StatusNotFound:
		return "the url answers but not the Prometheus HTTP API: give the base URL under which /api/v1/query lives (e.g. http://host:9090, or a prefix such as /select/0/prometheus)"
	case ae.Code == tools.CodeTimeout:
		return fmt.Sprintf("no answer within timeout %s: check the server's load, or raise timeout", config.FormatDuration(m.Timeout))
	case ae.Status == 0:
		return "start the server or fix the url (scheme, host, port) of metrics " + m.Name
	}
	return "the server answered with an error: check its log"
}

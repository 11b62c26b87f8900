// Package metrics is the metrics integration ([[metrics]]): the
// Prometheus-compatible servers (Prometheus, VictoriaMetrics, Thanos, Mimir)
// queried by the query_metrics tool (pkg/tools/metrics), their credential
// resolution, their doctor check (the query vector(1)) and its hints, and
// what eval reads of their results.
package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/pkg/tools"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// Source is the metrics integration; its zero value is ready.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "metrics" }

// Build adds query_metrics over every [[metrics]] entry; nothing without
// one. An entry whose secret variable is unset is a configuration error.
func (Source) Build(_ context.Context, cfg *config.Config, _ integration.Env, parts *integration.Parts) error {
	es := Entries(cfg)
	if len(es) == 0 {
		return nil
	}
	if err := secretsSet(cfg); err != nil {
		return &integration.ConfigError{Err: err}
	}
	return parts.Add(metricstool.New(es))
}

// Reads names the metrics source a call asked for and its result reports.
func (Source) Reads(input, observation json.RawMessage) []string {
	return integration.Named(metricstool.ToolName, "source", input, observation)
}

// secretsSet refuses a [[metrics]] entry whose secret variable is
// unset (naming the key and the variable, never a value).
func secretsSet(cfg *config.Config) error {
	for i := range Entries(cfg) {
		if problem := secretProblem(cfg, i); problem != "" {
			return errors.New(problem)
		}
	}
	return nil
}

// secretProblem says which variable entry i names but the
// environment lacks, "" when its credentials (if any) are there.
func secretProblem(cfg *config.Config, i int) string {
	m := Entries(cfg)[i]
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

// Doctor runs the trivial query vector(1) on each metrics source the way
// query_metrics sends queries (same URL, credentials and timeout).
func (Source) Doctor(ctx context.Context, cfg *config.Config, _ integration.Env) []doctor.Result {
	var out []doctor.Result
	es := Entries(cfg)
	for i, m := range es {
		name := "metrics " + m.Name
		if problem := secretProblem(cfg, i); problem != "" {
			out = append(out, doctor.Failed(name, problem, "export the variable (its value is never printed), or change the [[metrics]] entry"))
			continue
		}
		tool, err := metricstool.New(es[i : i+1])
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
		out = append(out, doctor.Failed(name, fmt.Sprintf("%s: %v", m.URL, err), hint(m, err)))
	}
	return out
}

// hint names the fix for a failed metrics check.
func hint(m metricstool.Source, err error) string {
	var ae *metricstool.APIError
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

// Tool is the tool the source adds.
func (Source) Tool() string { return metricstool.ToolName }

// Setup says how to configure the tool when the configuration has none.
func (Source) Setup() string { return "add a [[metrics]] source to the config" }

// Guide is query_metrics's line in the diagnosis prompt's list of evidence tools.
func (Source) Guide() integration.Guide {
	return integration.Guide{
		EN: "`query_metrics`: a PromQL query over a Prometheus-compatible metrics source, summarised per series.",
		ZH: "`query_metrics`：在 Prometheus 兼容的指标源上执行一条 PromQL 查询，按序列汇总。",
	}
}

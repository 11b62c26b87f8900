// Package timeline is the incident timeline's integration: the agent's
// build_timeline tool (internal/timeline), built over the tools the other
// sources built (query_logs, query_metrics) and the Alertmanager of
// [alerts], with the metrics of [[timeline.metrics]]. It adds the tool when
// some source can feed it.
package timeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	kubesource "github.com/superbiz/superbiz/internal/integration/kubernetes"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
	kubetool "github.com/superbiz/superbiz/pkg/tools/kubernetes"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// Source is the timeline integration; its zero value is ready. The
// registry lists it after the sources whose tools it reads.
type Source struct{}

// Name is the integration's name.
func (Source) Name() string { return "timeline" }

// Build adds build_timeline over the query_logs and query_metrics already
// in parts (the [[timeline.metrics]] and every [[metrics]] source's alert
// state) and the [alerts] Alertmanager; nothing when none is configured.
func (Source) Build(_ context.Context, cfg *config.Config, env integration.Env, parts *integration.Parts) error {
	var reads []tools.Adapter
	for _, a := range parts.Adapters {
		if n := a.Definition().Name; n == logtool.ToolName || n == metricstool.ToolName || n == kubetool.ToolName {
			reads = append(reads, a)
		}
	}
	if alertsource.Configured(cfg) {
		getenv := env.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		client, err := alertsource.Client(cfg, getenv)
		if err != nil {
			return err
		}
		reads = append(reads, alertsource.TimelineReader{Client: client})
	}
	if len(reads) == 0 {
		return nil
	}
	t, err := timeline.NewTool(reads, LogSources(cfg), Metrics(cfg), AlertSeries(cfg))
	if err == nil {
		t = t.WithKubernetes(KubernetesSources(cfg))
	}
	return parts.Add(t, err)
}

// KubernetesSources are the [[kubernetes]] sources a timeline reads.
func KubernetesSources(cfg *config.Config) []string {
	es := kubesource.Entries(cfg)
	out := make([]string, 0, len(es))
	for _, k := range es {
		out = append(out, k.Name)
	}
	return out
}

// AlertSeries are the [[metrics]] sources a timeline reads the alert state
// of (timeline.Plan.AlertSeries): every one, since any may be the
// Prometheus that evaluates the alerting rules.
func AlertSeries(cfg *config.Config) []string {
	srcs := metricsource.Entries(cfg)
	out := make([]string, 0, len(srcs))
	for _, m := range srcs {
		out = append(out, m.Name)
	}
	return out
}

// LogSources are the [[logs]] sources a timeline reads, with their max_window.
func LogSources(cfg *config.Config) []timeline.LogSource {
	srcs := logsource.Entries(cfg)
	out := make([]timeline.LogSource, 0, len(srcs))
	for _, l := range srcs {
		out = append(out, timeline.LogSource{Name: l.Name, MaxWindow: l.MaxWindow})
	}
	return out
}

// Doctor has nothing of its own to check: the sources it reads have theirs.
func (Source) Doctor(context.Context, *config.Config, integration.Env) []doctor.Result { return nil }

// Tool is build_timeline.
func (Source) Tool() string { return timeline.ToolName }

// Setup says how to give the timeline something to read.
func (Source) Setup() string {
	return "configure a [[logs]] source, [alerts] url or a [[metrics]] source"
}

// Reads names the log sources, the metrics sources whose alert state it
// read and the Alertmanager a timeline read (its coverage lines that read
// something), as the tools that read them.
func (Source) Reads(_, observation json.RawMessage) []string {
	var obs struct {
		Result timeline.Timeline `json:"result"`
	}
	if json.Unmarshal(observation, &obs) != nil {
		return nil
	}
	var out []string
	for _, c := range obs.Result.Coverage {
		if c.Status == timeline.Failed {
			continue
		}
		r := timeline.ToolName + ":" + c.Source
		switch c.Detector {
		case timeline.DetectBursts, timeline.DetectNewError, timeline.DetectRestarts:
			r = logtool.ToolName + ":" + c.Source
		case timeline.DetectKubeDeploys, timeline.DetectKubeRestarts, timeline.DetectKubeWarnings:
			r = kubetool.ToolName + ":" + c.Source
		case timeline.DetectAlerts:
			if c.Source != timeline.AlertmanagerSource {
				r = metricstool.ToolName + ":" + c.Source
			}
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// AlertMetric is what the timeline of al watches of the rule that fired
// it: the series its expression compares (metricstool.Watched), named
// "NAME expression", with al's service, on the [[metrics]] source whose URL
// has the generatorURL's host (the only one when one is configured). The
// expression is the one al's generatorURL holds (Prometheus' g0.expr);
// when it holds none (vmalert, Thanos Ruler, a rewritten URL), the rules of
// the [[metrics]] sources are asked for it (GET /api/v1/rules, the rule of
// al's name and labels: metricstool.RuleExpr), the generatorURL's host
// first, and the source that has the rule is read. ok is false when no
// [[metrics]] source is configured or no expression can be read; note then
// says why for a person ("" when there is nothing to say). With several
// sources and none on that host, the source stays "" and the read's
// coverage line says which to choose.
func AlertMetric(ctx context.Context, cfg *config.Config, al alerts.Alert) (m timeline.Metric, note string, ok bool) {
	if len(metricsource.Entries(cfg)) == 0 {
		return timeline.Metric{}, "", false
	}
	expr, source := al.Expr(), hostSource(cfg, al.GeneratorURL)
	if expr == "" {
		var why string
		if expr, source, why = ruleExpr(ctx, cfg, al, source); expr == "" {
			return timeline.Metric{}, why, false
		}
	}
	watched, ok := metricstool.Watched(expr)
	if !ok || len(watched) > metricstool.MaxQuery {
		return timeline.Metric{}, fmt.Sprintf("the expression of %s compares no series the timeline can watch: %s", al.Name(), textclip.Bytes(expr, 200)), false
	}
	return timeline.Metric{Name: timeline.AlertExprName(al.Name()), Query: watched, Service: al.Service(), Source: source}, "", true
}

// hostSource is the [[metrics]] source whose URL has gen's host, the only
// one when one is configured, else "".
func hostSource(cfg *config.Config, gen string) string {
	srcs := metricsource.Entries(cfg)
	if len(srcs) == 1 {
		return srcs[0].Name
	}
	g, err := url.Parse(gen)
	if err != nil || g.Host == "" {
		return ""
	}
	for _, s := range srcs {
		if u, err := url.Parse(s.URL); err == nil && strings.EqualFold(u.Host, g.Host) {
			return s.Name
		}
	}
	return ""
}

// ruleExpr asks the [[metrics]] sources' rules for the expression of al's
// rule, first the source first (when set): the expression and the source
// that has it, or "" and why none was read.
func ruleExpr(ctx context.Context, cfg *config.Config, al alerts.Alert, first string) (expr, source, why string) {
	srcs := metricsource.Entries(cfg)
	mt, err := metricstool.New(srcs)
	if err != nil {
		return "", "", "the metrics sources cannot be asked for the rule of " + al.Name() + ": " + err.Error()
	}
	names := make([]string, 0, len(srcs))
	if first != "" {
		names = append(names, first)
	}
	for _, s := range srcs {
		if s.Name != first {
			names = append(names, s.Name)
		}
	}
	var fails []string
	for _, n := range names {
		e, err := mt.RuleExpr(ctx, n, al.Name(), al.Labels)
		if err == nil {
			return e, n, ""
		}
		if !errors.Is(err, metricstool.ErrRuleNotFound) {
			fails = append(fails, n+": "+egress.Error(err).String())
		}
	}
	why = fmt.Sprintf("the alert %s carries no rule expression and no [[metrics]] source's rules (/api/v1/rules) name it", al.Name())
	if len(fails) > 0 {
		why += " (" + strings.Join(fails, "; ") + ")"
	}
	return "", "", why + ": its series is not watched"
}

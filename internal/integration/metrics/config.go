package metrics

import (
	"fmt"
	"slices"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/egress"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// Config is the [[metrics]] share of the configuration: the rules of each
// entry its tags cannot state, its summary lines and its credential, read
// at load from the variable the entry names. The table is declared in
// pkg/tools/metrics (metricstool.Source's tags) and handed to config by
// Schema: config has no field for it.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: []metricstool.Source(nil), Resolve: resolveCredentials, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [[metrics]] table.
const table = "metrics"

// Entries are the configuration's [[metrics]] entries, as loaded.
func Entries(cfg *config.Config) []metricstool.Source {
	return config.TableOf[[]metricstool.Source](cfg, table)
}

// NewEntry is a [[metrics]] entry holding its declared defaults.
func NewEntry() metricstool.Source { return defaults.Of[metricstool.Source]() }

// SetEntries replaces the configuration's [[metrics]] entries (eval's
// pack Prometheus, the demo's none); other copies of cfg keep theirs.
func SetEntries(cfg *config.Config, es ...metricstool.Source) { config.SetTable(cfg, table, es) }

// resolveCredentials reads each entry's secret from the variable its bearer_token_env
// (or else password_env) names; an unset variable leaves it empty, for
// Build and doctor to report.
func resolveCredentials(cfg *config.Config, getenv func(string) string) {
	es := slices.Clone(Entries(cfg))
	for i, m := range es {
		switch {
		case m.BearerTokenEnv != "":
			es[i].Secret = config.NewSecret(getenv(m.BearerTokenEnv))
		case m.PasswordEnv != "":
			es[i].Secret = config.NewSecret(getenv(m.PasswordEnv))
		}
	}
	SetEntries(cfg, es...)
}

// checkConfig reports, per entry, a URL that is no plain base URL and
// credentials named the wrong way.
func checkConfig(cfg *config.Config, c *config.Checker) {
	for i, m := range Entries(cfg) {
		prefix := fmt.Sprintf("metrics[%d]", i)
		if msg := config.BaseURLProblem(m.URL, "http://127.0.0.1:9090"); msg != "" {
			c.Bad(prefix+".url", config.Show(egress.Mask(m.URL).String()), msg)
		}
		c.Auth(prefix, m.HTTPAuth)
	}
}

// summaryLines is one line per source: its URL, its keys and how it
// authenticates (the variable's name, never the value).
func summaryLines(cfg *config.Config) []string {
	var lines []string
	for _, m := range Entries(cfg) {
		lines = append(lines, fmt.Sprintf("metrics %s: %s (%s, auth %s)",
			m.Name, m.URL, cfg.Pairs("", m, "name", "url", "bearer_token_env", "username", "password_env"), m.Auth()))
	}
	if len(Entries(cfg)) == 0 {
		lines = append(lines, "metrics: none configured")
	}
	return lines
}

// example is the [[metrics]] entry of SPEC and the registry's tests.
const example = `[[metrics]]
name = "prom"
url = "http://127.0.0.1:9090"
`

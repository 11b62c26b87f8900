package alerts

import (
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Config is the [alerts] share of the configuration: the table (Table,
// handed to config by Schema: config has no field for it), the rules its
// tags cannot state and its summary line. Its credential is read when
// Client builds the client, never at load.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: Table{}, Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// table is the key of the [alerts] table.
const table = "alerts"

// Table is the [alerts] table: the Alertmanager (API v2) whose firing
// alerts `superbiz alerts` lists and `diagnose --alert` starts from. No URL,
// no alerts. Secrets are never in the file: the keys name the environment
// variables that hold them.
type Table struct {
	// URL is Alertmanager's base URL, e.g. "http://127.0.0.1:9093" (no credentials in it).
	URL string `toml:"url" json:"url"`
	tools.HTTPAuth
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"100ms" max:"5m"`
}

// Of is the configuration's [alerts] table, as loaded (its defaults when
// the file has none).
func Of(cfg *config.Config) Table { return config.TableOf[Table](cfg, table) }

// Configured reports whether [alerts] names an Alertmanager: without a url,
// `alerts`, `diagnose --alert` and MCP's list_alerts are not available.
func Configured(cfg *config.Config) bool { return Of(cfg).URL != "" }

// checkConfig wants a plain http(s) URL without credentials, and at most one way
// of authenticating, each naming a variable (never holding the secret
// itself), and no authentication without a URL.
func checkConfig(cfg *config.Config, c *config.Checker) {
	a := Of(cfg)
	if a.URL != "" {
		if msg := config.BaseURLProblem(a.URL, "http://127.0.0.1:9093"); msg != "" {
			c.Bad("alerts.url", config.ShowHost(a.URL), msg)
		}
	}
	c.Auth("alerts", a.HTTPAuth)
	if a.URL == "" && (a.BearerTokenEnv != "" || a.Username != "") {
		c.Rule("alerts.url", `missing: authentication is set but no url, write e.g. url = "http://127.0.0.1:9093"`)
	}
}

// summaryLines is where Alertmanager is, how it is authenticated (the
// variable's name only) and the timeout.
func summaryLines(cfg *config.Config) []string {
	a := Of(cfg)
	if a.URL == "" {
		return []string{"alerts: none configured"}
	}
	auth := a.Describe(func(env string) string { return "$" + env })
	return []string{fmt.Sprintf("alerts: %s (auth %s, timeout %s)", egress.Userinfo(a.URL).String(), auth, config.FormatDuration(a.Timeout))}
}

// example is the [alerts] table of SPEC and the registry's tests.
const example = `[alerts]
url = "http://127.0.0.1:9093"
`

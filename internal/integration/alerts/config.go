package alerts

import (
	"fmt"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/pkg/egress"
)

// Config is the [alerts] share of the configuration: the rules its tags
// cannot state and its summary line. Its credential is read when Client
// builds the client, never at load.
func (Source) Config() config.Part {
	return config.Part{Table: "alerts", Check: checkConfig, Summary: summaryLines, Example: example, Docs: keyDocs()}
}

// checkConfig wants a plain http(s) URL without credentials, and at most one way
// of authenticating, each naming a variable (never holding the secret
// itself), and no authentication without a URL.
func checkConfig(cfg *config.Config, c *config.Checker) {
	a := cfg.Alerts
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
	a := cfg.Alerts
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

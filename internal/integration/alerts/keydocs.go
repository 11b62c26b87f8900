package alerts

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return config.AuthDocs("alerts", map[string]config.KeyDoc{
		"alerts.url":     {Type: "URL", Accepted: "Alertmanager's base URL (API v2), e.g. `http://127.0.0.1:9093`: `http` or `https`, a host, no credentials, no query or fragment; unset, `alerts` and `--alert` are not available"},
		"alerts.timeout": {Accepted: ": limit of one request to Alertmanager, answer included"},
	})
}

package metrics

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return config.AuthDocs("metrics[]", map[string]config.KeyDoc{
		"metrics[].name":       {Default: "required", Accepted: "as `logs[].name`; unique"},
		"metrics[].url":        {Type: "URL", Default: "required", Accepted: "the HTTP API base: `http` or `https`, host, port and an optional path prefix (`/select/0/prometheus`); `/api/v1/...` is appended; no credentials, query or fragment"},
		"metrics[].timeout":    {Accepted: ": limit of one request"},
		"metrics[].max_series": {Accepted: ": series listed per answer"},
		"metrics[].max_points": {Accepted: ": points per series one query may ask for"},
		"metrics[].max_window": {Accepted: ": the longest window one query may ask for"},
	})
}

package logs

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return config.AuthDocs("logs[]", map[string]config.KeyDoc{
		"logs[].name":          {Default: "required", Accepted: "1–64 of letters, digits, `_`, `.`, `-`, starting with a letter or digit; unique"},
		"logs[].paths":         {Type: "array of globs", Default: "required", Accepted: "at least one file path or glob"},
		"logs[].format":        {Accepted: "`json`, `logfmt`, `text` (every text layout), `auto` (every built-in layout, detected per file; see [Log layouts](#log-layouts)), `custom` (the source's `pattern` and `time_layout`, see [Custom log layouts](#custom-log-layouts))"},
		"logs[].pattern":       {Accepted: "with `format = \"custom\"` only, and then required: a Go RE2 regular expression of at most 2048 bytes with named groups `ts` and `msg` (`level`, `service` optional; other named groups become fields)"},
		"logs[].time_layout":   {Accepted: "with `format = \"custom\"` only, and then required: a Go layout, a strftime layout (it holds `%`), or `unix`, `unix_ms`, `unix_us`, `unix_ns`; must give month, day, hour and minute"},
		"logs[].service":       {Accepted: "the service of the source's entries that name none (a PostgreSQL, Lambda or gunicorn log): `query_logs`' `service` filter then matches them"},
		"logs[].sample":        {Accepted: "with `format = \"custom\"` only: a line (at most 4096 bytes) that must match `pattern` with a `ts` that parses, checked at load"},
		"logs[].timezone":      {Accepted: "IANA zone name, `UTC` or `Local`: the zone of timestamps without an offset"},
		"logs[].max_window":    {Accepted: ": the longest window one query may ask for"},
		"logs[].backend":       {Accepted: "`files` (the keys `paths` to `sample`: files on this machine) or `victorialogs` (the keys `url` to `service_field`: a VictoriaLogs single node or cluster, queried with LogsQL over `/select/*` only); `name`, `timezone` and `max_window` serve both"},
		"logs[].url":           {Type: "URL", Default: "required with `victorialogs`", Accepted: "with `backend = \"victorialogs\"` only: the single node's or the cluster select front end's base URL (`http://vlselect:9471`), an optional path prefix; no credentials, query or fragment"},
		"logs[].tenant":        {Accepted: "with `victorialogs` only: `\"AccountID:ProjectID\"`, two numbers (sent as the `AccountID` and `ProjectID` headers); unset is the default tenant `0:0`"},
		"logs[].filter":        {Accepted: "with `victorialogs` only: a LogsQL filter scoping the source, e.g. `{namespace=\"shop\"}` (a stream filter); every query is this filter AND the call's own"},
		"logs[].level_field":   {Default: "`level` (victorialogs)", Accepted: "with `victorialogs` only: the field holding the level (its values read as on files: `error`, `Warning`, `30`, ...)"},
		"logs[].service_field": {Default: "`service` (victorialogs)", Accepted: "with `victorialogs` only: the field holding the service; the message and time are VictoriaLogs' `_msg` and `_time`"},
	})
}

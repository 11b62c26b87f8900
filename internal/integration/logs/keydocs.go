package logs

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"logs[].name":        {Default: "required", Accepted: "1–64 of letters, digits, `_`, `.`, `-`, starting with a letter or digit; unique"},
		"logs[].paths":       {Type: "array of globs", Default: "required", Accepted: "at least one file path or glob"},
		"logs[].format":      {Accepted: "`json`, `logfmt`, `text` (every text layout), `auto` (every built-in layout, detected per file; see [Log layouts](#log-layouts)), `custom` (the source's `pattern` and `time_layout`, see [Custom log layouts](#custom-log-layouts))"},
		"logs[].pattern":     {Accepted: "with `format = \"custom\"` only, and then required: a Go RE2 regular expression of at most 2048 bytes with named groups `ts` and `msg` (`level`, `service` optional; other named groups become fields)"},
		"logs[].time_layout": {Accepted: "with `format = \"custom\"` only, and then required: a Go layout, a strftime layout (it holds `%`), or `unix`, `unix_ms`, `unix_us`, `unix_ns`; must give month, day, hour and minute"},
		"logs[].service":     {Accepted: "the service of the source's entries that name none (a PostgreSQL, Lambda or gunicorn log): `query_logs`' `service` filter then matches them"},
		"logs[].sample":      {Accepted: "with `format = \"custom\"` only: a line (at most 4096 bytes) that must match `pattern` with a `ts` that parses, checked at load"},
		"logs[].timezone":    {Accepted: "IANA zone name, `UTC` or `Local`: the zone of timestamps without an offset"},
		"logs[].max_window":  {Accepted: ": the longest window one query may ask for"},
	}
}

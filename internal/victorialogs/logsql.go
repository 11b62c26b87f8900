// Package victorialogs reads a VictoriaLogs server (single node or a
// cluster's select front end) for query_logs: the LogsQL a query_logs input
// becomes, built so that no value can change the query (every value is a
// quoted string literal), and a read-only HTTP client that calls only
// /select/* endpoints, never sends allow_partial_response, bounds every
// answer and turns a node that cannot answer into an error naming it.
package victorialogs

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Quote is s as a LogsQL quoted string: VictoriaLogs reads a "…" token
// with Go's strconv.Unquote, so strconv.Quote round-trips every byte
// string, and nothing in s can end the literal early.
func Quote(s string) string { return strconv.Quote(s) }

// Filter is what one query_logs call asks of a VictoriaLogs source: the
// window, the source's own stream filter, and the input's filters.
type Filter struct {
	// Start and End are the window, [Start, End], both ends included as
	// query_logs includes them on files.
	Start, End time.Time
	// Stream is the source's LogsQL stream filter ({namespace="shop"}),
	// from the configuration: the operator's, not the model's. "" for none.
	Stream string
	// LevelField and Levels: entries whose LevelField is one of Levels
	// (compared case-insensitively); no Levels, no level filter.
	// LevelMissing instead keeps the entries whose LevelField is missing
	// or empty.
	LevelField   string
	Levels       []string
	LevelMissing bool
	// ServiceField and Service: entries whose ServiceField is Service
	// (compared case-insensitively); "" for none. ServiceOrMissing keeps
	// the entries naming no service too; ServiceMissing keeps only those.
	ServiceField, Service            string
	ServiceOrMissing, ServiceMissing bool
	// Words must each appear in _msg, case-insensitively, as substrings.
	Words []string
}

// timeLayout is how a window bound is written in LogsQL.
const timeLayout = "2006-01-02T15:04:05.999999999Z"

// LogsQL is the filter part of the query (no pipe): every value from the
// input is a quoted literal, field names are quoted too.
func (f Filter) LogsQL() string {
	var parts []string
	if s := strings.TrimSpace(f.Stream); s != "" {
		parts = append(parts, "("+s+")") // an "or" in it cannot widen the rest
	}
	parts = append(parts, "_time:["+f.Start.UTC().Format(timeLayout)+", "+f.End.UTC().Format(timeLayout)+"]")
	switch {
	case f.LevelMissing:
		parts = append(parts, Quote(f.LevelField)+`:""`)
	case len(f.Levels) > 0:
		alts := make([]string, len(f.Levels))
		for i, l := range f.Levels {
			alts[i] = regexp.QuoteMeta(l)
		}
		parts = append(parts, Quote(f.LevelField)+":~"+Quote("(?i)^(?:"+strings.Join(alts, "|")+")$"))
	}
	switch {
	case f.ServiceMissing:
		parts = append(parts, Quote(f.ServiceField)+`:""`)
	case f.Service != "" && f.ServiceOrMissing:
		parts = append(parts, "("+Quote(f.ServiceField)+":~"+Quote("(?i)^"+regexp.QuoteMeta(f.Service)+"$")+" or "+Quote(f.ServiceField)+`:"")`)
	case f.Service != "":
		parts = append(parts, Quote(f.ServiceField)+":~"+Quote("(?i)^"+regexp.QuoteMeta(f.Service)+"$"))
	}
	for _, w := range f.Words {
		parts = append(parts, "_msg:~"+Quote("(?i)"+regexp.QuoteMeta(w)))
	}
	return strings.Join(parts, " ")
}

// CountQuery counts every entry the filter matches (the exact matched).
func (f Filter) CountQuery() string { return f.LogsQL() + " | stats count() matched" }

// EntriesQuery is the filter's entries; the limit is the request's
// argument (which returns the newest), never a pipe (which returns the
// earliest).
func (f Filter) EntriesQuery() string { return f.LogsQL() }

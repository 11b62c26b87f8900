package logs

import (
	"bytes"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/window"
)

// Input bounds and defaults (docs/SPEC.md#query_logs).
const (
	defaultLimit = 20
	maxLimit     = 50
	minSince     = 5 * time.Minute
	maxSince     = 24 * time.Hour
	maxWords     = 8
	maxContains  = 256
	maxService   = 128
)

// Input is the business input of query_logs as the model sends it; the
// canonical form has defaults applied and absolute times in UTC RFC 3339.
// Its tags are the schema the model receives (the source enum is added per
// configuration by Definition); TestInputSchemaBounds holds the bounds to
// maxLimit and defaultLimit.
type Input struct {
	Source   string `json:"source,omitempty" jsonschema_description:"log source name; optional when only one is configured"`
	Service  string `json:"service,omitempty" jsonschema_description:"only entries of this service (exact name, case-insensitive)"`
	Level    string `json:"level,omitempty" jsonschema:"enum=ERROR,enum=WARN,enum=INFO,enum=DEBUG" jsonschema_description:"only entries of this level"`
	Contains string `json:"contains,omitempty" jsonschema_description:"space-separated words that must all appear in the entry (case-insensitive)"`
	Start    string `json:"start,omitempty" jsonschema_description:"window start: RFC 3339 or 2006-01-02 15:04:05 in the source's time zone; needs end"`
	End      string `json:"end,omitempty" jsonschema_description:"window end, same formats as start"`
	Since    string `json:"since,omitempty" jsonschema_description:"window back from now, 5m to 24h, e.g. 30m or 2h; instead of start/end"`
	Limit    *int   `json:"limit,omitempty" jsonschema:"minimum=1,maximum=50,default=20" jsonschema_description:"newest entries to return"`
	// Stats summarises a numeric field over the matches (stats.go).
	Stats *StatsInput `json:"stats,omitempty" jsonschema_description:"summarise a numeric field of the matched entries: count, min, p50, p95, p99, max, avg, per value of by (at most 20 keys)"`
	// Histogram counts the matches per time bucket (histogram.go).
	Histogram string `json:"histogram,omitempty" jsonschema_description:"count the matched entries per time bucket of this length (whole minutes, 1m to 1h, at most 360 buckets), oldest first"`
}

// parsedInput is a validated Input with its source and window resolved.
type parsedInput struct {
	in     Input
	src    *source
	window window.Window
	words  []string
	// every is the histogram's bucket length (0: not asked).
	every time.Duration
}

// decodeInput strictly decodes and validates a business input against the
// configured sources: unknown members, wrong types, bad enums, bad times and
// windows over the source's max_window are refused with a reason.
func (t *Tool) decodeInput(raw []byte) (*parsedInput, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, tools.InvalidInput("empty input: send a JSON object such as {\"since\": \"1h\"}")
	}
	var in Input
	if err := jsonv2.Unmarshal(raw, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, tools.InvalidInput("query_logs input: %v (allowed members: source, service, level, contains, start, end, since, limit, stats, histogram)", err)
	}
	p := &parsedInput{in: in}

	// source
	names := make([]string, len(t.sources))
	for i, s := range t.sources {
		names[i] = s.Name
	}
	i, err := tools.Pick(in.Source, names, "log source")
	if err != nil {
		return nil, err
	}
	p.src = t.sources[i]
	p.in.Source = p.src.Name

	// filters
	p.in.Service = strings.TrimSpace(in.Service)
	if len(p.in.Service) > maxService {
		return nil, tools.InvalidInput("service is longer than %d bytes", maxService)
	}
	if p.in.Level, err = canonicalLevel(in.Level); err != nil {
		return nil, err
	}
	if p.words, err = containsWords(in.Contains); err != nil {
		return nil, err
	}
	p.in.Contains = strings.Join(p.words, " ")

	// stats
	if in.Stats != nil {
		st := StatsInput{Field: strings.TrimSpace(in.Stats.Field), By: strings.TrimSpace(in.Stats.By)}
		switch {
		case st.Field == "":
			return nil, tools.InvalidInput("stats.field is empty: name a field holding a number (rt, bytes, duration_ms, ...)")
		case len(st.Field) > maxStatName || len(st.By) > maxStatName:
			return nil, tools.InvalidInput("stats.field and stats.by are at most %d bytes", maxStatName)
		}
		p.in.Stats = &st
	}

	// limit
	if in.Limit == nil {
		l := defaultLimit
		p.in.Limit = &l
	} else if *in.Limit < 1 || *in.Limit > maxLimit {
		return nil, tools.InvalidInput("limit %d is out of range: use 1 to %d", *in.Limit, maxLimit)
	}

	// window
	w, err := window.Parse(in.Start, in.End, in.Since, window.Bounds{MinSince: minSince, MaxSince: maxSince, MaxWindow: p.src.MaxWindow, Loc: p.src.Location})
	if err != nil {
		return nil, err
	}
	p.window = w
	p.in.Start, p.in.End, p.in.Since = w.Canonical()

	// histogram
	if h := strings.TrimSpace(in.Histogram); h != "" {
		if p.every, err = parseHistogram(h, w.Len()); err != nil {
			return nil, err
		}
		p.in.Histogram = tools.FormatDuration(p.every)
	}
	return p, nil
}

// canonicalLevel is a level filter as the search compares it: one of ERROR,
// WARN, INFO, DEBUG in upper case, or "" for none.
func canonicalLevel(level string) (string, error) {
	if level == "" {
		return "", nil
	}
	lv := strings.ToUpper(strings.TrimSpace(level))
	switch lv {
	case "ERROR", "WARN", "INFO", "DEBUG":
		return lv, nil
	}
	return "", tools.InvalidInput("level %q is not one of ERROR, WARN, INFO, DEBUG", level)
}

// containsWords splits a contains filter into its lower-case words, within
// maxContains bytes and maxWords words.
func containsWords(contains string) ([]string, error) {
	if len(contains) > maxContains {
		return nil, tools.InvalidInput("contains is longer than %d bytes: give a few distinctive words", maxContains)
	}
	words := strings.Fields(strings.ToLower(contains))
	if len(words) > maxWords {
		return nil, tools.InvalidInput("contains has %d words: give at most %d", len(words), maxWords)
	}
	return words, nil
}

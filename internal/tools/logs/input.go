package logs

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/tools"
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
	localLayout  = "2006-01-02 15:04:05"
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
}

// parsedInput is a validated Input with its source and window resolved.
type parsedInput struct {
	in         Input
	src        *source
	start, end time.Time     // absolute windows
	since      time.Duration // relative windows (start/end zero)
	words      []string
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
		return nil, tools.InvalidInput("query_logs input: %v (allowed members: source, service, level, contains, start, end, since, limit)", err)
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
	if in.Level != "" {
		lv := strings.ToUpper(strings.TrimSpace(in.Level))
		switch lv {
		case "ERROR", "WARN", "INFO", "DEBUG":
			p.in.Level = lv
		default:
			return nil, tools.InvalidInput("level %q is not one of ERROR, WARN, INFO, DEBUG", in.Level)
		}
	}
	if len(in.Contains) > maxContains {
		return nil, tools.InvalidInput("contains is longer than %d bytes: give a few distinctive words", maxContains)
	}
	p.words = strings.Fields(strings.ToLower(in.Contains))
	if len(p.words) > maxWords {
		return nil, tools.InvalidInput("contains has %d words: give at most %d", len(p.words), maxWords)
	}
	p.in.Contains = strings.Join(p.words, " ")

	// limit
	if in.Limit == nil {
		l := defaultLimit
		p.in.Limit = &l
	} else if *in.Limit < 1 || *in.Limit > maxLimit {
		return nil, tools.InvalidInput("limit %d is out of range: use 1 to %d", *in.Limit, maxLimit)
	}

	// window
	maxWindow := p.src.MaxWindow
	hasAbs := in.Start != "" || in.End != ""
	switch {
	case hasAbs && in.Since != "":
		return nil, tools.InvalidInput("give the window either as start and end or as since, not both")
	case !hasAbs && in.Since == "":
		return nil, tools.InvalidInput("a time window is required: give since (\"5m\" to \"24h\") or start and end")
	case in.Since != "":
		d, err := time.ParseDuration(strings.TrimSpace(in.Since))
		if err != nil {
			return nil, tools.InvalidInput("since %q is not a duration such as \"30m\" or \"2h\"", in.Since)
		}
		if d < minSince || d > maxSince {
			return nil, tools.InvalidInput("since %q is out of range: use %s to %s", in.Since, config.FormatDuration(minSince), config.FormatDuration(maxSince))
		}
		if d > maxWindow {
			return nil, tools.InvalidInput("since %q is longer than this source's max_window %s: narrow the window", in.Since, config.FormatDuration(maxWindow))
		}
		p.since = d
		p.in.Since = strings.TrimSpace(in.Since)
	default:
		if in.Start == "" || in.End == "" {
			return nil, tools.InvalidInput("give both start and end (or since instead)")
		}
		s, err := parseInputTime(in.Start, p.src.Location)
		if err != nil {
			return nil, tools.InvalidInput("start: %v", err)
		}
		e, err := parseInputTime(in.End, p.src.Location)
		if err != nil {
			return nil, tools.InvalidInput("end: %v", err)
		}
		if !e.After(s) {
			return nil, tools.InvalidInput("end %s is not after start %s", in.End, in.Start)
		}
		if e.Sub(s) > maxWindow {
			return nil, tools.InvalidInput("window of %s is longer than this source's max_window %s: narrow the window", config.FormatDuration(e.Sub(s)), config.FormatDuration(maxWindow))
		}
		p.start, p.end = s, e
		p.in.Start = s.UTC().Format(time.RFC3339Nano)
		p.in.End = e.UTC().Format(time.RFC3339Nano)
	}
	return p, nil
}

// parseInputTime accepts RFC 3339 or "2006-01-02 15:04:05" (also with a T)
// in the source's zone.
func parseInputTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{localLayout, "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2006-01-02T15:04:05Z07:00) nor \"2006-01-02 15:04:05\" in the source's time zone", s)
}

// window returns the absolute window of p at the run's clock now.
func (p *parsedInput) window(now time.Time) (time.Time, time.Time) {
	if p.since > 0 {
		return now.Add(-p.since), now
	}
	return p.start, p.end
}

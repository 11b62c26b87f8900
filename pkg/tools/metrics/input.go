package metrics

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/window"
)

// Input bounds (docs/SPEC.md#query_metrics).
const (
	// MaxQuery is the longest PromQL expression the tool sends, in bytes.
	MaxQuery = 2048
	minSince = time.Minute
	minStep  = time.Second
)

// Input is the business input of query_metrics as the model sends it; the
// canonical form has the source resolved and absolute times in UTC RFC 3339.
// Its tags are the schema the model receives (the source enum is added per
// configuration by Definition).
type Input struct {
	Source string `json:"source,omitempty" jsonschema_description:"metrics source name; optional when only one is configured"`
	Query  string `json:"query" jsonschema:"required,maxLength=2048" jsonschema_description:"PromQL expression, e.g. histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service=\"checkout\"}[5m])))"`
	Start  string `json:"start,omitempty" jsonschema_description:"window start: RFC 3339 (2006-01-02T15:04:05Z) or 2006-01-02 15:04:05 in superbiz's local time zone; needs end"`
	End    string `json:"end,omitempty" jsonschema_description:"window end, same formats as start"`
	Since  string `json:"since,omitempty" jsonschema_description:"window back from now, e.g. 30m or 2h, up to the source's max_window; instead of start/end"`
	Step   string `json:"step,omitempty" jsonschema_description:"resolution, e.g. 15s or 1m; default: the finest step that keeps a series within the source's max_points"`
	// Values asks for each series' values on the step grid (values.go).
	Values bool `json:"values,omitempty" jsonschema_description:"also list each series' values on the step grid, oldest first (null where it has none)"`
}

// parsedInput is a validated Input with its source, window and step resolved.
type parsedInput struct {
	in     Input
	src    *source
	window window.Window
	step   time.Duration // 0: chosen from the window
}

// decodeInput strictly decodes and validates a business input against the
// configured sources, refusing unknown members, an empty or oversized query,
// bad times and windows or steps beyond the source's bounds with a reason.
func (t *Tool) decodeInput(raw []byte) (*parsedInput, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, tools.InvalidInput(`empty input: send a JSON object such as {"query": "up", "since": "1h"}`)
	}
	var in Input
	if err := jsonv2.Unmarshal(raw, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, tools.InvalidInput("query_metrics input: %v (allowed members: source, query, start, end, since, step, values)", err)
	}
	p := &parsedInput{in: in}

	i, err := tools.Pick(in.Source, t.sourceNames(), "metrics source")
	if err != nil {
		return nil, err
	}
	p.src = t.sources[i]
	p.in.Source = p.src.Name

	p.in.Query = strings.TrimSpace(in.Query)
	switch {
	case p.in.Query == "":
		return nil, tools.InvalidInput(`query is empty: give a PromQL expression such as "up"`)
	case len(p.in.Query) > MaxQuery:
		return nil, tools.InvalidInput("query is %d bytes, longer than %d: shorten the expression", len(p.in.Query), MaxQuery)
	case !utf8.ValidString(p.in.Query):
		return nil, tools.InvalidInput("query is not valid UTF-8")
	}

	w, err := window.Parse(in.Start, in.End, in.Since, window.Bounds{MinSince: minSince, MaxWindow: p.src.MaxWindow, Loc: time.Local})
	if err != nil {
		return nil, err
	}
	p.window = w
	p.in.Start, p.in.End, p.in.Since = w.Canonical()

	if in.Step != "" {
		d, err := time.ParseDuration(strings.TrimSpace(in.Step))
		if err != nil {
			return nil, tools.InvalidInput("step %q is not a duration such as \"15s\" or \"1m\"", in.Step)
		}
		if d < minStep || d%time.Second != 0 {
			return nil, tools.InvalidInput("step %q must be a whole number of seconds, at least %s", in.Step, tools.FormatDuration(minStep))
		}
		if n := pointsOf(p.window.Len(), d); n > p.src.MaxPoints {
			return nil, tools.InvalidInput("step %s gives %d points per series over this window, more than this source's max_points %d: use a step of at least %s or omit step",
				tools.FormatDuration(d), n, p.src.MaxPoints, tools.FormatDuration(autoStep(p.window.Len(), p.src.MaxPoints)))
		}
		p.step = d
		p.in.Step = tools.FormatDuration(d)
	}
	return p, nil
}

// rangeAt returns the absolute window of p at the run's clock now, and the step.
func (p *parsedInput) rangeAt(now time.Time) (start, end time.Time, step time.Duration) {
	start, end = p.window.At(now)
	step = p.step
	if step == 0 {
		step = autoStep(end.Sub(start), p.src.MaxPoints)
	}
	return start, end, step
}

// pointsOf is how many points a range query over window at step returns per series at most.
func pointsOf(window, step time.Duration) int {
	return int(window/step) + 1
}

// autoStep is the smallest whole-second step that keeps a series over window
// within maxPoints points: a step below window/maxPoints gives more than
// maxPoints, so it starts there and steps up while the count is over.
func autoStep(window time.Duration, maxPoints int) time.Duration {
	if maxPoints < 2 {
		return max(window, minStep)
	}
	step := max(time.Duration(math.Ceil(window.Seconds()/float64(maxPoints)))*time.Second, minStep)
	for pointsOf(window, step) > maxPoints {
		step += time.Second
	}
	return step
}

// String is a one-line summary of the input for timelines.
func (p *parsedInput) String() string {
	w := "since " + p.in.Since
	if p.window.Since == 0 {
		w = p.in.Start + ".." + p.in.End
	}
	s := fmt.Sprintf("%s %s %s", p.in.Source, p.in.Query, w)
	if p.in.Step != "" {
		s += " step " + p.in.Step
	}
	if p.in.Values {
		s += " values"
	}
	return s
}

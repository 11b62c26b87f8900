package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of the fine pass that computes the summaries (docs/SPEC.md#query_metrics).
const (
	// maxRequestPoints is Prometheus' cap on the points of one series in one
	// range query: a longer window is split into parts.
	maxRequestPoints = 11000
	// maxEvalPoints bounds the points one call evaluates over all series;
	// the resolution is the finest whole second within it.
	maxEvalPoints = 200_000
	// maxPartPoints bounds the points of one part over all series, so that
	// an answer stays a few MiB.
	maxPartPoints = 100_000
)

// resolutionFor is the finest whole-second resolution at which series
// series over window stay within maxEvalPoints, never coarser than step.
func resolutionFor(window time.Duration, series int, step time.Duration) time.Duration {
	return min(autoStep(window, maxEvalPoints/max(series, 1)), step)
}

// queryParts evaluates query over [start, end] at res, in parts of at most
// maxRequestPoints points per series (fewer with many series), and returns
// the parts' series merged.
func (s *source) queryParts(ctx context.Context, query string, start, end time.Time, res time.Duration, series int) ([]rawSeries, error) {
	per := max(min(maxRequestPoints, maxPartPoints/max(series, 1)), 1)
	var parts [][]rawSeries
	for from := start; !from.After(end); {
		to := from.Add(time.Duration(per-1) * res)
		if to.After(end) {
			to = end
		}
		rs, err := s.queryRange(ctx, query, from, to, res)
		if err != nil {
			return nil, err
		}
		parts = append(parts, rs)
		from = to.Add(res)
	}
	return mergeChunks(parts), nil
}

// selectorRE matches a plain series selector (a metric name and/or label
// matchers), the one query whose own samples count_over_time can count.
var selectorRE = regexp.MustCompile(`^\s*(?:[a-zA-Z_:][a-zA-Z0-9_:]*\s*)?(?:\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\})?\s*$`)

// sampleInterval is the shortest average interval between the stored
// samples of a plain selector's series in [start, end] (0 when the query is
// an expression, whose samples have no interval of their own, or a series
// has fewer than two), and how many samples the window holds over all series.
func (s *source) sampleInterval(ctx context.Context, query string, start, end time.Time) (time.Duration, int, error) {
	if !selectorRE.MatchString(query) {
		return 0, 0, nil
	}
	window := end.Sub(start) + time.Millisecond // the range excludes its start
	data, err := s.get(ctx, pathQuery, map[string][]string{
		"query": {fmt.Sprintf("count_over_time(%s[%dms])", query, window.Milliseconds())},
		"time":  {unixText(end)},
	})
	if err != nil {
		return 0, 0, err
	}
	counts, err := instantValues(data)
	if err != nil {
		return 0, 0, fmt.Errorf("the sample count: %w", err)
	}
	most, total := 0, 0
	for _, n := range counts {
		if n < 0 {
			return 0, 0, fmt.Errorf("sample count %g is not a count", n)
		}
		total += int(n)
		most = max(most, int(n))
	}
	if most < 2 {
		return 0, total, nil
	}
	return end.Sub(start) / time.Duration(most-1), total, nil
}

// coarseNote says when the resolution is coarser than the series' own
// sample interval, so a sample between two evaluations can be missed; "" otherwise.
func coarseNote(res, interval time.Duration) string {
	if interval <= 0 || res <= interval {
		return ""
	}
	return fmt.Sprintf("resolution %s is coarser than the series' %s sample interval: a sample between two evaluations can be missed; narrow the window or aggregate",
		tools.FormatDuration(res), interval.Round(time.Millisecond))
}

// instantValues parses the data of a successful instant query answer into
// its samples' values; every value is checked.
func instantValues(data []byte) ([]float64, error) {
	var v struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Value [2]json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &v); err != nil || v.ResultType != "vector" {
		return nil, fmt.Errorf("not an instant vector: %.80s", data)
	}
	out := make([]float64, 0, len(v.Result))
	for _, r := range v.Result {
		var vs string
		if err := json.Unmarshal(r.Value[1], &vs); err != nil {
			return nil, fmt.Errorf("value %.40s is not a quoted number", r.Value[1])
		}
		n, err := strconv.ParseFloat(vs, 64)
		if err != nil {
			return nil, fmt.Errorf("value %q is not a number", vs)
		}
		out = append(out, n)
	}
	return out, nil
}

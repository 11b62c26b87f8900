package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/superbiz/superbiz/internal/jsonstream"
)

// Bounds of what one series may show the model.
const (
	maxLabels     = 32
	maxLabelBytes = 200
)

// Series is one series of a result: its labels and a summary of its points
// the model can reason with instead of the raw points.
type Series struct {
	Labels map[string]string `json:"labels"`
	// Points is how many finite values at the result's resolution the summary is over.
	Points int `json:"points"`
	// NonFinite counts NaN and ±Inf samples, left out of the summary.
	NonFinite int `json:"non_finite,omitempty"`
	*Stats
	// Values, when the input asks for them, are the series' values on the
	// step grid from the result's start, oldest first: nil where the
	// series has no finite value at that step (values.go).
	Values []*float64 `json:"values,omitempty"`
}

// Stats summarises a series' finite samples; absent when it has none.
type Stats struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Avg  float64 `json:"avg"`
	Last float64 `json:"last"`
	// MaxAt is the time of the first sample holding Max (RFC 3339).
	MaxAt string `json:"max_at"`
	// ChangeAt is the time of the sample after the largest change between
	// two consecutive samples, and Change that change (signed); absent with one sample.
	ChangeAt string   `json:"change_at,omitempty"`
	Change   *float64 `json:"change,omitempty"`
}

// apiResponse is the envelope of a Prometheus HTTP API v1 answer.
type apiResponse struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

// errNotMatrix is an answer that is not a range query result.
var errNotMatrix = errors.New("the server's answer is not a range query result (resultType matrix)")

// point is one evaluated sample: unix seconds and value.
type point struct{ ts, v float64 }

// rawSeries is one series of an answer: its labels and points in time order.
type rawSeries struct {
	labels map[string]string
	points []point
}

// allowedPoints is the most points one series of a range query over window
// at step may hold: twice what the window and step give, plus one (a
// server aligning the window to the step adds a point or two; a series of
// 1.2 million points where 240 fit is refused, not summarised).
func allowedPoints(window, step time.Duration) int {
	return 2*pointsOf(window, step) + 1
}

// matrixDecoder reads a range query's answer as a stream of JSON tokens:
// one series at a time, one point at a time, refusing a series at point
// maxPoints+1 (0: no bound) and passing every label through clean.
type matrixDecoder struct {
	*jsonstream.Decoder
	maxPoints int
	clean     func(string) string
}

// answer reads the envelope; its data is decoded as a matrix. Data after
// the envelope is refused.
func (d matrixDecoder) answer() ([]rawSeries, apiResponse, error) {
	var env apiResponse
	var rs []rawSeries
	err := d.Object(func(name string) error {
		var err error
		switch name {
		case "status":
			err = d.Decode(&env.Status)
		case "errorType":
			err = d.Decode(&env.ErrorType)
		case "error":
			err = d.Decode(&env.Error)
		case "data":
			rs, err = d.matrix()
		default:
			err = d.Skip()
		}
		return err
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, env, err
	}
	if env.Status == "success" && rs == nil {
		return nil, env, fmt.Errorf("%w: no data", errNotMatrix)
	}
	return rs, env, nil
}

// matrix reads the data of a range query answer. Every value is checked: a
// malformed answer is an error, never a guess.
func (d matrixDecoder) matrix() ([]rawSeries, error) {
	var resultType string
	out := []rawSeries{}
	err := d.Object(func(name string) error {
		switch name {
		case "resultType":
			return d.Decode(&resultType)
		case "result":
			return d.Array(func() error {
				rs, err := d.series(len(out))
				out = append(out, rs)
				return err
			})
		}
		return d.Skip()
	})
	if err != nil {
		return nil, fmt.Errorf("decode the range query result: %w", err)
	}
	if resultType != "matrix" {
		return nil, fmt.Errorf("%w: got %q", errNotMatrix, resultType)
	}
	return out, nil
}

// series reads the i-th series: its labels and its points in time order.
func (d matrixDecoder) series(i int) (rawSeries, error) {
	rs := rawSeries{labels: map[string]string{}}
	err := d.Object(func(name string) error {
		switch name {
		case "metric":
			var labels map[string]string
			if err := d.Decode(&labels); err != nil {
				return fmt.Errorf("series %d labels: %w", i, err)
			}
			for k, v := range labels {
				rs.labels[d.clean(k)] = d.clean(v)
			}
			return nil
		case "values":
			return d.Array(func() error {
				j := len(rs.points)
				if d.maxPoints > 0 && j == d.maxPoints {
					return fmt.Errorf("series %d has more than %d points, more than the window and step allow", i, d.maxPoints)
				}
				var pair []json.RawMessage
				if err := d.Decode(&pair); err != nil || len(pair) != 2 {
					return fmt.Errorf("series %d point %d: not a [time, \"value\"] pair", i, j)
				}
				ts, v, err := parsePoint(pair[0], pair[1])
				if err != nil {
					return fmt.Errorf("series %d point %d: %w", i, j, err)
				}
				if j > 0 && ts <= rs.points[j-1].ts {
					return fmt.Errorf("series %d point %d: time %s is not after the previous point's", i, j, strconv.FormatFloat(ts, 'f', -1, 64))
				}
				rs.points = append(rs.points, point{ts, v})
				return nil
			})
		}
		return d.Skip()
	})
	return rs, err
}

// mergeChunks joins the answers of consecutive parts of one window into one
// series per label set, in time order; a point a server repeats at a part's
// edge (one that aligns its start to the step) is kept once.
func mergeChunks(chunks [][]rawSeries) []rawSeries {
	byKey := map[string]int{}
	var out []rawSeries
	for _, c := range chunks {
		for _, rs := range c {
			k := labelKey(rs.labels)
			i, ok := byKey[k]
			if !ok {
				byKey[k], i = len(out), len(out)
				out = append(out, rawSeries{labels: rs.labels})
			}
			for _, p := range rs.points {
				if n := len(out[i].points); n > 0 && p.ts <= out[i].points[n-1].ts {
					continue
				}
				out[i].points = append(out[i].points, p)
			}
		}
	}
	return out
}

// summariseSeries summarises each series' points, ordered by labels.
func summariseSeries(in []rawSeries) []Series {
	out := make([]Series, 0, len(in))
	for _, r := range in {
		s := Series{Labels: r.labels}
		var st Stats
		var prevV, bestChange float64
		changed := false
		for _, p := range r.points {
			v := p.v
			if math.IsNaN(v) || math.IsInf(v, 0) {
				s.NonFinite++
				continue
			}
			at := stamp(p.ts)
			if s.Points == 0 {
				st.Min, st.Max, st.MaxAt = v, v, at
			} else {
				d := v - prevV
				if math.IsInf(d, 0) { // two finite samples far apart: the change is beyond float64
					d = math.Copysign(math.MaxFloat64, d)
				}
				if !changed || math.Abs(d) > math.Abs(bestChange) {
					bestChange, st.ChangeAt, changed = d, at, true
				}
			}
			if v < st.Min {
				st.Min = v
			}
			if v > st.Max {
				st.Max, st.MaxAt = v, at
			}
			st.Avg += v
			st.Last, prevV = v, v
			s.Points++
		}
		if s.Points > 0 {
			st.Avg /= float64(s.Points)
			if math.IsInf(st.Avg, 0) { // the sum overflowed: recompute as a running mean
				st.Avg = runningMean(r.points)
			}
			if changed {
				c := bestChange
				st.Change = &c
			}
			s.Stats = &st
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(a, b int) bool { return labelKey(out[a].Labels) < labelKey(out[b].Labels) })
	return out
}

// parsePoint decodes one [unix seconds, "value"] pair's members.
func parsePoint(rawTS, rawV json.RawMessage) (float64, float64, error) {
	pair := [2]json.RawMessage{rawTS, rawV}
	var ts float64
	if err := json.Unmarshal(pair[0], &ts); err != nil || ts < 0 || ts > 1e11 {
		return 0, 0, fmt.Errorf("time %.40s is not a unix time in seconds", pair[0])
	}
	var vs string
	if err := json.Unmarshal(pair[1], &vs); err != nil {
		return 0, 0, fmt.Errorf("value %.40s is not a quoted number", pair[1])
	}
	v, err := strconv.ParseFloat(vs, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("value %.40q is not a number", vs)
	}
	return ts, v, nil
}

// runningMean is the mean of the finite values without overflowing.
func runningMean(points []point) float64 {
	var mean float64
	n := 0
	for _, p := range points {
		v := p.v
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		n++
		mean += v/float64(n) - mean/float64(n) // (v-mean)/n could overflow
	}
	return mean
}

// stamp formats a unix time in seconds as RFC 3339 in UTC (with fractions
// only when the time has them).
func stamp(ts float64) string {
	sec, frac := math.Modf(ts)
	return time.Unix(int64(sec), int64(math.Round(frac*1e3))*int64(time.Millisecond)).UTC().Format(time.RFC3339Nano)
}

// labelKey orders series deterministically by their sorted labels.
func labelKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := make([]byte, 0, 64)
	for _, k := range keys {
		b = append(b, k...)
		b = append(b, 0)
		b = append(b, labels[k]...)
		b = append(b, 0)
	}
	return string(b)
}

package metrics

import (
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/tools"
)

// TestTally: the series count and the highest value of the listed series,
// said only when every series is listed; the count alone when the list was
// cut or no series has a finite sample; nothing for a result that is not
// query_metrics'.
func TestTally(t *testing.T) {
	series := func(max ...float64) []Series {
		out := []Series{}
		for _, m := range max {
			out = append(out, Series{Labels: map[string]string{"i": "a"}, Points: 3, Stats: &Stats{Min: 0, Max: m, MaxAt: "2026-01-15T09:10:00Z"}})
		}
		return out
	}
	res := func(s []Series, total int) string {
		b, err := tools.MarshalJSON(Result{Source: "prom", Query: "up", Coverage: "data", Series: s, TotalSeries: total, Truncated: len(s) < total})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct{ name, result, want string }{
		{"the highest of every series", res(series(0.5, 0.97, 0.2), 3), "3 series, max 0.97"},
		{"one series", res(series(4823.5), 1), "1 series, max 4824"},
		{"negative values", res(series(-3.5, -1.25), 2), "2 series, max -1.25"},
		{"a series without finite samples", res(append(series(7), Series{Labels: map[string]string{}, NonFinite: 4}), 2), "2 series, max 7"},
		{"no finite sample at all", res([]Series{{Labels: map[string]string{}, NonFinite: 4}}, 1), "1 series"},
		{"a cut list: no max", res(series(0.5, 0.97), 40), "40 series"},
		{"no series", res(series(), 0), "0 series"},
		{"total missing", `{"series":[{"max":1}]}`, ""},
		{"malformed", `{"total_series":2,"series":[`, ""},
		{"not an object", `[2]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := new(Tool).Tally(json.RawMessage(tc.result)); got != tc.want {
				t.Errorf("Tally(%s) = %q, want %q", tc.result, got, tc.want)
			}
		})
	}
}

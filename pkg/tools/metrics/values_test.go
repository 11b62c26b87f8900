package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/promtest"
)

// TestValuesOnTheGrid asks real servers for the latency series' values on a
// 1m grid: one slot per step, the spike in its minute, nil before the
// series' first sample; without values the result lists none.
func TestValuesOnTheGrid(t *testing.T) {
	for name, start := range realServers() {
		t.Run(name, func(t *testing.T) {
			srv := start(t)
			tool := newTool(t, Source{Name: "m", URL: srv.URL})
			from := promtest.Start.Add(-5 * time.Minute)
			window := `"start":"` + from.Format(time.RFC3339) + `","end":"` + promtest.End.Format(time.RFC3339) + `"`
			_, s := oneSeries(t, tool, `{"query":`+jsonString(promtest.LatencySelector)+`,`+window+`,"step":"1m","values":true}`)
			if want := int(promtest.End.Sub(from)/time.Minute) + 1; len(s.Values) != want {
				t.Fatalf("%d values, want %d (one per 1m step)", len(s.Values), want)
			}
			for i, v := range s.Values {
				minute := i - 5 // minutes after promtest.Start
				switch {
				case minute < 0 && v != nil:
					t.Errorf("value %d (before the first sample) = %g, want none", i, *v)
				case minute >= 0 && (v == nil || *v != promtest.LatencyAt(minute)):
					t.Errorf("value %d (minute %d) = %v, want %g", i, minute, v, promtest.LatencyAt(minute))
				}
			}
			res, s := oneSeries(t, tool, `{"query":`+jsonString(promtest.LatencySelector)+`,`+window+`,"step":"1m"}`)
			if s.Values != nil || strings.Contains(string(fixture.JSON(t, res)), `"values"`) {
				t.Errorf("values without asking: %v", s.Values)
			}
		})
	}
}

package metrics_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/conformance"
	"github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/promtest"
)

// query_metrics on a real Prometheus holding the incident's history: the
// spike's window has the series, a day before has none.
func TestConformance(t *testing.T) {
	conformance.Run(t, metrics.Source{}, func(t *testing.T) conformance.Fixture {
		srv := promtest.Prometheus(t, promtest.PromOptions{})
		call := func(lo, hi time.Time) json.RawMessage {
			b, err := json.Marshal(map[string]string{"source": "prom", "query": promtest.LatencySelector,
				"start": lo.Format(time.RFC3339), "end": hi.Format(time.RFC3339)})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		day := 24 * time.Hour
		return conformance.Fixture{
			Config:  fmt.Sprintf("[[metrics]]\nname = \"prom\"\nurl = %q\n", srv.URL),
			Call:    call(promtest.Start, promtest.End),
			Marker:  `"max_at"`,
			Empty:   call(promtest.Start.Add(-day), promtest.End.Add(-day)),
			NameKey: "source",
		}
	})
}

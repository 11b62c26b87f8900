package metrics

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// hostileServer answers range queries with rangeAnswer and instant queries
// (the sample count) with an empty vector, as a Prometheus API would.
func hostileServer(t *testing.T, rangeAnswer http.HandlerFunc) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+pathQueryRange, rangeAnswer)
	mux.HandleFunc("POST "+pathQuery, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// matrixAnswer writes a success answer of the given series, each as
// labels and its points' values one second apart from t0.
func matrixAnswer(w http.ResponseWriter, series ...[]string) {
	w.Header().Set("Content-Type", "application/json")
	t0 := 1768467600 // 2026-01-15T09:00:00Z
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for i, s := range series {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"instance":"host-%d"},"values":[`, i)
		for j, v := range s {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d,%q]`, t0+j, v)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}}`)
	fmt.Fprint(w, b.String())
}

const hostileQuery = `{"query":"up","start":"2026-01-15T09:00:00Z","end":"2026-01-15T10:00:00Z"}`

// One series of 1.2 million points where max_points is 240 is refused at
// point 454 (twice the window's 226 points at the 16s auto step, plus
// one), read as a stream: the
// answer is 20 MB, the refusal names the point bound, not the 16 MiB cap.
func TestQueryRefusesPointFlood(t *testing.T) {
	srv := hostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		bw := bufio.NewWriter(w)
		fmt.Fprint(bw, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[`)
		for j := range 1_200_000 {
			if j > 0 {
				_ = bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `[%d.%03d,"1"]`, 1768467600+j/1000, j%1000)
		}
		fmt.Fprint(bw, `]}]}}`)
		_ = bw.Flush()
	})
	tool := newTool(t, Source{Name: "m", URL: srv.URL, MaxPoints: 240})
	o := call(t, tool, hostileQuery, time.Time{})
	allowed := allowedPoints(time.Hour, autoStep(time.Hour, 240))
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeUnavailable || !strings.Contains(fmt.Sprint(o.Detail), fmt.Sprintf("more than %d points", allowed)) || allowed != 453 {
		t.Fatalf("1.2 M points: %s %s %v, want UNAVAILABLE naming the %d-point bound", o.Status, o.ErrorCode, o.Detail, allowed)
	}
	reliability.Record(t, reliability.SectionEvidence, "query_metrics: one series of 1.2 M points, max_points 240", map[string]any{
		"points sent": 1_200_000, "points allowed": allowed, "outcome": o.ErrorCode,
	})
}

// An answer over the 16 MiB cap is INVALID_INPUT (narrow the query), even
// when the bytes are one label value read as a stream.
func TestQueryAnswerOverCap(t *testing.T) {
	srv := hostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"`)
		fmt.Fprint(w, strings.Repeat("x", maxResponse+1))
		fmt.Fprint(w, `"},"values":[[1768467600,"1"]]}]}}`)
	})
	o := call(t, newTool(t, Source{Name: "m", URL: srv.URL}), hostileQuery, time.Time{})
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeInvalidInput || !strings.Contains(fmt.Sprint(o.Detail), "larger than 16 MiB") {
		t.Fatalf("17 MiB answer: %s %s %v, want INVALID_INPUT naming the cap", o.Status, o.ErrorCode, o.Detail)
	}
}

// A proxy's 504 is TIMEOUT, not UNAVAILABLE.
func TestQueryGatewayTimeout(t *testing.T) {
	srv := hostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "upstream request timeout", http.StatusGatewayTimeout)
	})
	o := call(t, newTool(t, Source{Name: "m", URL: srv.URL}), hostileQuery, time.Time{})
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeTimeout || !strings.Contains(fmt.Sprint(o.Detail), "HTTP 504") {
		t.Fatalf("504: %s %s %v, want TIMEOUT", o.Status, o.ErrorCode, o.Detail)
	}
}

// The bearer token goes out as "Authorization: Bearer TOKEN"; a server that
// echoes it in a label value shows the model the redaction marker.
func TestQueryBearerSentAndEchoScrubbed(t *testing.T) {
	const token = "tok-3f9a2c71e0b4"
	var got []string
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"status":"error","errorType":"unauthorized","error":"bad token"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"token_seen":"got %s ok"},"values":[[1768467600,"1"]]}]}}`, token)
	})
	tool := newTool(t, Source{Name: "m", URL: srv.URL, HTTPAuth: tools.HTTPAuth{BearerTokenEnv: "PROM_TOKEN"}, Secret: egress.NewSecret(token)})
	o := call(t, tool, hostileQuery, time.Time{})
	if o.Status != tools.EvidenceFound {
		t.Fatalf("bearer: %s %s %v (Authorization sent: %q)", o.Status, o.ErrorCode, o.Detail, got)
	}
	res := o.Result.(Result)
	if v := res.Series[0].Labels["token_seen"]; v != "got "+egress.Marker+" ok" {
		t.Errorf("echoed token label %q, want it masked", v)
	}
}

// truncated is set only when more series came back than max_series: equal
// is not truncated; one more is, and keeps the first max_series by labels.
func TestQueryTruncatedAtMaxSeries(t *testing.T) {
	for _, tt := range []struct {
		series    int
		truncated bool
	}{{3, false}, {4, true}} {
		srv := hostileServer(t, func(w http.ResponseWriter, _ *http.Request) {
			s := make([][]string, tt.series)
			for i := range s {
				s[i] = []string{"1", "2"}
			}
			matrixAnswer(w, s...)
		})
		o := call(t, newTool(t, Source{Name: "m", URL: srv.URL, MaxSeries: 3}), hostileQuery, time.Time{})
		if o.Status != tools.EvidenceFound {
			t.Fatalf("%d series: %s %s %v", tt.series, o.Status, o.ErrorCode, o.Detail)
		}
		res := o.Result.(Result)
		if res.Truncated != tt.truncated || res.TotalSeries != tt.series || len(res.Series) != 3 || res.Series[2].Labels["instance"] != "host-2" {
			t.Errorf("%d series at max_series 3: truncated %v, total %d, %d listed, want truncated %v", tt.series, res.Truncated, res.TotalSeries, len(res.Series), tt.truncated)
		}
	}
}

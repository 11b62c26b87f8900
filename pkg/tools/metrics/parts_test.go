package metrics

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A window longer than Prometheus' 11,000 points per series is evaluated in
// parts; a server that aligns each part's start to the step answers every
// part after the first with the previous part's last point again. That edge
// point is counted once: four hours at 1s are 14,401 points, whatever the
// parts, and each part asks for at most 11,000 (the server refuses more, as
// Prometheus does).
func TestQueryPartsEdgeCountedOnce(t *testing.T) {
	const from = 1768467600 // hostileQuery's start, 2026-01-15T09:00:00Z
	var (
		mu   sync.Mutex
		fine []string // the fine parts asked for, as "start-end"
	)
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		start, _ := strconv.ParseFloat(r.FormValue("start"), 64)
		end, _ := strconv.ParseFloat(r.FormValue("end"), 64)
		step, _ := strconv.ParseFloat(r.FormValue("step"), 64)
		if step <= 0 || (end-start)/step+1 > maxRequestPoints {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}`)
			return
		}
		first := start
		if step == 1 {
			mu.Lock()
			fine = append(fine, fmt.Sprintf("%g-%g", start-from, end-from))
			mu.Unlock()
			if start > from {
				first = start - step // the previous part's last point, again
			}
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"a"},"values":[`)
		for ts := first; ts <= end; ts += step {
			if ts > first {
				b.WriteByte(',')
			}
			// 1 everywhere, 5 on each part's first point: a repeat would
			// show in the average as well as in the count
			v := 1
			if ts == first && ts > from {
				v = 5
			}
			fmt.Fprintf(&b, `[%g,"%d"]`, ts, v)
		}
		b.WriteString(`]}]}}`)
		fmt.Fprint(w, b.String())
	})
	tool := newTool(t, Source{Name: "m", URL: srv.URL, MaxWindow: 24 * time.Hour})
	o := call(t, tool, `{"query":"up","start":"2026-01-15T09:00:00Z","end":"2026-01-15T13:00:00Z"}`, time.Time{})
	if o.Status != tools.EvidenceFound {
		t.Fatalf("%s %s %v", o.Status, o.ErrorCode, o.Detail)
	}
	res := o.Result.(Result)
	mu.Lock()
	defer mu.Unlock()
	if res.Resolution != "1s" || len(fine) < 2 {
		t.Fatalf("resolution %s over parts %v: the test wants a 1s pass in two parts or more", res.Resolution, fine)
	}
	if len(res.Series) != 1 || res.Series[0].Stats == nil {
		t.Fatalf("series %+v", res.Series)
	}
	s := res.Series[0]
	// each part after the first begins with a 5 that the part before it
	// already gave as a 1: the first answer for a time is the one kept
	const want = 4*3600 + 1
	if s.Points != want || s.Max != 1 || s.Avg != 1 {
		t.Errorf("parts %v: %d points, max %g, avg %g; want %d points of 1 (each edge once, the first answer kept)", fine, s.Points, s.Max, s.Avg, want)
	}
	reliability.Record(t, reliability.SectionEvidence, "query_metrics: 4h at 1s in parts, each part's edge point repeated by the server", map[string]any{
		"parts": len(fine), "points": s.Points, "true_points": want,
	})
}

// mergeChunks keeps the first answer for a time and every point once, in
// time order, per label set; series met only in a later part are kept.
func TestMergeChunks(t *testing.T) {
	a := map[string]string{"instance": "a"}
	b := map[string]string{"instance": "b"}
	got := mergeChunks([][]rawSeries{
		{{labels: a, points: []point{{1, 1}, {2, 2}, {3, 3}}}},
		{{labels: a, points: []point{{3, 30}, {4, 4}}}, {labels: b, points: []point{{3, 7}, {4, 8}}}},
		{{labels: b, points: []point{{4, 80}, {5, 9}}}, {labels: a, points: []point{{5, 5}}}},
	})
	want := fmt.Sprint([]rawSeries{
		{labels: a, points: []point{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}},
		{labels: b, points: []point{{3, 7}, {4, 8}, {5, 9}}},
	})
	if fmt.Sprint(got) != want {
		t.Errorf("merged %v\nwant   %v", got, want)
	}
}

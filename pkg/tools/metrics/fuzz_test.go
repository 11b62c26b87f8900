package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/jsonstream"
	"github.com/superbiz/superbiz/pkg/egress"
)

// summarise decodes the data of a range query answer, unbounded, and
// summarises it, as queryRange and Execute do.
func summarise(data []byte) ([]Series, error) {
	d := matrixDecoder{Decoder: jsonstream.New(bytes.NewReader(data)), clean: func(s string) string { return s }}
	rs, err := d.matrix()
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, err
	}
	return summariseSeries(rs), nil
}

// summarise on real-shaped answers: the spike's value and minute, the
// largest change, non-finite samples counted apart, series ordered by labels.
func TestSummarise(t *testing.T) {
	data, err := os.ReadFile("testdata/matrix_spike.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := summarise(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d series, want 2", len(got))
	}
	lat, heap := got[0], got[1] // ordered by sorted labels: "__name__" sorts before "area"
	if lat.Labels["__name__"] != "checkout_latency_p99_seconds" {
		t.Fatalf("series out of label order: %v, then %v", lat.Labels, heap.Labels)
	}
	if lat.Points != 5 || lat.Max != 4.8 || lat.MaxAt != "2026-01-15T09:02:00Z" || lat.ChangeAt != "2026-01-15T09:02:00Z" ||
		*lat.Change != 4.6 || lat.Min != 0.2 || lat.Last != 0.2 || math.Abs(lat.Avg-1.56) > 1e-9 {
		t.Errorf("latency summary %+v %+v", lat, *lat.Stats)
	}
	if heap.Points != 1 || heap.NonFinite != 2 || heap.Max != 1e8 || heap.ChangeAt != "" || heap.Change != nil {
		t.Errorf("heap summary %+v %+v", heap, *heap.Stats)
	}
	for _, bad := range []string{
		`{"resultType":"vector","result":[]}`,
		`{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}`,
		`{"resultType":"matrix","result":[{"metric":{},"values":[[1,2]]}]}`,
		`{"resultType":"matrix","result":[{"metric":{},"values":[[2,"1"],[1,"1"]]}]}`,
		`{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[1,"2"]]}]}`,
		`{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1","2"]]}]}`,
		`not json`,
	} {
		if _, err := summarise([]byte(bad)); err == nil {
			t.Errorf("summarise(%s) accepted a malformed answer", bad)
		}
	}
}

// FuzzSummarise feeds arbitrary answers to the summariser: it never panics,
// and what it accepts is consistent and encodes as JSON (no NaN reaches it).
func FuzzSummarise(f *testing.F) {
	if data, err := os.ReadFile("testdata/matrix_spike.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"resultType":"matrix","result":[]}`))
	f.Add([]byte(`{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1,"1e308"],[2,"1e308"],[3,"-1e308"]]}]}`))
	f.Add([]byte(`{"resultType":"matrix","result":[{"values":[[1.001,"-Inf"]]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		series, err := summarise(data)
		if err != nil {
			return
		}
		if _, err := json.Marshal(series); err != nil {
			t.Fatalf("accepted answer does not encode: %v", err)
		}
		for _, s := range series {
			if s.Stats == nil {
				if s.Points != 0 {
					t.Fatalf("%d points without a summary", s.Points)
				}
				continue
			}
			if s.Min > s.Max || s.Avg < s.Min-1e-9*math.Abs(s.Min) || s.Avg > s.Max+1e-9*math.Abs(s.Max) || s.Last < s.Min || s.Last > s.Max {
				t.Fatalf("inconsistent summary %+v", *s.Stats)
			}
			if _, err := time.Parse(time.RFC3339Nano, s.MaxAt); err != nil {
				t.Fatalf("max_at %q: %v", s.MaxAt, err)
			}
			if (s.Change == nil) != (s.ChangeAt == "") || (s.Points > 1) != (s.Change != nil) {
				t.Fatalf("change %v at %q with %d points", s.Change, s.ChangeAt, s.Points)
			}
		}
	})
}

// Labels reach the model bounded and cleaned: secret-named values masked,
// control characters stripped, values cut, at most maxLabels kept.
func TestCleanLabels(t *testing.T) {
	in := map[string]string{"instance": "app-1\x1b[31m:8080", "password": "hunter2-secret", "path": strings.Repeat("p", 500)}
	for i := range maxLabels + 5 {
		in["z"+strconv.Itoa(100+i)] = "v" // sorted after the labels checked
	}
	got := cleanLabels(in)
	if got["password"] != egress.Marker || got["instance"] != "app-1:8080" || len(got["path"]) > maxLabelBytes || len(got) != maxLabels {
		t.Errorf("cleanLabels: password %q, instance %q, path %d bytes, %d labels", got["password"], got["instance"], len(got["path"]), len(got))
	}
}

// A result over the observation's size drops series from the end and says
// so; one series always stays.
func TestFit(t *testing.T) {
	res := Result{Source: "prom", Query: "up", TotalSeries: 50}
	for i := range 50 {
		res.Series = append(res.Series, Series{Labels: map[string]string{"instance": "host-" + strconv.Itoa(i)}, Points: 1, Stats: &Stats{MaxAt: "2026-01-15T09:00:00Z"}})
	}
	if err := fit(&res, 2048); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if len(b) > 2048 || !res.Truncated || len(res.Series) == 0 || len(res.Series) == 50 {
		t.Errorf("fit to 2048: %d bytes, %d series, truncated %v", len(b), len(res.Series), res.Truncated)
	}
	// the series kept are the first ones, in order: those dropped are the last
	for i, s := range res.Series {
		if s.Labels["instance"] != "host-"+strconv.Itoa(i) {
			t.Fatalf("series %d kept is %v: fit must drop from the end", i, s.Labels)
		}
	}
	// one more series would not fit: fit keeps as many as the bound holds
	more := res
	more.Series = append([]Series(nil), res.Series...)
	more.Series = append(more.Series, Series{Labels: map[string]string{"instance": "host-" + strconv.Itoa(len(res.Series))}, Points: 1, Stats: &Stats{MaxAt: "2026-01-15T09:00:00Z"}})
	if b, _ := json.Marshal(more); len(b) <= 2048 {
		t.Errorf("fit dropped %d series but %d fit in 2048 bytes", 50-len(res.Series), len(more.Series))
	}
	// a result within the bound is left whole and not truncated
	small := Result{Source: "prom", Query: "up", TotalSeries: 1, Series: res.Series[:1]}
	if err := fit(&small, 2048); err != nil || small.Truncated || len(small.Series) != 1 {
		t.Errorf("fit of a small result: %v, truncated %v, %d series", err, small.Truncated, len(small.Series))
	}
}

// The largest change is the largest in size, whatever its sign: a drop of
// 10 beats a rise of 1, and change_at is the time of the sample after it.
func TestSummariseChangeIsADrop(t *testing.T) {
	got, err := summarise([]byte(`{"resultType":"matrix","result":[{"metric":{},"values":[[1768467600,"10"],[1768467660,"11"],[1768467720,"1"],[1768467780,"1.5"]]}]}`))
	if err != nil || len(got) != 1 || got[0].Stats == nil {
		t.Fatalf("summarise: %v %+v", err, got)
	}
	if s := got[0]; s.Change == nil || *s.Change != -10 || s.ChangeAt != "2026-01-15T09:02:00Z" {
		t.Errorf("change %v at %q, want -10 at 09:02", s.Change, s.ChangeAt)
	}
}

// Of two samples holding the maximum, max_at is the first's time.
func TestSummariseFirstOfTiedMaxima(t *testing.T) {
	got, err := summarise([]byte(`{"resultType":"matrix","result":[{"metric":{},"values":[[1768467600,"1"],[1768467660,"5"],[1768467720,"2"],[1768467780,"5"]]}]}`))
	if err != nil || len(got) != 1 || got[0].Stats == nil {
		t.Fatalf("summarise: %v %+v", err, got)
	}
	if s := got[0]; s.Max != 5 || s.MaxAt != "2026-01-15T09:01:00Z" {
		t.Errorf("max %g at %q, want 5 at the first, 09:01", s.Max, s.MaxAt)
	}
}

// A series is refused at the point past the decoder's bound, and accepted at it.
func TestMatrixPointBound(t *testing.T) {
	answer := `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"],[2,"1"],[3,"1"]]}]}}`
	for _, tt := range []struct {
		max int
		ok  bool
	}{{3, true}, {2, false}} {
		d := matrixDecoder{Decoder: jsonstream.New(strings.NewReader(answer)), maxPoints: tt.max, clean: func(s string) string { return s }}
		_, _, err := d.answer()
		if (err == nil) != tt.ok {
			t.Errorf("3 points at a bound of %d: %v", tt.max, err)
		}
	}
	d := matrixDecoder{Decoder: jsonstream.New(strings.NewReader(answer + `{"status":"success"}`)), clean: func(s string) string { return s }}
	if _, _, err := d.answer(); err == nil || !strings.Contains(err.Error(), "data after the answer") {
		t.Errorf("an answer followed by another: %v, want it refused", err)
	}
}

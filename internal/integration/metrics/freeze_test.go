package metrics

import "testing"

// OpenMetrics groups each family, orders samples by time and ends in # EOF.
func TestOpenMetrics(t *testing.T) {
	series := map[string]*omSeries{}
	for _, s := range []*omSeries{
		{name: "up", labels: map[string]string{"job": "b"}, points: map[int64]string{2000: "1", 1000: "0"}},
		{name: "http_latency", labels: map[string]string{"route": `/a"b`, "svc": "x"}, points: map[int64]string{1500: "NaN"}},
		{name: "up", labels: map[string]string{"job": "a"}, points: map[int64]string{1000: "+Inf"}},
	} {
		series[s.name+"\xff"+labelText(s.labels)] = s
	}
	want := `# TYPE http_latency unknown
http_latency{route="/a\"b",svc="x"} NaN 1.5
# TYPE up unknown
up{job="a"} +Inf 1
up{job="b"} 0 1
up{job="b"} 1 2
# EOF
`
	if got := string(openMetrics(series)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

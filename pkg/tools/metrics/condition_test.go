package metrics

import (
	"strings"
	"testing"
)

// TestWatched: the series an alerting rule compares, from the shapes of
// real rules (the Prometheus docs, kube-prometheus, node-exporter mixins).
func TestWatched(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`demo_latency_seconds > 1`, `demo_latency_seconds`},
		{`job:request_latency_seconds:mean5m{job="myjob"} > 0.5`, `job:request_latency_seconds:mean5m{job="myjob"}`},
		{`up == 0`, `up`},
		{`0.5 < sum(rate(errors_total[5m])) by (service)`, `sum(rate(errors_total[5m])) by (service)`},
		{`histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service="checkout"}[5m]))) >= 2`,
			`histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service="checkout"}[5m])))`},
		{`(node_filesystem_avail_bytes / node_filesystem_size_bytes * 100 < 10 and node_filesystem_readonly == 0)`,
			`node_filesystem_avail_bytes / node_filesystem_size_bytes * 100`},
		{`up{job="a>b"} != 1 unless on(instance) maintenance == 1`, `up{job="a>b"}`},
		{`rate(x[5m]) > bool on(job) group_left(team) 3`, `rate(x[5m])`},
		{`3 < bool on(job) rate(x[5m])`, `rate(x[5m])`},
		{"# pages when the queue grows\nqueue_depth > 100", "queue_depth"},
		{`absent(up{job="api"})`, `absent(up{job="api"})`},
		{`(a) + (b) > 2`, `(a) + (b)`},
		{`  increase(kube_pod_container_status_restarts_total[10m]) > 3  `, `increase(kube_pod_container_status_restarts_total[10m])`},
	} {
		got, ok := Watched(c.expr)
		if !ok || got != c.want {
			t.Errorf("Watched(%q) = %q, %v; want %q", c.expr, got, ok, c.want)
		}
	}
	for _, bad := range []string{``, `up{job="a"`, `rate(x[5m]`, `> 2`, `1 > 2`, `x > "unclosed`, `sum(x))`} {
		if got, ok := Watched(bad); ok {
			t.Errorf("Watched(%q) = %q, true; want not readable", bad, got)
		}
	}
}

// FuzzWatched: any expression (an alert's generatorURL is untrusted) gives
// no panic, and what it watches is a part of it.
func FuzzWatched(f *testing.F) {
	for _, s := range []string{`a > 1`, `(x and y) > 2`, `0 < b`, `"`, `{`, `# c`, `((((a))))`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		got, ok := Watched(expr)
		if ok && (got == "" || !strings.Contains(expr, got)) {
			t.Fatalf("Watched(%q) = %q: not a part of it", expr, got)
		}
	})
}

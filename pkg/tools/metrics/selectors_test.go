package metrics

import (
	"slices"
	"testing"
)

// exprSelectors finds each vector selector of an expression once, and
// never a function, keyword, label list, label value, duration or number;
// expressions it cannot read simply are not ok.
func TestExprSelectors(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want []string
	}{
		{`sum(rate(http_requests_total{job="api", code=~"5.."}[5m])) > 100`, []string{`http_requests_total{job="api", code=~"5.."}`}},
		{`sum by (job) (rate(errors_total[5m])) / ignoring(code) group_left sum without (instance) (requests_total)`, []string{"errors_total", "requests_total"}},
		{`up == 0 unless on(instance) node_boot_time_seconds offset 1h`, []string{"up", "node_boot_time_seconds"}},
		{`{__name__=~"job:.*", env="prod"} > bool 1e3`, []string{`{__name__=~"job:.*", env="prod"}`}},
		{`label_replace(up{job="a}b"}, "dst", "$1", "src", "(.*)")`, []string{`up{job="a}b"}`}},
		{`histogram_quantile(0.99, sum by (le) (rate(lat_bucket[5m]))) > 0.5 and lat_bucket @ start()`, []string{"lat_bucket"}},
		{`max_over_time(rate(x[1m])[1h:1m]) > 2 or x`, []string{"x"}},
		{`topk(5, count_values("version", build_info))`, []string{"build_info"}},
		{`vector(1)`, nil},
		{`sum(rate(x{job="a"[5m]))`, nil},
		{`sum(x{job="a`, nil},
		{`a + b + c + d + e + f + g + h + i`, nil},
	} {
		got, ok := exprSelectors(tt.expr)
		if ok != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("exprSelectors(%s) = %q, %v; want %q", tt.expr, got, ok, tt.want)
		}
	}
}

func FuzzExprSelectors(f *testing.F) {
	f.Add(`sum by (job) (rate(http_requests_total{job="api"}[5m])) > 1`)
	f.Add(`{a="\"}"} or b offset 5m`)
	f.Fuzz(func(t *testing.T, expr string) {
		sels, ok := exprSelectors(expr)
		if ok && (len(sels) == 0 || len(sels) > maxExprSelectors) {
			t.Fatalf("ok with %d selectors", len(sels))
		}
	})
}

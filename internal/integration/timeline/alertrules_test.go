package timeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/testenv"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// TestAlertExpressionFromRules: an alert whose generatorURL holds no
// expression (vmalert, Thanos Ruler, a relay) has its rule's expression read
// from the rules of a real Prometheus (GET /api/v1/rules). Two rules are
// named HighLatency; the one whose active alert's labels are the alert's
// (Alertmanager added an external label) is chosen, not the other one.
// A first [[metrics]] source that does not answer is passed over; an
// alert no rule names is not watched, and the note says why.
func TestAlertExpressionFromRules(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	prom := promtest.LivePrometheus(t, promtest.LiveOptions{History: latencyHistory(now, now.Add(-10*time.Minute)),
		Rules: "groups:\n  - name: app\n    rules:\n" +
			"      - alert: HighLatency\n        expr: demo_latency_seconds{job=\"app\"} > 1\n        labels: {severity: page}\n" +
			"      - alert: HighLatency\n        expr: histogram_quantile(0.99, sum by (le) (rate(http_seconds_bucket[5m]))) > 5\n        labels: {severity: info}\n"})
	waitFor(t, "HighLatency to fire", func() bool { return query(t, prom.URL, `ALERTS{alertname="HighLatency",alertstate="firing"}`) == 1 })
	src := metricstool.Source{Name: "prom", URL: prom.URL, Timeout: 10 * time.Second, MaxSeries: 50, MaxPoints: 400, MaxWindow: 48 * time.Hour}
	down := metricstool.Source{Name: "down", URL: testenv.ClosedURL(t), Timeout: 2 * time.Second, MaxSeries: 50, MaxPoints: 400, MaxWindow: 48 * time.Hour}
	cfg := metricsConfig(down, src)
	al := alerts.Alert{Labels: map[string]string{"alertname": "HighLatency", "job": "app", "service": "checkout", "severity": "page", "cluster": "eu-1"},
		StartsAt: now.Add(-9 * time.Minute)}
	if al.Expr() != "" {
		t.Fatal("the alert must carry no expression for this test")
	}
	m, note, ok := AlertMetric(context.Background(), cfg, al)
	if !ok || m.Query != `demo_latency_seconds{job="app"}` || m.Source != "prom" || m.Name != "HighLatency expression" || m.Service != "checkout" {
		t.Fatalf("AlertMetric %+v, %v, note %q", m, ok, note)
	}

	// the other rule of the name, chosen by its own labels (it is not active)
	info := alerts.Alert{Labels: map[string]string{"alertname": "HighLatency", "severity": "info"}}
	if m, note, ok := AlertMetric(context.Background(), cfg, info); !ok || m.Query != `histogram_quantile(0.99, sum by (le) (rate(http_seconds_bucket[5m])))` {
		t.Fatalf("the severity=info rule: %+v, %v, note %q", m, ok, note)
	}
	// a rule named by no source: not watched, and said
	missing := alerts.Alert{Labels: map[string]string{"alertname": "NoSuchRule"}}
	if m, note, ok := AlertMetric(context.Background(), cfg, missing); ok || !strings.Contains(note, "no [[metrics]] source's rules (/api/v1/rules) name it") || !strings.Contains(note, "down:") {
		t.Fatalf("an alert no rule names: %+v, %v, note %q", m, ok, note)
	}
}

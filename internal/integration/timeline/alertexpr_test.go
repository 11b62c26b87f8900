package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/tools"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// latencyHistory is two hours of a checkout p99 up to now, a sample every
// 15 s: about 0.2 s with noise, then about 3 s from shift on.
func latencyHistory(now, shift time.Time) string {
	var b strings.Builder
	b.WriteString("# TYPE demo_latency_seconds gauge\n")
	for at, i := now.Add(-2*time.Hour), 0; at.Before(now); at, i = at.Add(15*time.Second), i+1 {
		v := 0.2 + 0.02*math.Sin(float64(i)*1.7)
		if !at.Before(shift) {
			v = 3 + 0.1*math.Sin(float64(i)*1.3)
		}
		fmt.Fprintf(&b, "demo_latency_seconds{job=\"app\",service=\"checkout\"} %g %d\n", v, at.Unix())
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// TestAlertExpression: the timeline of an alert watches the series its
// rule compares. A real Prometheus evaluates `demo_latency_seconds > 1` on
// a backfilled history whose latency rose 10 minutes ago and sends the
// alert to a real Alertmanager; the alert's generatorURL gives the rule's
// expression, its left operand is read like a [[timeline.metrics]] entry,
// and the rise is a metric_shift within one step of its true time.
func TestAlertExpression(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	shift := now.Add(-10 * time.Minute)
	am := promtest.StartAlertmanager(t)
	prom := promtest.LivePrometheus(t, promtest.LiveOptions{History: latencyHistory(now, shift), Alertmanager: hostOf(t, am.URL),
		Rules: promtest.HighLatencyRule})
	waitFor(t, "the history to be served", func() bool { return query(t, prom.URL, `demo_latency_seconds`) == 1 })
	waitFor(t, "HighLatency to fire", func() bool { return query(t, prom.URL, `ALERTS{alertname="HighLatency",alertstate="firing"}`) == 1 })
	client, err := alerts.New(alerts.Options{URL: am.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// an alert that fires before Prometheus has found its Alertmanager is
	// sent again after --rules.alert.resend-delay (1m)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		if as, _, err := client.Firing(context.Background()); err == nil && len(as) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Alertmanager did not list HighLatency within two minutes")
		}
	}
	al, _, err := client.Find(context.Background(), "HighLatency")
	if err != nil {
		t.Fatal(err)
	}
	if got := al.Expr(); got != `demo_latency_seconds{job="app"} > 1` {
		t.Fatalf("the alert's expression %q (generatorURL %q)", got, al.GeneratorURL)
	}
	src := metricstool.Source{Name: "prom", URL: prom.URL, Timeout: 10 * time.Second, MaxSeries: 50, MaxPoints: 400, MaxWindow: 48 * time.Hour}
	m, _, ok := AlertMetric(context.Background(), metricsConfig(src), al)
	if !ok || m.Query != `demo_latency_seconds{job="app"}` || m.Source != "prom" || m.Name != "HighLatency expression" || m.Service != "checkout" {
		t.Fatalf("AlertMetric %+v, %v", m, ok)
	}
	mt, err := metricstool.New([]metricstool.Source{src})
	if err != nil {
		t.Fatal(err)
	}
	call := func(ctx context.Context, tool string, input any) (timeline.Observed, error) {
		raw, err := json.Marshal(input)
		if err != nil {
			return timeline.Observed{}, err
		}
		c, err := mt.Canonical(raw)
		if err != nil {
			t.Fatalf("%s %s: %v", tool, raw, err)
		}
		out := mt.Execute(ctx, tools.Call{ToolCallID: "call_1", Tool: tool, Input: c.Input, Now: now, MaxBytes: 1 << 20})
		o := timeline.Observed{ToolCallID: "call_1", EvidenceStatus: out.Status, ErrorCode: out.ErrorCode}
		if out.Result != nil {
			o.Result, err = json.Marshal(out.Result)
		}
		return o, err
	}
	w := timeline.Window{Start: al.StartsAt.Add(-time.Hour), End: now}
	tl, err := timeline.Build(context.Background(), timeline.Plan{Window: w, AlertExpr: &m}, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	dump, _ := json.MarshalIndent(tl, "", " ")
	if len(tl.Events) != 1 {
		t.Fatalf("want one metric_shift, got:\n%s", dump)
	}
	e := tl.Events[0]
	step := timeline.MetricStep(w)
	if e.Kind != timeline.MetricShift || e.At.Sub(shift).Abs() > step || !strings.Contains(e.Summary, "HighLatency expression rose from 0.") || e.Service != "checkout" {
		t.Errorf("event %s\nwant the rise at %s (±%s)", dump, shift, step)
	}
	t.Logf("the rise placed %s from its true time (step %s)", e.At.Sub(shift), step)
}

// metricsConfig is a configuration whose [[metrics]] entries are srcs, as
// a Go program builds it.
func metricsConfig(srcs ...metricstool.Source) *config.Config {
	cfg := config.Defaults(metricsource.Source{}.Config())
	metricsource.SetEntries(&cfg, srcs...)
	return &cfg
}

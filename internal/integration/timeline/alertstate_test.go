package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/tools"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// gauges serves two gauges the test sets, as an application's /metrics.
type gauges struct{ errors, saturation atomic.Int64 }

func (g *gauges) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintf(w, "# TYPE demo_errors_ratio gauge\ndemo_errors_ratio %d\n# TYPE demo_saturation gauge\ndemo_saturation %d\n", g.errors.Load(), g.saturation.Load())
}

// alertRules fire on the gauges: ErrorsHigh fires and resolves during the
// test, Saturated fires and keeps firing.
const alertRules = `groups:
  - name: app
    rules:
      - alert: ErrorsHigh
        expr: demo_errors_ratio > 0
        labels: {severity: page, service: checkout}
        annotations: {summary: "checkout errors"}
      - alert: Saturated
        expr: demo_saturation > 0
        labels: {severity: warning, service: checkout}
        annotations: {summary: "checkout saturated"}
`

// TestAlertResolved: a real Prometheus evaluates real rules, one of which
// fires and resolves before the timeline is built, which Alertmanager no
// longer lists. The timeline reads Prometheus' ALERTS series through
// query_metrics and places the start and the resolution within one step
// of the true times; the alert still firing starts at Alertmanager's exact
// time, once, and each source read has its coverage line.
func TestAlertResolved(t *testing.T) {
	g := &gauges{}
	app := httptest.NewServer(g)
	defer app.Close()
	am := promtest.StartAlertmanager(t)
	prom := promtest.LivePrometheus(t, promtest.LiveOptions{Rules: alertRules, Targets: []string{hostOf(t, app.URL)}, Alertmanager: hostOf(t, am.URL)})
	waitFor(t, "Prometheus to scrape the gauges", func() bool { return query(t, prom.URL, `demo_errors_ratio`) == 1 })

	began := time.Now()
	g.errors.Store(1)
	waitFor(t, "ErrorsHigh to fire", func() bool { return query(t, prom.URL, `ALERTS{alertname="ErrorsHigh",alertstate="firing"}`) == 1 })
	time.Sleep(5 * time.Second)
	ended := time.Now()
	g.errors.Store(0)
	waitFor(t, "ErrorsHigh to resolve", func() bool { return query(t, prom.URL, `ALERTS{alertname="ErrorsHigh"}`) == 0 })
	g.saturation.Store(1)
	am.WaitFiring(t, 1) // Saturated; ErrorsHigh, resolved, is not listed
	// the grid's last step must lie after the resolution: 15s steps for a 5m window
	time.Sleep(16 * time.Second)

	mt, err := metricstool.New([]metricstool.Source{{Name: "prom", URL: prom.URL, Timeout: 10 * time.Second, MaxSeries: 50, MaxPoints: 400, MaxWindow: 48 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	client, err := alerts.New(alerts.Options{URL: am.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tool, err := timeline.NewTool([]tools.Adapter{mt, alertsource.TimelineReader{Client: client}}, nil, nil, []string{"prom"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tool.Canonical(json.RawMessage(`{"since":"5m"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := tool.Execute(context.Background(), tools.Call{ToolCallID: "call_1", Tool: timeline.ToolName, Input: c.Input, Now: time.Now(), MaxBytes: 1 << 20})
	if out.Status != tools.EvidenceFound {
		t.Fatalf("%s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
	tl := out.Result.(timeline.Timeline)
	dump, _ := json.MarshalIndent(tl, "", " ")
	step := timeline.MetricStep(tl.Window)
	var kinds []string
	for _, e := range tl.Events {
		kinds = append(kinds, fmt.Sprintf("%s %s %s", e.Kind, e.Source, strings.Fields(e.Summary)[1]))
	}
	// the resolution is placed at the end of the step it was last seen
	// firing in, which may follow Saturated's start
	want := []string{"alert_resolved prom ErrorsHigh", "alert_started alertmanager Saturated", "alert_started prom ErrorsHigh"}
	if slices.Sort(kinds); !slices.Equal(kinds, want) {
		t.Fatalf("events:\n%s\nwant:\n%s\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"), dump)
	}
	byKind := map[string]timeline.Event{}
	for _, e := range tl.Events {
		byKind[string(e.Kind)+" "+e.Source] = e
	}
	started, resolved, saturated := byKind["alert_started prom"], byKind["alert_resolved prom"], byKind["alert_started alertmanager"]
	for _, c := range []struct {
		e    timeline.Event
		true time.Time
	}{{started, began}, {resolved, ended}} {
		if off := c.e.At.Sub(c.true); off.Abs() > step {
			t.Errorf("%s at %s, %s from the true %s: more than a step (%s)", c.e.Kind, c.e.At, off, c.true.UTC(), step)
		}
		t.Logf("%s placed %s from the true time (step %s)", c.e.Kind, c.e.At.Sub(c.true).Round(time.Second), step)
	}
	if s := resolved.Summary; !strings.Contains(s, "(page)") || resolved.Service != "checkout" {
		t.Errorf("resolved %q of %q: want its severity and service", s, resolved.Service)
	}
	listed, _, err := client.Firing(context.Background())
	if err != nil || len(listed) != 1 {
		t.Fatalf("Alertmanager lists %d alerts (%v)", len(listed), err)
	}
	if !saturated.At.Equal(listed[0].StartsAt) || !strings.Contains(saturated.Summary, "checkout saturated") {
		t.Errorf("Saturated %s %q: want Alertmanager's start %s and its summary", saturated.At, saturated.Summary, listed[0].StartsAt)
	}
	var covs []string
	for _, c := range tl.Coverage {
		covs = append(covs, c.Detector+" "+c.Source+" "+string(c.Status))
	}
	if got := strings.Join(covs, ", "); got != "alerts alertmanager read, alerts prom read" {
		t.Errorf("coverage %s", got)
	}
	if n := tl.Coverage[0].Note; !strings.Contains(n, "ALERTS series of prom") {
		t.Errorf("Alertmanager's coverage note %q does not say where resolved alerts come from", n)
	}
}

func hostOf(t *testing.T, u string) string {
	t.Helper()
	h := strings.TrimPrefix(u, "http://")
	if _, _, err := net.SplitHostPort(h); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return h
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// query is the number of series an instant query of expr returns now.
func query(t *testing.T, base, expr string) int {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if expr == "demo_errors_ratio" && len(r.Data.Result) == 1 {
		return 1 // the series is there, whatever its value
	}
	return len(r.Data.Result)
}

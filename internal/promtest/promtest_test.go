package promtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// instantAt asks srv for the value of selector at one instant.
func instantAt(t *testing.T, srv *Server, selector string, at time.Time) (int, float64) {
	t.Helper()
	q := url.Values{"query": {selector}, "time": {strconv.FormatInt(at.Unix(), 10)}}
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/query?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Username != "" {
		req.SetBasicAuth(srv.Username, srv.Password)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, 0
	}
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Data.Result) != 1 {
		t.Fatalf("query %s: want one series, got %s (%v)", selector, raw, err)
	}
	v, err := strconv.ParseFloat(fmt.Sprint(body.Data.Result[0].Value[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, v
}

// Both servers serve the same history: the spike at SpikeAt, the heap's climb.
func TestServersServeTheHistory(t *testing.T) {
	servers := map[string]func(t *testing.T) *Server{
		"prometheus":       func(t *testing.T) *Server { return Prometheus(t, PromOptions{}) },
		"victoria-metrics": func(t *testing.T) *Server { return VictoriaMetrics(t) },
	}
	for name, startServer := range servers {
		t.Run(name, func(t *testing.T) {
			srv := startServer(t)
			if _, v := instantAt(t, srv, LatencySelector, SpikeAt); v != SpikeValue {
				t.Errorf("latency at the spike = %g, want %g", v, SpikeValue)
			}
			if _, v := instantAt(t, srv, LatencySelector, SpikeAt.Add(-time.Minute)); v != BaseLatency {
				t.Errorf("latency before the spike = %g, want %g", v, BaseLatency)
			}
			if _, v := instantAt(t, srv, HeapSelector, End); v != HeapAt(Minutes()-1) {
				t.Errorf("heap at the end = %g, want %g", v, HeapAt(Minutes()-1))
			}
		})
	}
}

// With BasicAuth, Prometheus refuses a request without the credentials.
func TestPrometheusBasicAuth(t *testing.T) {
	srv := Prometheus(t, PromOptions{BasicAuth: true})
	anon := *srv
	anon.Username, anon.Password = "", ""
	if code, _ := instantAt(t, &anon, LatencySelector, SpikeAt); code != http.StatusUnauthorized {
		t.Errorf("without credentials: HTTP %d, want 401", code)
	}
	if code, v := instantAt(t, srv, LatencySelector, SpikeAt); code != http.StatusOK || v != SpikeValue {
		t.Errorf("with credentials: HTTP %d value %g, want 200 %g", code, v, SpikeValue)
	}
}

// Posted alerts are listed by Alertmanager's API v2.
func TestAlertmanagerPost(t *testing.T) {
	am := StartAlertmanager(t)
	am.Post(t, Alert{
		Labels:      map[string]string{"alertname": "CheckoutLatencyHigh", "severity": "page", "service": "checkout"},
		Annotations: map[string]string{"summary": "p99 above 2s"},
		StartsAt:    time.Now().Add(-time.Minute),
	})
	resp, err := http.Get(am.URL + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var alerts []Alert
	if err := json.NewDecoder(resp.Body).Decode(&alerts); err != nil {
		t.Fatal(err)
	}
	if len(alerts) != 1 || alerts[0].Labels["alertname"] != "CheckoutLatencyHigh" || alerts[0].Annotations["summary"] != "p99 above 2s" {
		t.Fatalf("alerts = %+v, want the posted CheckoutLatencyHigh", alerts)
	}
}

// A missing server binary skips the test on a developer machine and fails
// it in CI, naming .ci/metrics.sh.
func TestMissingBinary(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv(testenv.EnvCI, ci)
		r := &testenv.Recorder{TB: t}
		Binary(r, "superbiz-no-such-server")
		if ci == "true" && !strings.Contains(r.FatalMsg, ".ci/metrics.sh") {
			t.Errorf("CI=true: fatal %q, want a failure naming .ci/metrics.sh", r.FatalMsg)
		}
		if ci == "" && (r.FatalMsg != "" || !strings.Contains(r.SkipMsg, "apt-get install")) {
			t.Errorf("CI unset: fatal %q, skip %q; want a skip naming the packages", r.FatalMsg, r.SkipMsg)
		}
	}
}

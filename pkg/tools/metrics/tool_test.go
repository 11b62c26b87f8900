package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/promtest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// newTool builds a tool over one source at url with the defaults of [[metrics]].
func newTool(t *testing.T, srcs ...Source) *Tool {
	t.Helper()
	for i := range srcs {
		if srcs[i].Timeout == 0 {
			srcs[i].Timeout = 10 * time.Second
		}
		if srcs[i].MaxSeries == 0 {
			srcs[i].MaxSeries = 10
		}
		if srcs[i].MaxPoints == 0 {
			srcs[i].MaxPoints = 240
		}
		if srcs[i].MaxWindow == 0 {
			srcs[i].MaxWindow = 24 * time.Hour
		}
	}
	tool, err := New(srcs)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// realServers starts each real server kind by name.
func realServers() map[string]func(t *testing.T) *promtest.Server {
	return map[string]func(t *testing.T) *promtest.Server{
		"prometheus":       func(t *testing.T) *promtest.Server { return promtest.Prometheus(t, promtest.PromOptions{}) },
		"victoria-metrics": func(t *testing.T) *promtest.Server { return promtest.VictoriaMetrics(t) },
	}
}

// call validates input like the harness and executes it at now.
func call(t *testing.T, tool *Tool, input string, now time.Time) tools.Outcome {
	t.Helper()
	c, err := tool.Canonical(json.RawMessage(input))
	if err != nil {
		return tools.Failed(tools.CodeInvalidInput, err)
	}
	return tool.Execute(context.Background(), tools.Call{Tool: ToolName, Input: c.Input, Now: now, MaxBytes: 8192})
}

// oneSeries calls the tool and fails the test unless it found one summarised series.
func oneSeries(t *testing.T, tool *Tool, input string) (Result, Series) {
	t.Helper()
	o := call(t, tool, input, time.Time{})
	if o.Status != tools.EvidenceFound {
		t.Fatalf("%s: %s %s %v", input, o.Status, o.ErrorCode, o.Detail)
	}
	res := o.Result.(Result)
	if len(res.Series) != 1 || res.Series[0].Stats == nil {
		t.Fatalf("%s: want one summarised series, got %+v", input, res)
	}
	return res, res.Series[0]
}

// incidentWindow is the incident's window as start/end members.
func incidentWindow() string {
	return `"start":"` + promtest.Start.Format(time.RFC3339) + `","end":"` + promtest.End.Format(time.RFC3339) + `"`
}

// Against real servers: the spike's value and minute, the heap's climb, an
// empty selector, a syntax error, each with its status and code.
func TestQueryRealServers(t *testing.T) {
	servers := realServers()
	results := map[string]map[string]string{}
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			srv := start(t)
			tool := newTool(t, Source{Name: "m", URL: srv.URL})
			got := map[string]string{}

			res, s := oneSeries(t, tool, `{"query":`+jsonString(promtest.LatencySelector)+`,`+incidentWindow()+`,"step":"1m"}`)
			spike := promtest.SpikeAt.Format(time.RFC3339)
			// one point a second: the 1m step is the grid, the summary is at the finest resolution
			points := int(promtest.End.Sub(promtest.Start)/time.Second) + 1
			if res.Resolution != "1s" || res.SampleInterval != "1m" || res.Coarse != "" {
				t.Errorf("resolution %q, sample interval %q, coarse %q: want 1s at a 1m interval", res.Resolution, res.SampleInterval, res.Coarse)
			}
			if s.Max != promtest.SpikeValue || s.MaxAt != spike || s.ChangeAt != spike || s.Points != points ||
				s.Min != promtest.BaseLatency || s.Last != promtest.BaseLatency || s.Labels["instance"] != promtest.LatencyInstance {
				t.Errorf("latency summary %+v %+v: want max %g at %s, change at %s, %d points", s, *s.Stats, promtest.SpikeValue, spike, spike, points)
			}
			got["latency"] = string(fixture.JSON(t, res.Series))

			o := call(t, tool, `{"query":`+jsonString(promtest.HeapSelector)+`,`+incidentWindow()+`}`, time.Time{})
			if o.Status != tools.EvidenceFound {
				t.Fatalf("heap: %s %s %v", o.Status, o.ErrorCode, o.Detail)
			}
			res = o.Result.(Result)
			h := res.Series[0]
			if h.Max != promtest.HeapAt(promtest.Minutes()-1) || h.MaxAt != promtest.End.Format(time.RFC3339) || h.Min != promtest.HeapFirst {
				t.Errorf("heap summary %+v: want the climb to %g at the end", *h.Stats, promtest.HeapAt(promtest.Minutes()-1))
			}
			got["heap auto step "+res.Step] = string(fixture.JSON(t, res.Series))

			o = call(t, tool, `{"query":"nonexistent_metric_total{job=\"x\"}",`+incidentWindow()+`}`, time.Time{})
			if o.Status != tools.NoEvidence || o.Result.(Result).TotalSeries != 0 {
				t.Errorf("empty selector: %s %s %v, want NO_EVIDENCE", o.Status, o.ErrorCode, o.Detail)
			}

			o = call(t, tool, `{"query":"rate(checkout_latency_p99_seconds[5m]",`+incidentWindow()+`}`, time.Time{})
			if o.Status != tools.StatusError || o.ErrorCode != tools.CodeInvalidInput || o.Detail == nil {
				t.Errorf("syntax error: %s %s %v, want ERROR INVALID_INPUT with the server's message", o.Status, o.ErrorCode, o.Detail)
			}
			got["syntax error code"] = o.ErrorCode

			// a range query over both series, two at most listed as one
			one := newTool(t, Source{Name: "m", URL: srv.URL, MaxSeries: 1})
			o = call(t, one, `{"query":"{__name__=~\"checkout_latency_p99_seconds|jvm_memory_used_bytes\"}",`+incidentWindow()+`}`, time.Time{})
			if r := o.Result.(Result); o.Status != tools.EvidenceFound || !r.Truncated || r.TotalSeries != 2 || len(r.Series) != 1 {
				t.Errorf("max_series 1 over two series: %+v", o.Result)
			}
			results[name] = got
		})
	}
	p, v := results["prometheus"], results["victoria-metrics"]
	if p != nil && v != nil {
		for k, pv := range p {
			if v[k] != pv {
				t.Errorf("%s: Prometheus and VictoriaMetrics disagree:\nprometheus:       %s\nvictoria-metrics: %s", k, pv, v[k])
			}
		}
	}
}

// Prometheus behind basic auth: the right password passes, a wrong one and
// none are UNAVAILABLE with a message naming where the password comes from.
func TestQueryBasicAuth(t *testing.T) {
	srv := promtest.Prometheus(t, promtest.PromOptions{BasicAuth: true})
	q := `{"query":` + jsonString(promtest.LatencySelector) + `,` + incidentWindow() + `}`
	good := newTool(t, Source{Name: "m", URL: srv.URL, HTTPAuth: tools.HTTPAuth{Username: srv.Username, PasswordEnv: "PROM_PASSWORD"}, Secret: egress.NewSecret(srv.Password)})
	if o := call(t, good, q, time.Time{}); o.Status != tools.EvidenceFound {
		t.Fatalf("right password: %s %s %v", o.Status, o.ErrorCode, o.Detail)
	}
	for name, src := range map[string]Source{
		"wrong password": {Name: "m", URL: srv.URL, HTTPAuth: tools.HTTPAuth{Username: srv.Username, PasswordEnv: "PROM_PASSWORD"}, Secret: egress.NewSecret("wrong")},
		"no credentials": {Name: "m", URL: srv.URL},
	} {
		o := call(t, newTool(t, src), q, time.Time{})
		if o.Status != tools.StatusError || o.ErrorCode != tools.CodeUnavailable || o.Detail == nil ||
			!strings.Contains(o.Detail.Error(), "HTTP 401") || !strings.Contains(o.Detail.Error(), "refused the credentials") {
			t.Errorf("%s: %s %s %v, want UNAVAILABLE naming HTTP 401 and the credentials", name, o.Status, o.ErrorCode, o.Detail)
		}
		if o.Detail != nil && strings.Contains(o.Detail.Error(), srv.Password) {
			t.Errorf("%s: the detail shows the password: %v", name, o.Detail)
		}
	}
	if err := good.Check(context.Background(), "m"); err != nil {
		t.Errorf("Check with the right password: %v", err)
	}
	var ae *APIError
	if err := newTool(t, Source{Name: "m", URL: srv.URL}).Check(context.Background(), "m"); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Errorf("Check without credentials: %v, want an HTTP 401 APIError", err)
	}
}

// An unreachable server is UNAVAILABLE; one that does not answer in time is TIMEOUT.
func TestQueryUnreachable(t *testing.T) {
	tool := newTool(t, Source{Name: "m", URL: testenv.ClosedURL(t)})
	o := call(t, tool, `{"query":"up","since":"1h"}`, time.Now())
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeUnavailable {
		t.Errorf("unreachable: %s %s %v, want ERROR UNAVAILABLE", o.Status, o.ErrorCode, o.Detail)
	}
}

// A server that accepts the connection but never answers is TIMEOUT once
// the source's timeout passes.
func TestQueryTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	held := make(chan net.Conn, 1)
	go func() {
		if c, err := l.Accept(); err == nil {
			held <- c // held open, never answered
		}
	}()
	t.Cleanup(func() {
		select {
		case c := <-held:
			c.Close()
		default:
		}
	})
	tool := newTool(t, Source{Name: "m", URL: "http://" + l.Addr().String(), Timeout: 200 * time.Millisecond})
	o := call(t, tool, `{"query":"up","since":"1h"}`, time.Now())
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeTimeout || !strings.Contains(fmt.Sprint(o.Detail), "timeout") {
		t.Errorf("silent server: %s %s %v, want ERROR TIMEOUT", o.Status, o.ErrorCode, o.Detail)
	}
}

// A Ctrl-C while the server holds the query is a cancellation (CANCELLED,
// the detail wrapping context.Canceled), never the source's TIMEOUT.
func TestQueryCancelledIsNotTimeout(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // read: the server then notices the client leaving
		arrived <- struct{}{}
		<-r.Context().Done() // held until the client gives up
	}))
	defer srv.Close()
	tool := newTool(t, Source{Name: "m", URL: srv.URL})
	c, err := tool.Canonical(json.RawMessage(`{"query":"up","since":"1h"}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	o := tool.Execute(ctx, tools.Call{Tool: ToolName, Input: c.Input, Now: time.Now(), MaxBytes: 8192})
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeCancelled || !errors.Is(o.Detail, context.Canceled) || !strings.Contains(fmt.Sprint(o.Detail), "cancelled") {
		t.Errorf("cancelled query: %s %s %v, want CANCELLED", o.Status, o.ErrorCode, o.Detail)
	}
}

// The resolution is the finest whole second within the evaluation bound,
// never coarser than the grid step, and a resolution coarser than the
// series' own interval is said.
func TestResolution(t *testing.T) {
	for _, c := range []struct {
		window time.Duration
		series int
		step   time.Duration
		want   time.Duration
	}{
		{2 * time.Hour, 1, 31 * time.Second, time.Second},
		{24 * time.Hour, 1, 361 * time.Second, time.Second},
		{24 * time.Hour, 10, 361 * time.Second, 5 * time.Second},
		{24 * time.Hour, 1000, 361 * time.Second, 361 * time.Second},
		{time.Hour, 0, time.Minute, time.Second},
	} {
		if got := resolutionFor(c.window, c.series, c.step); got != c.want {
			t.Errorf("resolutionFor(%s, %d series, step %s) = %s, want %s", c.window, c.series, c.step, got, c.want)
		}
		if n := pointsOf(c.window, c.want) * max(c.series, 1); c.want < c.step && n > maxEvalPoints {
			t.Errorf("%s over %d series at %s evaluates %d points, over %d", c.window, c.series, c.want, n, maxEvalPoints)
		}
	}
	if n := coarseNote(20*time.Second, 15*time.Second); !strings.Contains(n, "coarser than the series' 15s sample interval") {
		t.Errorf("coarse note %q", n)
	}
	if n := coarseNote(15*time.Second, 15*time.Second) + coarseNote(time.Minute, 0); n != "" {
		t.Errorf("a resolution at the interval, or an unknown interval, is not coarse: %q", n)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A one-sample spike between the evaluation steps of a default 2-hour query
// (31s steps over a 15s series) is still the series' max, at its own time,
// and the largest change; the resolution used is reported and not coarser
// than the series' own interval. Against both real servers.
func TestQueryTrueExtremes(t *testing.T) {
	servers := realServers()
	for name, start := range servers {
		t.Run(name, func(t *testing.T) {
			srv := start(t)
			tool := newTool(t, Source{Name: "m", URL: srv.URL})
			in := `{"query":` + jsonString(promtest.FineSelector) + `,"start":"` + promtest.FineStart.Format(time.RFC3339) +
				`","end":"` + promtest.FineEnd.Format(time.RFC3339) + `"}`
			res, s := oneSeries(t, tool, in)
			spike := promtest.FineSpikeAt.Format(time.RFC3339)
			if s.Max != promtest.FineSpike || s.MaxAt != spike || s.Min != promtest.FinePlateau || s.ChangeAt != spike {
				t.Errorf("summary %+v: want max %g at %s (the change too), min %g", *s.Stats, promtest.FineSpike, spike, promtest.FinePlateau)
			}
			if res.Step != "31s" {
				t.Errorf("step %q: the test wants the default 31s grid that misses the spike", res.Step)
			}
			if res.Resolution != "1s" || res.SampleInterval != "15s" || res.Coarse != "" {
				t.Errorf("resolution %q, sample interval %q, coarse %q: want 1s, not coarser than %s", res.Resolution, res.SampleInterval, res.Coarse, promtest.FineInterval)
			}

			// four hours at 1s are 14,401 points: over Prometheus' 11,000 cap, so two parts
			in = `{"query":` + jsonString(promtest.FineSelector) + `,"start":"` + promtest.FineStart.Add(-time.Hour).Format(time.RFC3339) +
				`","end":"` + promtest.FineEnd.Add(time.Hour).Format(time.RFC3339) + `"}`
			reliability.Record(t, reliability.SectionEvidence, "query_metrics: one-sample spike off the default 2h grid ("+name+")", map[string]any{
				"step": res.Step, "resolution": res.Resolution, "sample_interval": res.SampleInterval,
				"max": s.Max, "true_max": promtest.FineSpike, "max_at_true": s.MaxAt == spike,
			})
			res, s = oneSeries(t, tool, in)
			if res.Resolution != "1s" || s.Max != promtest.FineSpike || s.MaxAt != spike {
				t.Errorf("4h window at %s: %+v, want max %g at %s", res.Resolution, *s.Stats, promtest.FineSpike, spike)
			}
		})
	}
}

// Coverage against both real servers: a selector's samples in a window with
// data; a window after the series' data is NO_EVIDENCE with coverage "none",
// its last sample and the empty-window line; an unknown metric is "none" too
// (nothing in or before the window); an expression without series is
// "none" when one of its selectors has no sample in the window (a misspelt
// metric), "data" when all have, and "unknown" when it has no selector to
// check.
func TestQueryCoverage(t *testing.T) {
	for name, start := range realServers() {
		t.Run(name, func(t *testing.T) {
			srv := start(t)
			tool := newTool(t, Source{Name: "m", URL: srv.URL})
			in := func(q string, from, to time.Time) string {
				return `{"query":` + jsonString(q) + `,"start":"` + from.Format(time.RFC3339) + `","end":"` + to.Format(time.RFC3339) + `"}`
			}
			res, _ := oneSeries(t, tool, in(promtest.FineSelector, promtest.FineStart, promtest.FineEnd))
			if res.Coverage != "data" || res.Samples != promtest.FineSamples() {
				t.Errorf("window with data: coverage %q, %d samples; want data, %d", res.Coverage, res.Samples, promtest.FineSamples())
			}

			after := promtest.FineEnd.Add(time.Hour)
			o := call(t, tool, in(promtest.FineSelector, after, after.Add(time.Hour)), time.Time{})
			r, _ := o.Result.(Result)
			last := promtest.FineEnd.Format(time.RFC3339)
			if o.Status != tools.NoEvidence || r.Coverage != tools.CoverageNone || r.LastSample != last ||
				!strings.Contains(o.EmptyWindow, "metrics source m has "+promtest.FineSelector+" up to "+last+"; nothing in the asked window") {
				t.Errorf("window after the data: %s %+v, empty window %q; want NO_EVIDENCE, coverage none, last sample %s", o.Status, r, o.EmptyWindow, last)
			}

			o = call(t, tool, in(`no_such_metric{job="x"}`, promtest.FineStart, promtest.FineEnd), time.Time{})
			r, _ = o.Result.(Result)
			if o.Status != tools.NoEvidence || r.Coverage != tools.CoverageNone || r.LastSample != "" || !strings.Contains(o.EmptyWindow, "has no sample of") {
				t.Errorf("unknown metric: %s %+v, empty window %q; want coverage none without a last sample", o.Status, r, o.EmptyWindow)
			}

			// an expression whose selector holds data found nothing: a
			// true negative
			o = call(t, tool, in(`sum(rate(`+promtest.FineSelector+`[5m])) > 100`, promtest.FineStart, promtest.FineEnd), time.Time{})
			r, _ = o.Result.(Result)
			if o.Status != tools.NoEvidence || r.Coverage != "data" || o.EmptyWindow != "" {
				t.Errorf("filtered expression: %s %+v, empty window %q; want NO_EVIDENCE, coverage data", o.Status, r, o.EmptyWindow)
			}
			// a misspelt metric inside an expression is missing data,
			// never "no such errors"; so is a window after the data
			typo := `sum(rate(fine_gauge_typo_total{job="x"}[5m])) > 0 or ` + promtest.FineSelector + ` > 1e9`
			o = call(t, tool, in(typo, promtest.FineStart, promtest.FineEnd), time.Time{})
			r, _ = o.Result.(Result)
			if o.Status != tools.NoEvidence || r.Coverage != tools.CoverageNone || !strings.Contains(o.EmptyWindow, `has no sample of fine_gauge_typo_total{job="x"}`) {
				t.Errorf("misspelt metric in an expression: %s %+v, empty window %q; want coverage none naming it", o.Status, r, o.EmptyWindow)
			}
			o = call(t, tool, in(`max_over_time(`+promtest.FineSelector+`[5m]) > 100`, after, after.Add(time.Hour)), time.Time{})
			r, _ = o.Result.(Result)
			if o.Status != tools.NoEvidence || r.Coverage != tools.CoverageNone || r.LastSample != last || !strings.Contains(o.EmptyWindow, "nothing in the asked window") {
				t.Errorf("expression after the data: %s %+v, empty window %q; want coverage none, last sample %s", o.Status, r, o.EmptyWindow, last)
			}
			// selectors that cannot be read simply: unknown, as before
			o = call(t, tool, in(`vector(1) < 0`, promtest.FineStart, promtest.FineEnd), time.Time{})
			r, _ = o.Result.(Result)
			if o.Status != tools.NoEvidence || r.Coverage != "unknown" || o.EmptyWindow != "" {
				t.Errorf("expression without selectors: %s %+v, empty window %q; want coverage unknown", o.Status, r, o.EmptyWindow)
			}
			reliability.Record(t, reliability.SectionEvidence, "query_metrics coverage ("+name+")", map[string]any{
				"windows": 7, "failed": t.Failed(),
			})
		})
	}
}

// query_metrics follows the alerts' one redirect rule (httpsource): a
// redirect to another host is refused, UNAVAILABLE, naming it in the detail.
func TestQueryCrossHostRedirectRefused(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "elsewhere", http.StatusNotFound)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer srv.Close()
	o := call(t, newTool(t, Source{Name: "m", URL: srv.URL}), `{"query":"up","since":"1h"}`, time.Now())
	if o.Status != tools.StatusError || o.ErrorCode != tools.CodeUnavailable || o.Detail == nil || !strings.Contains(o.Detail.Error(), "redirect to another host") {
		t.Errorf("cross-host redirect: %s %s %v, want UNAVAILABLE naming the refused redirect", o.Status, o.ErrorCode, o.Detail)
	}
}

package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/pkg/egress"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// metricsCall is one query_metrics call of the run: the source, the
// selectors of its expression and the window it evaluated.
type metricsCall struct {
	source string
	sels   []string
	lo, hi time.Time
}

// Freezes is query_metrics.
func (Source) Freezes() []string { return []string{metricstool.ToolName} }

// Freeze freezes, for each metrics query of the run, the raw samples of its
// selectors over the run's metrics window (frozen.Margin before the
// earliest window to frozen.Margin after the latest), each read with one
// range-vector instant query at the window's end, which returns the samples
// exactly as stored. They are written as OpenMetrics (PackFile), label
// values redacted; eval serves them as every source the run named
// (ScenarioKey).
func (Source) Freeze(ctx context.Context, p *frozen.Pack) error {
	var calls []metricsCall
	for _, inv := range p.Calls(metricstool.ToolName) {
		res, ok, err := frozen.Result[metricstool.Result](inv)
		if err != nil {
			return err
		}
		if !ok || res.Source == "" {
			continue
		}
		lo, err1 := time.Parse(time.RFC3339Nano, res.Start)
		hi, err2 := time.Parse(time.RFC3339Nano, res.End)
		sels, ok := metricstool.Selectors(res.Query)
		if err1 != nil || err2 != nil || !ok {
			return fmt.Errorf("eval pack: call %s (%s on %s) names no window or selector eval pack can read, so its samples cannot be frozen", inv.ToolCallID, res.Query, res.Source)
		}
		calls = append(calls, metricsCall{source: res.Source, sels: sels, lo: lo, hi: hi})
	}
	if len(calls) == 0 {
		return nil
	}
	var sp frozen.Span
	for _, c := range calls {
		sp.Add(c.lo, c.hi)
	}
	lo, hi := sp.Widened()
	series := map[string]*omSeries{}
	var names []string
	es := Entries(p.Config)
	for _, c := range calls {
		i := slices.IndexFunc(es, func(m metricstool.Source) bool { return m.Name == c.source })
		if i < 0 {
			return p.Gone("metrics source", c.source)
		}
		src := es[i]
		if !slices.Contains(names, src.Name) {
			names = append(names, src.Name)
		}
		for _, sel := range c.sels {
			if err := rawSamples(ctx, src, sel, lo, hi, series); err != nil {
				return &frozen.UnavailableError{Kind: "metrics", Source: src.Name + " (" + egress.URL(src.URL).String() + ")", Err: err}
			}
		}
	}
	if err := p.WriteText(PackFile, egress.Mask(string(openMetrics(series)))); err != nil {
		return err
	}
	p.Scenario(ScenarioKey, names)
	n := 0
	for _, s := range series {
		n += len(s.points)
	}
	p.Frozen("metrics %s: %d series, %d sample(s) from %s to %s", strings.Join(names, ", "), len(series), n, lo.UTC().Format(time.RFC3339), hi.UTC().Format(time.RFC3339))
	return nil
}

// omSeries is one frozen series: its name, labels and samples by time (ms).
type omSeries struct {
	name   string
	labels map[string]string
	points map[int64]string
}

// rawSamples reads the samples of selector sel in [lo, hi] from src with the
// instant query sel[range] at hi, and adds them to series.
func rawSamples(ctx context.Context, src metricstool.Source, sel string, lo, hi time.Time, series map[string]*omSeries) error {
	var auth httpsource.Auth
	switch {
	case src.BearerTokenEnv != "":
		auth.BearerToken = src.Secret.Reveal()
	case src.Username != "":
		auth.Username, auth.Password = src.Username, src.Secret.Reveal()
	}
	client, err := httpsource.New(httpsource.Options{Auth: auth, Timeout: max(src.Timeout, 30*time.Second), MaxBody: MaxPackBytes})
	if err != nil {
		return err
	}
	secs := int64(math.Ceil(hi.Sub(lo).Seconds()))
	form := url.Values{"query": {fmt.Sprintf("%s[%ds]", sel, secs)}, "time": {strconv.FormatFloat(float64(hi.UnixMilli())/1e3, 'f', -1, 64)}}
	req, err := client.NewRequest(ctx, http.MethodPost, strings.TrimSuffix(src.URL, "/")+"/api/v1/query", strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("query %s: %w", sel, err)
	}
	var env struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resp.Body, &env); err != nil {
		return fmt.Errorf("query %s: not the Prometheus API's answer: %w", sel, err)
	}
	if env.Status != "success" || env.Data.ResultType != "matrix" {
		return fmt.Errorf("query %s: %s %s", sel, env.Status, client.Scrub(env.Error))
	}
	for _, r := range env.Data.Result {
		name := r.Metric["__name__"]
		if name == "" {
			continue
		}
		labels := map[string]string{}
		for k, v := range r.Metric {
			if k != "__name__" {
				labels[k] = egress.Field(k, client.Scrub(v)).String()
			}
		}
		key := name + "\xff" + labelText(labels)
		s := series[key]
		if s == nil {
			s = &omSeries{name: name, labels: labels, points: map[int64]string{}}
			series[key] = s
		}
		for _, v := range r.Values {
			ts, ok1 := v[0].(float64)
			val, ok2 := v[1].(string)
			if !ok1 || !ok2 {
				return fmt.Errorf("query %s: a sample is not [time, \"value\"]", sel)
			}
			s.points[int64(math.Round(ts*1000))] = val
		}
	}
	return nil
}

// labelText is the label set as OpenMetrics writes it, sorted by name.
func labelText(labels map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(labels)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k + `="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(labels[k]) + `"`)
	}
	return b.String()
}

// openMetrics writes the series as OpenMetrics text with timestamps: the
// families in name order, each series' samples in time order, "# EOF" last.
func openMetrics(series map[string]*omSeries) []byte {
	var b bytes.Buffer
	last := ""
	for _, key := range slices.Sorted(maps.Keys(series)) {
		s := series[key]
		if s.name != last {
			fmt.Fprintf(&b, "# TYPE %s unknown\n", s.name)
			last = s.name
		}
		lt := labelText(s.labels)
		for _, ts := range slices.Sorted(maps.Keys(s.points)) {
			b.WriteString(s.name)
			if lt != "" {
				b.WriteString("{" + lt + "}")
			}
			fmt.Fprintf(&b, " %s %s\n", s.points[ts], strconv.FormatFloat(float64(ts)/1000, 'f', -1, 64))
		}
	}
	b.WriteString("# EOF\n")
	return b.Bytes()
}

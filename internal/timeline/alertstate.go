package timeline

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
)

// The labels of Prometheus' alert state series.
const (
	labelAlertName  = "alertname"
	labelAlertState = "alertstate"
	labelSeverity   = "severity"
)

// AlertStateQuery is the PromQL of a timeline's read of a source's alert
// state on a grid of step: per step, each alert that was firing at some
// evaluation within it (ALERTS, firing: 1) and the latest time it became
// active (ALERTS_FOR_STATE: a Unix time). max_over_time looks at every
// sample of the step, so an alert firing for less than a step is seen, and
// a resolved alert's series ends at its last evaluation as firing, with or
// without the staleness marker Prometheus writes then (a backfilled copy
// has none).
func AlertStateQuery(step time.Duration) string {
	r := "[" + tools.FormatDuration(step) + "]"
	return `max_over_time(ALERTS{alertstate="firing"}` + r + `) or max_over_time(ALERTS_FOR_STATE` + r + `)`
}

// alertRun is one firing of one alert in a source's alert state.
type alertRun struct {
	name, service, severity string
	// start is when it started firing, when the read saw it start (started).
	start   time.Time
	started bool
	// end is the end of the last step it was seen firing, when the read saw
	// it resolve (resolved).
	end      time.Time
	resolved bool
}

// alertState reads src's alert state over the window and the baseline
// steps before it (so an alert firing since before the window is not
// taken to start with it): its coverage line and the alerts' firings.
func (b *builder) alertState(ctx context.Context, src string) (Coverage, []alertRun, error) {
	w := b.plan.Window
	step := metricStep(w.End.Sub(w.Start))
	from, _ := MetricSpan(w)
	in := map[string]any{"source": src, "query": AlertStateQuery(step), "start": stamp(from), "end": stamp(w.End), "step": tools.FormatDuration(step), "values": true}
	o, err := b.call(ctx, metrics.ToolName, in)
	if err != nil {
		return Coverage{}, nil, err
	}
	cov := Coverage{Detector: DetectAlerts, Source: src, ToolCallID: o.ToolCallID, Status: Read,
		Note: "alerts started and resolved, from Prometheus' ALERTS and ALERTS_FOR_STATE series, to the " + tools.FormatDuration(step) + " step"}
	var r metrics.Result
	if f := decode(o, &r); f != "" {
		cov.Status, cov.Note = Failed, f
		return cov, nil, nil
	}
	switch {
	case r.Coverage == tools.CoverageNone || len(r.Series) == 0:
		cov.Status, cov.Note = Empty, "no ALERTS series in the window: no alerting rule of this source was active in it, or it evaluates none"
		return cov, nil, nil
	case r.Truncated:
		cov.Status, cov.Note = Partial, fmt.Sprintf("%d of %d alert state series read", len(r.Series), r.TotalSeries)
	}
	start, ok := parseTS(r.Start)
	if !ok {
		start = from
	}
	return cov, alertRuns(r.Series, start, step), nil
}

// alertKey names an alert by its labels but alertstate.
func alertKey(labels map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if k != labelAlertState && k != "__name__" {
			fmt.Fprintf(&b, "%s=%q,", k, labels[k])
		}
	}
	return b.String()
}

// alertRuns are the firings of the ALERTS series of an alert state read
// whose grid starts at start: a firing starts at the first step it is seen
// in (at the alert's active time from ALERTS_FOR_STATE when that lies in
// the same step, exact for a rule without `for`) and resolves at the end of
// the last step it is seen in. A firing seen from the first step started
// before the read.
func alertRuns(series []metrics.Series, start time.Time, step time.Duration) []alertRun {
	at := func(i int) time.Time { return start.Add(time.Duration(i) * step) }
	active := map[string][]*float64{}
	for _, s := range series {
		if _, ok := s.Labels[labelAlertState]; !ok {
			active[alertKey(s.Labels)] = s.Values
		}
	}
	var runs []alertRun
	for _, s := range series {
		if s.Labels[labelAlertState] != "firing" {
			continue
		}
		fs := active[alertKey(s.Labels)]
		run := alertRun{name: s.Labels[labelAlertName], service: cmp.Or(s.Labels["service"], s.Labels["job"]), severity: s.Labels[labelSeverity]}
		on := false
		for i, v := range s.Values {
			switch {
			case v != nil && !on:
				on = true
				run.started, run.resolved = i > 0, false
				if run.started {
					run.start = at(i)
					if i < len(fs) && fs[i] != nil {
						if a := time.Unix(0, int64(*fs[i]*1e9)).UTC(); a.After(at(i-1)) && !a.After(at(i)) {
							run.start = a.Truncate(time.Second)
						}
					}
				}
			case v == nil && on:
				on = false
				run.end, run.resolved = at(i-1), true
				runs = append(runs, run)
			}
		}
		if on {
			runs = append(runs, run)
		}
	}
	return runs
}

// runEvents are the events of runs in w: each start and resolution inside
// it, but the start of a firing Alertmanager lists (the same alert still
// firing, started within two steps of it), which Alertmanager places
// exactly with its summary.
func runEvents(runs []alertRun, listed []FiringAlert, w Window, src, call string) []Event {
	step := metricStep(w.End.Sub(w.Start))
	in := func(t time.Time) bool { return !t.Before(w.Start) && !t.After(w.End) }
	var es []Event
	for _, r := range runs {
		al := FiringAlert{Name: r.name, Service: r.service, Severity: r.severity}
		if r.started && in(r.start) && !(!r.resolved && slices.ContainsFunc(listed, func(a FiringAlert) bool {
			return a.Name == r.name && (a.Service == "" || r.service == "" || a.Service == r.service) && a.StartsAt.Sub(r.start).Abs() <= 2*step
		})) {
			es = append(es, Event{At: r.start, Kind: AlertStarted, Source: src, Service: r.service, Summary: startedSummary(al), ToolCallID: call})
		}
		if r.resolved && in(r.end) {
			sum := alertPrefix + r.name + " resolved"
			if r.severity != "" {
				sum += " (" + r.severity + ")"
			}
			if r.started {
				sum += ", firing since " + r.start.UTC().Format("15:04:05")
			} else {
				sum += ", firing since before " + w.Start.UTC().Format("15:04")
			}
			es = append(es, Event{At: r.end, Kind: AlertResolved, Source: src, Service: r.service, Summary: sum, ToolCallID: call})
		}
	}
	return es
}

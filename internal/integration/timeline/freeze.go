package timeline

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
	logtool "github.com/superbiz/superbiz/pkg/tools/logs"
	metricstool "github.com/superbiz/superbiz/pkg/tools/metrics"
)

// AlertsFile is the pack file of the alerts the run's timelines placed, a
// recording of read_alerts that eval answers the timeline's read with.
const AlertsFile = "timeline_alerts.json"

// Freezes is build_timeline.
func (Source) Freezes() []string { return []string{timeline.ToolName} }

// Inner are the reads of the run's build_timeline calls, as the calls of
// query_logs and query_metrics they were: of each log source a detector
// read, the window and the baseline before it (timeline.LogSpan); of each
// [[timeline.metrics]] entry read, its query over the window and its
// baseline (timeline.MetricSpan); of each metrics source whose alert state
// it read, the ALERTS and ALERTS_FOR_STATE series over the same span. The logs and metrics sources freeze them
// as they freeze the run's own calls.
func (Source) Inner(p *frozen.Pack) ([]runrecord.Invocation, error) {
	var out []runrecord.Invocation
	for _, inv := range p.Calls(timeline.ToolName) {
		tl, ok, err := frozen.Result[timeline.Timeline](inv)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var done []string
		for _, c := range tl.Coverage {
			if c.Status == timeline.Failed || slices.Contains(done, c.Detector+"\xff"+c.Source) {
				continue
			}
			done = append(done, c.Detector+"\xff"+c.Source)
			var tool string
			var res any
			switch c.Detector {
			case timeline.DetectBursts, timeline.DetectNewError, timeline.DetectRestarts:
				srcs := logsource.Entries(p.Config)
				i := slices.IndexFunc(srcs, func(s logtool.Source) bool { return s.Name == c.Source })
				if i < 0 {
					return nil, p.Gone("log source", c.Source)
				}
				if srcs[i].Backend == logtool.BackendVictoriaLogs {
					// a recording answers equal calls only, and the timeline's reads are none of the run's
					return nil, frozen.Refused("the run's timeline (call %s) read the VictoriaLogs source %q, whose reads inside build_timeline eval pack cannot record", inv.ToolCallID, c.Source)
				}
				lo, hi := timeline.LogSpan(tl.Window, timeline.LogSource{Name: c.Source, MaxWindow: srcs[i].MaxWindow})
				tool, res = logtool.ToolName, logtool.Result{Source: c.Source, Window: logtool.Window{Start: stamp(lo), End: stamp(hi)}}
			case timeline.DetectKubeDeploys, timeline.DetectKubeRestarts, timeline.DetectKubeWarnings:
				// a cluster is frozen as the run's own calls and their answers; these reads are none of them
				return nil, frozen.Refused("the run's timeline (call %s) read the Kubernetes source %q, whose reads inside build_timeline eval pack cannot record: build the timeline with superbiz timeline, whose reads are the run's calls", inv.ToolCallID, c.Source)
			case timeline.DetectMetrics:
				m, err := metricOf(p, c.Source)
				if err != nil {
					return nil, err
				}
				lo, hi := timeline.MetricSpan(tl.Window)
				tool, res = metricstool.ToolName, metricstool.Result{Source: m.Source, Query: m.Query, Start: stamp(lo), End: stamp(hi)}
			case timeline.DetectAlerts:
				if c.Source == timeline.AlertmanagerSource {
					continue // frozen as AlertsFile
				}
				lo, hi := timeline.MetricSpan(tl.Window)
				tool, res = metricstool.ToolName, metricstool.Result{Source: c.Source, Query: timeline.AlertStateQuery(timeline.MetricStep(tl.Window)), Start: stamp(lo), End: stamp(hi)}
			default:
				continue
			}
			r, err := frozen.Read(inv, len(out)+1, tool, res)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// metricOf is the [[timeline.metrics]] entry name, its source named (the
// only [[metrics]] source when the entry names none).
func metricOf(p *frozen.Pack, name string) (timeline.Metric, error) {
	i := slices.IndexFunc(Metrics(p.Config), func(m timeline.Metric) bool { return m.Name == name })
	switch {
	case i < 0 && timeline.IsAlertExprName(name):
		// the configuration never had it: the run's alert gave it
		return timeline.Metric{}, frozen.Refused("the run's timeline watched %q, the series the alert's rule compares, which is no [[timeline.metrics]] entry: a pack cannot build that timeline again; freeze a diagnosis whose timelines watched the configured metrics only", name)
	case i < 0:
		return timeline.Metric{}, p.Gone("timeline metric", name)
	}
	m := Metrics(p.Config)[i]
	if m.Source == "" {
		srcs := metricsource.Entries(p.Config)
		if len(srcs) != 1 {
			return m, frozen.Refused("the timeline metric %q names no [[metrics]] source, and the configuration has %d: name its source", name, len(srcs))
		}
		m.Source = srcs[0].Name
	}
	return m, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Freeze writes what a pack needs beyond the frozen logs and metrics to
// build the run's timelines again: the [[timeline.metrics]] entries they
// read, and the alerts they placed (AlertsFile), which Alertmanager
// cannot give again once resolved.
func (Source) Freeze(_ context.Context, p *frozen.Pack) error {
	var metrics []timeline.Metric
	var alerts []timeline.FiringAlert
	readAlerts := false
	calls := p.Calls(timeline.ToolName)
	for _, inv := range calls {
		tl, ok, err := frozen.Result[timeline.Timeline](inv)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for _, c := range tl.Coverage {
			switch {
			case c.Status == timeline.Failed, c.Detector == timeline.DetectAlerts && c.Source != timeline.AlertmanagerSource:
			case c.Detector == timeline.DetectMetrics && !slices.ContainsFunc(metrics, func(m timeline.Metric) bool { return m.Name == c.Source }):
				m, err := metricOf(p, c.Source)
				if err != nil {
					return err
				}
				metrics = append(metrics, m)
			case c.Detector == timeline.DetectAlerts:
				readAlerts = true
			}
		}
		for _, al := range timeline.AlertsOf(tl) {
			if !slices.ContainsFunc(alerts, func(a timeline.FiringAlert) bool { return a.Name == al.Name && a.StartsAt.Equal(al.StartsAt) }) {
				alerts = append(alerts, al)
			}
		}
	}
	if len(calls) == 0 {
		return nil
	}
	if len(metrics) > 0 {
		p.Table("timeline", map[string]any{"metrics": metrics})
	}
	p.Frozen("timeline: %d build_timeline call(s); their reads frozen with the logs and metrics", len(calls))
	if !readAlerts {
		return nil
	}
	slices.SortStableFunc(alerts, func(a, b timeline.FiringAlert) int { return a.StartsAt.Compare(b.StartsAt) })
	res := timeline.AlertsResult{Alerts: alerts, Total: len(alerts)}
	body, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("eval pack: encode the timeline's alerts: %w", err)
	}
	status := tools.EvidenceFound
	if len(alerts) == 0 {
		status = tools.NoEvidence
	}
	rec := frozen.Recording{Tool: timeline.AlertsTool, Sources: []string{timeline.AlertmanagerSource},
		Calls: []frozen.RecordedCall{{Tool: timeline.AlertsTool, Input: json.RawMessage(`{}`), EvidenceStatus: status, Result: body}}}
	p.Frozen("timeline alerts: %d alert(s) the timelines placed (an alert firing outside their windows is not held)", len(alerts))
	return p.WriteRecorded(p.Path(AlertsFile), rec)
}

// Owns is AlertsFile.
func (Source) Owns() frozen.Owned { return frozen.Owned{Files: []string{AlertsFile}} }

// Replay reads a pack's AlertsFile; nil for a pack without one.
func (Source) Replay(r frozen.Replay) (frozen.Served, error) {
	rec, err := frozen.ReadRecording(filepath.Join(r.Dir, AlertsFile), timeline.AlertsTool)
	if err != nil || rec == nil {
		return nil, err
	}
	return alertsServed{rec: rec}, nil
}

// alertsServed answers the timeline's read of Alertmanager from a pack's
// recording: nothing to start, nothing to configure.
type alertsServed struct{ rec *frozen.Recording }

// Missing is "": a recording needs nothing of the machine.
func (alertsServed) Missing() string { return "" }

// Start needs nothing started.
func (s alertsServed) Start(context.Context, string) (frozen.Server, error) { return s, nil }

// Configure adds nothing: the recording is read through Wrap.
func (alertsServed) Configure(*config.Config) error { return nil }

// Stop has nothing to stop.
func (alertsServed) Stop() error { return nil }

// Wrap gives build_timeline the recorded read_alerts (a build_timeline of
// it alone when the pack holds no logs or metrics for one).
func (s alertsServed) Wrap(adapters []tools.Adapter) []tools.Adapter {
	read := recordedAlerts(s)
	out := slices.Clone(adapters)
	for i, a := range out {
		if t, ok := a.(*timeline.Tool); ok {
			out[i] = t.WithRead(read)
			return out
		}
	}
	if t, err := timeline.NewTool([]tools.Adapter{read}, nil, nil, nil); err == nil {
		out = append(out, t)
	}
	return out
}

// recordedAlerts is read_alerts answered from a recording.
type recordedAlerts struct{ rec *frozen.Recording }

func (recordedAlerts) Definition() model.Tool { return timeline.AlertsDefinition() }

func (recordedAlerts) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return timeline.AlertsCanonical(in)
}

// Execute gives the recorded answer.
func (r recordedAlerts) Execute(_ context.Context, call tools.Call) tools.Outcome {
	if out, ok := frozen.Recorded(r.rec.Calls, call); ok {
		return out
	}
	return tools.Failed(tools.CodeNotRecorded, fmt.Errorf("%s: no recorded observation (the pack holds the alerts its timelines placed)", timeline.AlertsTool))
}

package timeline

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// AlertsTool is the name of the timeline's read of Alertmanager: a tool
// call like any, so the alerts a timeline rests on are audited, stored
// and replayed. Only the timeline's registry holds it; the alerts
// integration builds it (internal/integration/alerts).
const AlertsTool = "read_alerts"

// MaxAlerts bounds the alerts one read lists.
const MaxAlerts = 200

// AlertsInput is read_alerts' input: nothing to choose.
type AlertsInput struct{}

// AlertsResult is read_alerts' answer: the firing alerts, oldest first.
type AlertsResult struct {
	Alerts []FiringAlert `json:"alerts"`
	// Total is how many alerts were firing; Truncated says fewer are listed.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated,omitempty"`
	// Skipped counts alerts left out for a start time that is not one.
	Skipped int `json:"skipped,omitempty"`
}

// AlertsDefinition declares read_alerts (to the timeline's registry only).
func AlertsDefinition() model.Tool {
	return model.Tool{Name: AlertsTool, Description: "List the firing alerts of the configured Alertmanager.", Parameters: schema.Marshal(schema.Reflect(AlertsInput{}))}
}

// AlertsCanonical is read_alerts' canonical input: only an empty object.
func AlertsCanonical(in json.RawMessage) (tools.Canonical, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(in, &m); err != nil || len(m) > 0 {
		return tools.Canonical{}, tools.InvalidInput("read_alerts takes an empty object {}")
	}
	return tools.Canonical{Input: json.RawMessage(`{}`), Summary: "firing alerts"}, nil
}

// FiringAlert is one alert as the timeline reads it.
type FiringAlert struct {
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	StartsAt    time.Time `json:"starts_at"`
	Service     string    `json:"service,omitempty"`
	Severity    string    `json:"severity,omitempty"`
	Summary     string    `json:"summary,omitempty"`
}

// AlertmanagerSource is the source the events and the coverage line of a
// timeline's read of Alertmanager name.
const AlertmanagerSource = "alertmanager"

// alerts places the alerts that started and resolved in the window.
// Alertmanager lists firing alerts only, each with its exact start; an
// alert that resolved is gone from it. Prometheus keeps every alert's state
// as the ALERTS and ALERTS_FOR_STATE series, which each [[metrics]] source
// of plan.AlertSeries is read for (alertState): the alerts that started and
// resolved there, to the step of the read. An alert both list starts at
// Alertmanager's time.
func (b *builder) alerts(ctx context.Context) error {
	if !b.plan.Alerts && len(b.plan.AlertSeries) == 0 {
		return nil
	}
	w := b.plan.Window
	var covs []Coverage
	var listed []FiringAlert
	var es []Event
	if b.plan.Alerts {
		cov, as, err := b.alertmanager(ctx)
		if err != nil {
			return err
		}
		covs, listed = append(covs, cov), as
		for _, al := range as {
			if !al.StartsAt.Before(w.Start) && !al.StartsAt.After(w.End) {
				es = append(es, Event{At: al.StartsAt, Kind: AlertStarted, Source: AlertmanagerSource, Service: al.Service, Summary: startedSummary(al), ToolCallID: cov.ToolCallID})
			}
		}
	}
	for _, src := range b.plan.AlertSeries {
		cov, runs, err := b.alertState(ctx, src)
		if err != nil {
			return err
		}
		covs = append(covs, cov)
		es = append(es, runEvents(runs, listed, w, cov.Source, cov.ToolCallID)...)
	}
	for i, c := range covs {
		if i < len(covs)-1 {
			b.done(c)
			continue
		}
		b.done(c, es...)
	}
	return nil
}

// alertmanager reads the firing alerts (read_alerts): its coverage line
// and the alerts, none when the read failed.
func (b *builder) alertmanager(ctx context.Context) (Coverage, []FiringAlert, error) {
	o, err := b.call(ctx, AlertsTool, AlertsInput{})
	if err != nil {
		return Coverage{}, nil, err
	}
	note := "firing alerts only: an alert resolved before now is not listed"
	if len(b.plan.AlertSeries) > 0 {
		note += "; resolved alerts are read from the ALERTS series of " + strings.Join(b.plan.AlertSeries, ", ")
	}
	cov := Coverage{Detector: DetectAlerts, Source: AlertmanagerSource, ToolCallID: o.ToolCallID, Status: Read, Note: note}
	var r AlertsResult
	if f := decode(o, &r); f != "" {
		cov.Status, cov.Note = Failed, f
		return cov, nil, nil
	}
	if r.Truncated || r.Skipped > 0 {
		cov.Status = Partial
	}
	return cov, r.Alerts, nil
}

// The words of an alert_started event's summary around the alert's name.
const (
	alertPrefix  = "alert "
	alertStarted = " started firing"
)

// startedSummary is the summary of al's alert_started event: its name,
// severity and summary annotation (AlertsOf reads them back).
func startedSummary(al FiringAlert) string {
	sum := alertPrefix + al.Name + alertStarted
	if al.Severity != "" {
		sum += " (" + al.Severity + ")"
	}
	if al.Summary != "" {
		sum += ": " + al.Summary
	}
	return sum
}

// AlertsOf are the alerts whose start tl placed, read back from its
// alert_started events read from Alertmanager (name, severity, summary,
// service, start), oldest first: what eval pack freezes of a timeline's read of Alertmanager. The
// fingerprint is not in an event and stays "".
func AlertsOf(tl Timeline) []FiringAlert {
	out := []FiringAlert{}
	for _, e := range tl.Events {
		if e.Kind != AlertStarted || e.Source != AlertmanagerSource {
			continue
		}
		rest, ok := strings.CutPrefix(e.Summary, alertPrefix)
		if !ok {
			continue
		}
		name, rest, ok := strings.Cut(rest, alertStarted)
		if !ok {
			continue
		}
		al := FiringAlert{Name: name, StartsAt: e.At, Service: e.Service}
		if sev, after, ok := strings.Cut(strings.TrimPrefix(rest, " ("), ")"); strings.HasPrefix(rest, " (") && ok {
			al.Severity, rest = sev, after
		}
		al.Summary = strings.TrimPrefix(rest, ": ")
		out = append(out, al)
	}
	return out
}

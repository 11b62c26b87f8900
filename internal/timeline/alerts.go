package timeline

import (
	"context"
	"time"
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

// FiringAlert is one alert as the timeline reads it.
type FiringAlert struct {
	Name        string    `json:"name"`
	Fingerprint string    `json:"fingerprint"`
	StartsAt    time.Time `json:"starts_at"`
	Service     string    `json:"service,omitempty"`
	Severity    string    `json:"severity,omitempty"`
	Summary     string    `json:"summary,omitempty"`
}

// alerts places the start of every alert firing in the window. Alertmanager
// lists firing alerts only: one that started and resolved within the
// window is gone from it, which the coverage line says.
func (b *builder) alerts(ctx context.Context) error {
	if !b.plan.Alerts {
		return nil
	}
	o, err := b.call(ctx, AlertsTool, AlertsInput{})
	if err != nil {
		return err
	}
	cov := Coverage{Detector: DetectAlerts, Source: "alertmanager", ToolCallID: o.ToolCallID, Status: Read,
		Note: "firing alerts only: an alert resolved before now is not listed"}
	var r AlertsResult
	if f := decode(o, &r); f != "" {
		cov.Status, cov.Note = Failed, f
		b.done(cov)
		return nil
	}
	if r.Truncated || r.Skipped > 0 {
		cov.Status = Partial
	}
	w := b.plan.Window
	var es []Event
	for _, al := range r.Alerts {
		if al.StartsAt.Before(w.Start) || al.StartsAt.After(w.End) {
			continue
		}
		sum := "alert " + al.Name + " started firing"
		if al.Severity != "" {
			sum += " (" + al.Severity + ")"
		}
		if al.Summary != "" {
			sum += ": " + al.Summary
		}
		es = append(es, Event{At: al.StartsAt, Kind: AlertStarted, Source: "alertmanager", Service: al.Service, Summary: sum, ToolCallID: o.ToolCallID})
	}
	b.done(cov, es...)
	return nil
}

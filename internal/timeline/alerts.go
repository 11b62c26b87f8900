package timeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// AlertsTool is the name of the timeline's read of Alertmanager: a tool
// call like any, so the alerts a timeline rests on are audited, stored
// and replayed. Only the timeline's registry holds it.
const AlertsTool = "read_alerts"

// maxAlerts bounds the alerts one read lists.
const maxAlerts = 200

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

// Alerts is the read_alerts adapter over an Alertmanager client.
type Alerts struct{ Client *alerts.Client }

var _ tools.Adapter = Alerts{}

// Definition declares the tool (to the timeline's registry only).
func (Alerts) Definition() model.Tool {
	return model.Tool{Name: AlertsTool, Description: "List the firing alerts of the configured Alertmanager.", Parameters: schema.Marshal(schema.Reflect(AlertsInput{}))}
}

// Canonical accepts only an empty object.
func (Alerts) Canonical(in json.RawMessage) (tools.Canonical, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(in, &m); err != nil || len(m) > 0 {
		return tools.Canonical{}, tools.InvalidInput("read_alerts takes an empty object {}")
	}
	return tools.Canonical{Input: json.RawMessage(`{}`), Summary: "firing alerts"}, nil
}

// Execute reads the firing alerts.
func (a Alerts) Execute(ctx context.Context, _ tools.Call) tools.Outcome {
	as, skipped, err := a.Client.Firing(ctx)
	if err != nil {
		code := tools.CodeUnavailable
		if c := tools.ContextCode(err); c != "" {
			code = c
		}
		var ae *alerts.Error
		if errors.As(err, &ae) && ae.Kind == alerts.KindTimeout {
			code = tools.CodeTimeout
		}
		return tools.Failed(code, fmt.Errorf("read_alerts: %w", err))
	}
	res := AlertsResult{Total: len(as), Skipped: len(skipped), Alerts: []FiringAlert{}}
	alerts.SortNewestFirst(as)
	if len(as) > maxAlerts {
		as, res.Truncated = as[:maxAlerts], true
	}
	for i := len(as) - 1; i >= 0; i-- {
		al := as[i]
		res.Alerts = append(res.Alerts, FiringAlert{Name: al.Name(), Fingerprint: al.Fingerprint, StartsAt: al.StartsAt.UTC(),
			Service: al.Service(), Severity: al.Severity(), Summary: al.Summary()})
	}
	if len(res.Alerts) == 0 {
		return tools.Outcome{Status: tools.NoEvidence, Result: res}
	}
	return tools.Outcome{Status: tools.EvidenceFound, Result: res}
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

package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TimelineReader is the timeline's read_alerts adapter over the
// Alertmanager client: the firing alerts, oldest first, bounded.
type TimelineReader struct{ Client *alerts.Client }

var _ tools.Adapter = TimelineReader{}

// Definition declares the tool (to the timeline's registry only).
func (TimelineReader) Definition() model.Tool { return timeline.AlertsDefinition() }

// Canonical accepts only an empty object.
func (TimelineReader) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return timeline.AlertsCanonical(in)
}

// Execute reads the firing alerts.
func (a TimelineReader) Execute(ctx context.Context, _ tools.Call) tools.Outcome {
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
	res := timeline.AlertsResult{Total: len(as), Skipped: len(skipped), Alerts: []timeline.FiringAlert{}}
	alerts.SortNewestFirst(as)
	if len(as) > timeline.MaxAlerts {
		as, res.Truncated = as[:timeline.MaxAlerts], true
	}
	for i := len(as) - 1; i >= 0; i-- {
		al := as[i]
		res.Alerts = append(res.Alerts, timeline.FiringAlert{Name: al.Name(), Fingerprint: al.Fingerprint, StartsAt: al.StartsAt.UTC(),
			Service: al.Service(), Severity: al.Severity(), Summary: al.Summary()})
	}
	if len(res.Alerts) == 0 {
		return tools.Outcome{Status: tools.NoEvidence, Result: res}
	}
	return tools.Outcome{Status: tools.EvidenceFound, Result: res}
}

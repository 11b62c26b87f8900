package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/exitcode"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	timelinesource "github.com/superbiz/superbiz/internal/integration/timeline"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/internal/usecase"
)

// AlertsFailure maps a failure to read or find alerts to its exit: the
// backend failing is 4 with a hint, an unknown or malformed reference is 2
// (rejected before any model call), a cancel is the cancellation.
func AlertsFailure(err error) error {
	var ae *alerts.Error
	switch {
	case errors.As(err, &ae):
		return &exitcode.Error{Code: exitcode.Unavailable, Err: fmt.Errorf("%w\n%s", ae, ae.Hint())}
	case errors.Is(err, context.Canceled):
		return exitcode.Cancel("")
	case errors.Is(err, alerts.ErrNotFound):
		return &exitcode.Error{Code: exitcode.Usage, Err: fmt.Errorf("%w\nhint: `superbiz alerts` lists the firing alerts with their fingerprints", err)}
	}
	return &exitcode.Error{Code: exitcode.Usage, Err: err}
}

// FindAlert is the FindAlert of cfg's [alerts]: the reference checked,
// the client built (a missing url or credential variable is a
// configuration error) and the alert found, each failure mapped to its exit
// (AlertsFailure), for `diagnose --alert`, chat's "/alert REF" and the MCP
// diagnose tool alike.
func FindAlert(cfg *config.Config, getenv func(string) string) usecase.FindAlert {
	return func(ctx context.Context, ref string) (alerts.Alert, string, error) {
		if err := alerts.CheckRef(ref); err != nil {
			return alerts.Alert{}, "", exitcode.Usagef("--alert: %v", err)
		}
		client, err := alertsource.Client(cfg, getenv)
		if err != nil {
			return alerts.Alert{}, "", err
		}
		al, note, err := client.Find(ctx, ref)
		if err != nil {
			return alerts.Alert{}, "", AlertsFailure(err)
		}
		return al, note, nil
	}
}

// WatchAlert is the WatchAlert of cfg's [[metrics]]: the series the
// alert's rule compares, from its generatorURL or the sources' rules
// (timelinesource.AlertMetric).
func WatchAlert(cfg *config.Config) usecase.WatchAlert {
	return func(ctx context.Context, al alerts.Alert) (timeline.Metric, string, bool) {
		return timelinesource.AlertMetric(ctx, cfg, al)
	}
}

// Firing is the MCP tool list_alerts' result: the firing alerts (as
// `superbiz alerts -o json` lists them), and the ones skipped (malformed).
type Firing struct {
	Alerts  []alerts.Alert `json:"alerts"`
	Skipped []string       `json:"skipped,omitempty"`
}

// FiringAlerts lists the firing alerts of [alerts], each failure mapped to
// its exit (AlertsFailure).
func (w *Workspace) FiringAlerts(ctx context.Context) (Firing, error) {
	client, err := alertsource.Client(w.Config, w.env.Getenv)
	if err != nil {
		return Firing{}, err
	}
	as, skipped, err := client.Firing(ctx)
	if err != nil {
		return Firing{}, AlertsFailure(err)
	}
	return Firing{Alerts: as, Skipped: skipped}, nil
}

package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
)

// Alerts is doctor's line for [alerts] (none when no url is set):
// the credential variable set, Alertmanager answering its API v2 with the
// credentials, within Timeout.
func Alerts(ctx context.Context, cfg *config.Config, alertsClient func(*config.Config) (*alerts.Client, error)) []Result {
	if cfg.Alerts.URL == "" {
		return nil
	}
	client, err := alertsClient(cfg)
	if err != nil {
		return []Result{Failed("alerts", err.Error(), "export the variable named in [alerts], or fix the table")}
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	as, skipped, err := client.Firing(ctx)
	var ae *alerts.Error
	switch {
	case errors.As(err, &ae):
		return []Result{Failed("alerts", ae.Error(), strings.TrimPrefix(ae.Hint(), "hint: "))}
	case err != nil:
		return []Result{Failed("alerts", err.Error(), "run `superbiz doctor` again")}
	}
	detail := fmt.Sprintf("Alertmanager at %s answers: %d firing", client.URL(), len(as))
	if len(skipped) > 0 {
		return []Result{Warned("alerts", fmt.Sprintf("%s; %d left out: %s", detail, len(skipped), skipped[0]), "fix the rule or the sender that set a malformed startsAt")}
	}
	return []Result{Passed("alerts", detail)}
}

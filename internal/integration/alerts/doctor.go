package alerts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/integration"
)

// Doctor is the line for [alerts] (none when no url is set):
// the credential variable set, Alertmanager answering its API v2 with the
// credentials, within Timeout.
func (Source) Doctor(ctx context.Context, cfg *config.Config, env integration.Env) []doctor.Result {
	if !Configured(cfg) {
		return nil
	}
	client, err := Client(cfg, env.Getenv)
	if err != nil {
		return []doctor.Result{doctor.Failed("alerts", err.Error(), "export the variable named in [alerts], or fix the table")}
	}
	ctx, cancel := context.WithTimeout(ctx, doctor.Timeout)
	defer cancel()
	as, skipped, err := client.Firing(ctx)
	var ae *alerts.Error
	switch {
	case errors.As(err, &ae):
		return []doctor.Result{doctor.Failed("alerts", ae.Error(), strings.TrimPrefix(ae.Hint(), "hint: "))}
	case err != nil:
		return []doctor.Result{doctor.Failed("alerts", err.Error(), "run `superbiz doctor` again")}
	}
	detail := fmt.Sprintf("Alertmanager at %s answers: %d firing", client.URL(), len(as))
	if len(skipped) > 0 {
		return []doctor.Result{doctor.Warned("alerts", fmt.Sprintf("%s; %d left out: %s", detail, len(skipped), skipped[0]), "fix the rule or the sender that set a malformed startsAt")}
	}
	return []doctor.Result{doctor.Passed("alerts", detail)}
}

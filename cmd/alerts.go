package cmd

import (
	"context"

	wsp "github.com/superbiz/superbiz/internal/workspace"
	"github.com/superbiz/superbiz/pkg/egress"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/alerts"
	"github.com/superbiz/superbiz/internal/config"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	"github.com/superbiz/superbiz/internal/textclip"
)

// defaultAlertsLimit is how many alerts `superbiz alerts` shows without --limit.
const defaultAlertsLimit = 50

// summaryColumnWidth bounds the SUMMARY column of the alerts table.
const summaryColumnWidth = 60

// alertsOptions are what `superbiz alerts` was given: how many alerts to
// show and the global flags (the configuration and -o).
type alertsOptions struct {
	globalOptions
	Limit int
}

// newAlertsCmd is `superbiz alerts`; runF replaces runAlerts (tests), nil
// runs it.
func (a *app) newAlertsCmd(runF func(context.Context, *alertsOptions) error) *cobra.Command {
	opts := &alertsOptions{}
	c := &cobra.Command{
		Use:   "alerts",
		Short: "List the firing alerts of the configured Alertmanager, newest first",
		Long: `alerts lists the firing alerts (active, neither silenced nor inhibited) of the
Alertmanager configured in [alerts] url, newest first: start, name, severity,
service, instance, summary and fingerprint. "superbiz diagnose --alert NAME"
(or --alert FINGERPRINT) starts a diagnosis from one of them. Exit codes: 0
listed, 2 no [alerts] url or a missing credential variable, 4 Alertmanager
unreachable or failing.`,
		Example: `  superbiz alerts
  superbiz alerts -o json
  superbiz diagnose --alert HighLatency`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.globalOptions = a.flags.options(cmd)
			return runWith(cmd.Context(), opts, runF, a.runAlerts)
		},
	}
	c.Flags().IntVar(&opts.Limit, "limit", defaultAlertsLimit, "at most this many alerts (the newest)")
	return c
}

// runAlerts lists the firing alerts.
func (a *app) runAlerts(ctx context.Context, opts *alertsOptions) error {
	if opts.Limit < 1 {
		return usageErrorf("--limit must be at least 1, got %d", opts.Limit)
	}
	cfg, err := a.loadConfigOf(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	client, err := a.alertsClient(cfg)
	if err != nil {
		return err
	}
	as, skipped, err := client.Firing(ctx)
	if err != nil {
		return alertsFailure(err)
	}
	for _, s := range skipped {
		_ = a.io.ErrOut.Printf("superbiz: %s\n", s)
	}
	return a.printAlerts(as, opts)
}

// alertsClient is the Alertmanager client of [alerts], built by its
// integration with the credential its variable holds; a missing url or an
// unset variable is a configuration error (exit 2).
func (a *app) alertsClient(cfg *config.Config) (*alerts.Client, error) {
	return alertsource.Client(cfg, a.getenv)
}

// alertsFailure maps a failure to read or find alerts to its exit
// (workspace.AlertsFailure).
func alertsFailure(err error) error { return wsp.AlertsFailure(err) }

// printAlerts writes the newest limit alerts as a table (text, Markdown) or
// a JSON array; a note on stderr says how many more are firing.
func (a *app) printAlerts(as []alerts.Alert, opts *alertsOptions) error {
	shown := as[:min(len(as), opts.Limit)]
	if more := len(as) - len(shown); more > 0 {
		noun := "alerts"
		if more == 1 {
			noun = "alert"
		}
		_ = a.io.ErrOut.Printf("superbiz: %d more firing %s not shown (raise --limit)\n", more, noun)
	}
	switch {
	case opts.Output == outputJSON:
		return writeJSON(a.io.Out, shown)
	case len(shown) == 0:
		return a.io.Out.Print(egress.Const("No firing alerts.\n"))
	case opts.Output == outputMarkdown:
		return printMarkdownTable(a.io.Out, alertsTable(shown))
	}
	return printTextTable(a.io.Out, alertsTable(shown))
}

// alertsTable is the listing of `superbiz alerts` (docs/SPEC.md#superbiz-alerts).
func alertsTable(as []alerts.Alert) table {
	t := table{header: []string{"STARTED", "ALERT", "SEVERITY", "SERVICE", "INSTANCE", "SUMMARY", "FINGERPRINT"}}
	for _, al := range as {
		t.rows = append(t.rows, []string{
			al.StartsAt.Local().Format("2006-01-02 15:04"),
			orDash(cell(al.Name())),
			orDash(cell(al.Severity())),
			orDash(cell(al.Service())),
			orDash(cell(al.Instance())),
			orDash(textclip.Width(cell(al.Summary()), summaryColumnWidth)),
			al.Fingerprint,
		})
	}
	return t
}

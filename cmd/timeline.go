package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/demo"
	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	timelinesource "github.com/superbiz/superbiz/internal/integration/timeline"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of `superbiz timeline`'s window.
const (
	defaultTimelineSince = time.Hour
	minTimelineWindow    = 5 * time.Minute
	// timelineBeforeAlert is how far before an alert's start its timeline begins.
	timelineBeforeAlert = time.Hour
)

// timelineOptions are what `superbiz timeline` was given, the global
// flags included.
type timelineOptions struct {
	globalOptions
	Alert      string
	Since      time.Duration
	Start, End string
	Service    string
}

// newTimelineCmd is `superbiz timeline`; runF replaces runTimeline (tests),
// nil runs it.
func (a *app) newTimelineCmd(runF func(context.Context, *timelineOptions) error) *cobra.Command {
	opts := &timelineOptions{}
	c := &cobra.Command{
		Use:   "timeline",
		Short: "Order what changed, and when, from every source: alerts, metrics, errors, restarts",
		Long: `timeline builds the incident timeline of a window from every configured source
at once, without a model: alerts that started firing (Alertmanager, and the
ALERTS series Prometheus or vmalert keeps in each [[metrics]] source) and that
resolved (those ALERTS series), metrics that left their band
([[timeline.metrics]], and with --alert the series its rule compares), the
first minute of an error burst, error patterns the hour before never had,
process restarts and deploys (start-up lines, version changes) in the logs,
and Deployment rollouts, pod restarts and Warning events of [[kubernetes]]
sources. Each event cites the tool call whose observation shows it; the
coverage lists what each detector could not read, so a missing event is never
"nothing happened". The timeline is stored as a run (runs, runs show). The
window is --since back from now (default 1h; 2h with --demo, whose incident
began an hour before its clock), --start and --end, or the hour before an
alert's start up to now (--alert).

Exit codes: 0 built (even with no event), 2 a bad flag or configuration, 4
the Alertmanager of --alert unreachable, 130 cancelled.`,
		Example: `  superbiz timeline --demo
  superbiz timeline --start "2026-11-20 13:30:00" --end "2026-11-20 15:00:00" --service order-service
  superbiz timeline --alert HighLatency -o markdown`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.globalOptions = a.flags.options(cmd)
			return runWith(cmd.Context(), opts, runF, a.runTimeline)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Alert, "alert", "", "build the timeline of a firing alert (NAME or FINGERPRINT): from an hour before it started to now")
	f.DurationVar(&opts.Since, "since", 0, "the window back from now, 5m to 24h (default 1h; 2h with --demo)")
	f.StringVar(&opts.Start, "start", "", "window start: RFC 3339 or \"2006-01-02 15:04:05\" (local time); needs --end")
	f.StringVar(&opts.End, "end", "", "window end, same formats as --start")
	f.StringVar(&opts.Service, "service", "", "narrow the logs detectors to this service")
	c.MarkFlagsMutuallyExclusive("since", "start")
	c.MarkFlagsMutuallyExclusive("since", "alert")
	c.MarkFlagsMutuallyExclusive("start", "alert")
	c.MarkFlagsRequiredTogether("start", "end")
	return c
}

// runTimeline builds, stores and prints one timeline.
func (a *app) runTimeline(ctx context.Context, opts *timelineOptions) error {
	w, err := a.openEvidenceWorkspaceOf(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	d := w.Deps()
	now := time.Now()
	if d.Clock != nil {
		now = d.Clock.Now()
	}
	req := usecase.TimelineRequest{}
	var alertExpr *timeline.Metric
	if alertsource.Configured(w.Config) {
		client, err := alertsource.Client(w.Config, a.getenv)
		if err != nil {
			return err
		}
		req.Alerts = alertsource.TimelineReader{Client: client}
		if opts.Alert != "" {
			al, _, err := client.Find(ctx, opts.Alert)
			if err != nil {
				return alertsFailure(err)
			}
			opts.Start, opts.End = al.StartsAt.Add(-timelineBeforeAlert).UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339)
			if opts.Service == "" {
				opts.Service = al.Service()
			}
			m, note, ok := timelinesource.AlertMetric(ctx, w.Config, al)
			if ok {
				alertExpr = &m
			} else if note != "" {
				_ = a.io.ErrOut.Printf("superbiz: %s\n", egress.Mask(note).Shown())
			}
		}
	} else if opts.Alert != "" {
		_, err := alertsource.Client(w.Config, a.getenv) // says how to configure [alerts]
		return err
	}
	win, err := timelineWindow(opts, now)
	if err != nil {
		return err
	}
	req.Plan = timeline.Plan{Window: win, Service: strings.TrimSpace(opts.Service), Metrics: timelinesource.Metrics(w.Config), AlertExpr: alertExpr}
	req.Plan.Logs, req.Plan.AlertSeries = timelinesource.LogSources(w.Config), timelinesource.AlertSeries(w.Config)
	req.Plan.Kubernetes = timelinesource.KubernetesSources(w.Config)
	if len(req.Plan.Metrics) > 0 && len(metricsource.Entries(w.Config)) == 0 {
		return &ExitError{Code: ExitUsage, Err: errors.New("[[timeline.metrics]] names metrics but no [[metrics]] source is configured\nhint: add a [[metrics]] section with name and url (see docs/SPEC.md#configuration)")}
	}
	tl, err := d.Timeline(ctx, req)
	switch {
	case errors.Is(err, context.Canceled):
		return cancelled("the timeline")
	case err != nil:
		if full := storeFailure(w.Config.DBPath, err); full != err {
			return full
		}
		return err
	}
	return a.printTimeline(tl, opts.Output)
}

// timelineWindow is the absolute window the options give at now.
func timelineWindow(opts *timelineOptions, now time.Time) (timeline.Window, error) {
	if opts.Start != "" || opts.End != "" {
		if opts.Start == "" || opts.End == "" {
			return timeline.Window{}, usageErrorf("--start and --end go together")
		}
		start, err := parseFlagTime(opts.Start)
		if err != nil {
			return timeline.Window{}, usageErrorf("--start: %v", err)
		}
		end, err := parseFlagTime(opts.End)
		if err != nil {
			return timeline.Window{}, usageErrorf("--end: %v", err)
		}
		if !start.Before(end) {
			return timeline.Window{}, usageErrorf("--start %s is not before --end %s", opts.Start, opts.End)
		}
		if d := end.Sub(start); d < minTimelineWindow || d > timeline.MaxWindow {
			return timeline.Window{}, usageErrorf("the window is %s: give %s to %s", tools.FormatDuration(d), tools.FormatDuration(minTimelineWindow), tools.FormatDuration(timeline.MaxWindow))
		}
		return timeline.Window{Start: start.UTC(), End: end.UTC()}, nil
	}
	since := opts.Since
	if since == 0 {
		since = defaultTimelineSince
		if opts.Demo {
			since = demo.TimelineSince
		}
	}
	if since < minTimelineWindow || since > timeline.MaxWindow {
		return timeline.Window{}, usageErrorf("--since %s is out of range: give %s to %s", tools.FormatDuration(since), tools.FormatDuration(minTimelineWindow), tools.FormatDuration(timeline.MaxWindow))
	}
	return timeline.Window{Start: now.Add(-since).UTC(), End: now.UTC()}, nil
}

// parseFlagTime reads RFC 3339, or "2006-01-02 15:04:05" in local time.
func parseFlagTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.ParseInLocation(time.DateTime, strings.Replace(s, "T", " ", 1), time.Local)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor \"2006-01-02 15:04:05\"", s)
	}
	return t, nil
}

// printTimeline writes the timeline: JSON, Markdown, or a text table that
// fits 80 columns, then what was not fully read.
func (a *app) printTimeline(tl timeline.Timeline, output outputFormat) error {
	switch output {
	case outputJSON:
		return writeJSON(a.io.Out, tl)
	case outputMarkdown:
		return printPage(a.io.Out, timeline.Markdown(tl))
	}
	return printPage(a.io.Out, timelineText(tl, true))
}

// timelineText is the timeline as text for a person, 80 columns: one line
// per event and its summary wrapped under it, then what was not fully read.
// Without calls (a diagnosis's report, which names its checks, never Tool
// Call IDs) the lines leave the run and the calls out.
func timelineText(tl timeline.Timeline, calls bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Timeline %s – %s", tl.Window.Start.UTC().Format("2006-01-02 15:04"), tl.Window.End.UTC().Format("2006-01-02 15:04 UTC"))
	if calls {
		fmt.Fprintf(&b, " (run %s)", tl.RunID)
	}
	b.WriteString("\n")
	if len(tl.Events) == 0 {
		b.WriteString("No event found in the window.\n")
	}
	for _, e := range tl.Events {
		// one line for when, what kind, whose and the call; the summary under
		// it, wrapped to 80 columns
		fmt.Fprintf(&b, "%s  %-12s %s", e.At.UTC().Format("15:04:05"), e.Kind, orNone(e.Service))
		if calls {
			fmt.Fprintf(&b, "  [%s]", e.ToolCallID)
		}
		b.WriteString("\n")
		for l := range strings.SplitSeq(ansi.Wrap(strings.Join(strings.Fields(e.Summary), " "), 76, ""), "\n") {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	if gaps := timeline.Gaps(tl.Coverage); len(gaps) > 0 {
		b.WriteString("Not fully read:\n")
		for _, c := range gaps {
			line := fmt.Sprintf("%s on %s: %s", c.Detector, c.Source, c.Status)
			if c.Note != "" {
				line += " (" + c.Note + ")"
			}
			for l := range strings.SplitSeq(ansi.Wrap(line, 76, ""), "\n") {
				fmt.Fprintf(&b, "  %s\n", l)
			}
		}
	}
	return b.String()
}

// orNone is s, or "-" when empty.
func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

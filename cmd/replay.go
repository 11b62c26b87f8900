package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	timelinesource "github.com/superbiz/superbiz/internal/integration/timeline"
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/internal/tui"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// replayOptions are what `superbiz replay` was given, the global flags
// included.
type replayOptions struct {
	globalOptions
	ID        string
	LiveTools bool
	LiveModel bool
}

// newReplayCmd is `superbiz replay`; runF replaces runReplay (tests), nil
// runs it.
func (a *app) newReplayCmd(runF func(context.Context, *replayOptions) error) *cobra.Command {
	opts := &replayOptions{}
	c := &cobra.Command{
		Use:   "replay RUN_ID",
		Short: "Re-execute a stored diagnosis and report whether the outcome is identical",
		Long: `replay re-executes a stored DIAGNOSIS run through the same use case with its
recorded model responses and recorded tool observations, its recorded clock,
budget and previous turn, stores the replay as a new run linked to the original
(replay_of), and compares the intent, outcome, stop reason, published result
and the sequence of tool calls. A diagnosis made in chat is routed again from
its recorded router rounds, as chat routed it. --live-tools re-queries today's sources; --live-model
calls the configured model instead of the recording, and a tool call with no
recorded observation then gets evidence_status ERROR, error_code UNRECORDED.
A stored TIMELINE run is built again over its window from its recorded reads
and compared call by call and by its timeline.
Exit codes: 0 identical, 1 different, 2 a run that cannot be replayed.`,
		Example: `  superbiz replay 12
  superbiz replay --live-tools r_01jd2k9x
  superbiz replay --live-model --model qwen3:14b r_01jd2k9x -o json`,
		Args: exactArgs(1, "one RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.globalOptions, opts.ID = a.flags.options(cmd), args[0]
			return runWith(cmd.Context(), opts, runF, a.runReplay)
		},
	}
	c.Flags().BoolVar(&opts.LiveTools, "live-tools", false, "re-query today's sources instead of the recorded observations")
	c.Flags().BoolVar(&opts.LiveModel, "live-model", false, "call the configured model instead of playing the recorded responses")
	return c
}

// runReplay replays one stored run and reports whether it came out the same.
func (a *app) runReplay(ctx context.Context, opts *replayOptions) error {
	g := opts.globalOptions
	w, err := a.openWorkspaceOf(ctx, g)
	if err != nil {
		return err
	}
	defer func() { // the workspace in use at the end: a demo run reopens it
		if w != nil {
			_ = w.Close()
		}
	}()
	cfg := w.Config

	// Ask up front what Replay would refuse, so the refusal is a usage
	// error (exit 2) rather than a failed replay, and comes before any
	// warning about the run's tools.
	orig, err := runview.ReplayableRun(ctx, w.Store, opts.ID)
	if err != nil {
		return err
	}
	if err := usecase.Replayable(&orig.RunSummary); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if s, ok, _ := orig.DecodeSettings(); ok && s.Demo && !g.Demo {
		// The store knows the run was a demo run: replay it on the demo
		// workspace, as if --demo had been given.
		closeErr := w.Close()
		w = nil
		if closeErr != nil {
			return fmt.Errorf("close the run store: %w", closeErr)
		}
		g.Demo = true
		dw, err := a.openWorkspaceOf(ctx, g)
		if err != nil {
			return err
		}
		w, cfg = dw, dw.Config
		_ = a.io.ErrOut.Printf("superbiz: run %s was a demo run: replaying it on the demo workspace\n", orig.ID)
	}

	if missing := missingTools(orig, w.Adapters); len(missing) > 0 {
		hint := "configure them"
		if !g.Demo {
			hint += ", or add --demo if the run was a demo run"
		}
		_ = a.io.ErrOut.Printf("superbiz: warning: run %s used %s, not configured here: the replay will be refused those calls (%s)\n",
			orig.ID, strings.Join(missing, ", "), hint)
	}

	// Replay itself fixes the clock, budget and limits to the recorded ones.
	d := w.Deps()
	var printer *tui.LinePrinter
	if g.Output != outputJSON {
		printer = &tui.LinePrinter{W: a.io.ErrOut}
		d.Events = printer
	}
	ro := usecase.ReplayOptions{
		LiveTools: opts.LiveTools, LiveModel: opts.LiveModel, Adapters: w.Adapters, Playbooks: w.Playbooks,
		Timeline: timeline.Plan{Metrics: timelinesource.Metrics(cfg), Logs: timelinesource.LogSources(cfg), AlertSeries: timelinesource.AlertSeries(cfg), Kubernetes: timelinesource.KubernetesSources(cfg)},
	}
	if orig.Intent == runrecord.IntentTimeline && opts.LiveTools && alertsource.Configured(cfg) {
		client, err := alertsource.Client(cfg, a.getenv)
		if err != nil {
			return err
		}
		ro.LiveAlerts = alertsource.TimelineReader{Client: client}
	}
	rep, err := d.Replay(ctx, orig.ID, ro)
	if err != nil {
		return fmt.Errorf("replay %s: %w", orig.ID, err)
	}
	if rep.Differences == nil {
		rep.Differences = []string{}
	}
	for i, d := range rep.Differences {
		// They quote stored inputs: redacted as `runs show` shows them.
		rep.Differences[i] = egress.Mask(d).String()
	}
	if g.Output == outputJSON {
		if err := writeJSON(a.io.Out, rep); err != nil {
			return err
		}
	} else if err := writeReplayText(a.io.Out, rep, g.Output == outputMarkdown); err != nil {
		return err
	}
	if printer != nil && printer.Err() != nil {
		// Progress is a courtesy: the replay itself is stored and reported.
		_ = a.io.ErrOut.Printf("superbiz: progress lines stopped: %v\n", printer.Err())
	}
	if ctx.Err() != nil && outcomeExit(rep.Result) == ExitCancelled {
		return cancelled("the replay " + rep.ReplayRunID)
	}
	if opts.LiveModel && rep.Result.StopReason == runrecord.StopModelUnavailable {
		_ = a.io.ErrOut.Printf("hint: --live-model needs a reachable model: %s\n", strings.TrimPrefix(serverHint(cfg), "hint: "))
	}
	if !rep.Identical {
		return &ExitError{Code: ExitFailed}
	}
	return nil
}

// writeReplayText prints the verdict line and, when different, one line per
// difference (stored text, so control characters are stripped).
func writeReplayText(w egress.Writer, rep usecase.ReplayReport, markdown bool) error {
	var b egress.Builder
	verdict := egress.Const("identical")
	if !rep.Identical {
		verdict = egress.Const("different")
	}
	b.Printf("%s: replay %s of %s (%s)\n", verdict, cell(rep.ReplayRunID), cell(rep.OriginalRunID), outcomeWord(rep.Result))
	bullet := egress.Const("  - ")
	if markdown {
		bullet = egress.Const("- ")
		if len(rep.Differences) > 0 {
			b.Const("\n")
		}
	}
	for _, d := range rep.Differences {
		b.Add(bullet, egress.Mask(cell(d)), egress.Const("\n"))
	}
	if err := w.Print(b.Text()); err != nil {
		return fmt.Errorf("write replay report: %w", err)
	}
	return nil
}

// missingTools lists the evidence tools the run used that the current
// configuration does not provide, so a replay that is bound to differ for
// that reason says why before it starts.
func missingTools(orig *runstore.RunDetail, adapters []tools.Adapter) []string {
	// a timeline's read of Alertmanager is answered from its recording
	have := map[string]bool{timeline.AlertsTool: true}
	for _, ad := range adapters {
		have[ad.Definition().Name] = true
	}
	var missing []string
	for _, inv := range orig.Invocations {
		if inv.Kind != runrecord.KindEvidence || have[inv.Tool] || slices.Contains(missing, inv.Tool) {
			continue
		}
		missing = append(missing, cell(inv.Tool))
	}
	return missing
}

package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of a timeline run: its reads are not sent to a model, so their
// observations may be larger than an agent's, but every one is bounded.
const (
	// timelineObservation bounds one observation of a timeline's read.
	timelineObservation = 256 << 10
	// timelineRunBytes bounds what one timeline's observations hold.
	timelineRunBytes = 8 << 20
)

// TimelineRequest is one incident timeline: `superbiz timeline`.
type TimelineRequest struct {
	Plan timeline.Plan
	// Alerts is the read_alerts adapter when an Alertmanager is configured.
	Alerts tools.Adapter
	// ReplayOf links a replayed timeline to its original.
	ReplayOf string
	// Progress is told each detector's coverage and events as it finishes.
	Progress timeline.Progress
}

// TimelineQuery is the stored query of a timeline: its window, service
// and the alert expression it watched on one line, so `runs` shows what it
// covered and replay can build the same plan.
func TimelineQuery(p timeline.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "timeline %s..%s", p.Window.Start.UTC().Format(time.RFC3339), p.Window.End.UTC().Format(time.RFC3339))
	if p.Service != "" {
		fmt.Fprintf(&b, " service=%s", p.Service)
	}
	if p.AlertExpr != nil {
		// last: the expression may hold any text, " service=" too
		if expr, err := json.Marshal(p.AlertExpr); err == nil {
			fmt.Fprintf(&b, "%s%s", alertExprMark, expr)
		}
	}
	return b.String()
}

// alertExprMark starts the alert expression in a timeline's stored query.
const alertExprMark = " alert_expr="

// Timeline builds the incident timeline of req.Plan as a stored run of
// intent TIMELINE: every read is a tool call through a Boundary (audited,
// bounded, redacted), the events and coverage derived from their
// observations, the Markdown timeline its answer. No model is called. The
// returned error is for failures outside the run (the store).
func (d *Deps) Timeline(ctx context.Context, req TimelineRequest) (timeline.Timeline, error) {
	run := *d
	adapters := make([]tools.Adapter, 0, len(d.Tools.Names())+1)
	for _, name := range d.Tools.Names() {
		// the timeline's reads are its own calls, never build_timeline's
		if a, ok := d.Tools.Adapter(name); ok && name != timeline.ToolName {
			adapters = append(adapters, a)
		}
	}
	if req.Alerts != nil {
		adapters = append(adapters, req.Alerts)
		req.Plan.Alerts = true
	} else {
		req.Plan.Alerts = false
	}
	var err error
	if run.Tools, err = harness.NewToolset(adapters, nil); err != nil {
		return timeline.Timeline{}, fmt.Errorf("timeline tools: %w", err)
	}
	calls := 1 + timeline.LogCalls*len(req.Plan.Logs) + len(req.Plan.Metrics) + len(req.Plan.AlertSeries) + timeline.KubeCalls(len(req.Plan.Kubernetes)) + 1
	run.Budget.MaxToolCalls = min(max(run.Budget.MaxToolCalls, calls), 100)
	run.Budget.MaxRunBytes = max(run.Budget.MaxRunBytes, timelineRunBytes)
	sessionID, err := run.resolveSession(context.WithoutCancel(ctx), "", false)
	if err != nil {
		return timeline.Timeline{}, err
	}
	rc, err := run.openRun(ctx, sessionID, TimelineQuery(req.Plan), runrecord.IntentTimeline, req.ReplayOf, nil)
	if err != nil {
		return timeline.Timeline{}, err
	}
	defer rc.Release()
	c := &timelineCaller{b: harness.NewBoundary(rc, run.Tools, timelineObservation)}
	tl, buildErr := timeline.Build(rc.Context(), req.Plan, c.call, req.Progress)
	tl.RunID = rc.RunID()
	reason, proposed := runrecord.StopCompleted, runrecord.OutcomeSuccess
	if rc.Interrupted() == runrecord.StopCancelled || errors.Is(buildErr, context.Canceled) {
		reason, proposed = runrecord.StopCancelled, runrecord.OutcomeCancelled
	} else if buildErr != nil {
		reason, proposed = runrecord.StopInternal, runrecord.OutcomeFailed
	}
	end := rc.End(reason, proposed)
	u := rc.Usage()
	u.DurationMS = rc.Elapsed().Milliseconds()
	fin := runstore.Finish{Status: end.Outcome.Status(), StopReason: end.Reason, Lifecycle: end.Lifecycle, Usage: u, Answer: timeline.Markdown(tl)}
	if buildErr != nil {
		fin.ErrorCode, fin.ErrorMessage = string(end.Reason), "the timeline stopped: "+buildErr.Error()
	}
	auditErr := rc.AuditError()
	if err := d.Store.FinishRun(context.WithoutCancel(ctx), rc.RunID(), fin); err != nil {
		return tl, errors.Join(auditErr, fmt.Errorf("store the timeline: %w", err))
	}
	rc.Emit(harness.RunFinished{Meta: rc.Meta(), Lifecycle: end.Lifecycle, StopReason: end.Reason, Usage: u, Duration: rc.Elapsed(), Outcome: end.Outcome, Answer: fin.Answer})
	if auditErr != nil {
		return tl, auditErr
	}
	if buildErr != nil && reason != runrecord.StopCancelled {
		return tl, buildErr
	}
	if reason == runrecord.StopCancelled {
		return tl, context.Canceled
	}
	return tl, nil
}

// timelineCaller makes the timeline's reads through the Boundary as an
// agent's calls are made: numbered IDs, the envelope, and the evaluation
// the harness asks for after evidence (GAINED: the timeline reads on).
type timelineCaller struct {
	b       *harness.Boundary
	n       int
	pending string // the last EVIDENCE_FOUND call, to evaluate
}

func (c *timelineCaller) call(ctx context.Context, tool string, input any) (timeline.Observed, error) {
	if err := ctx.Err(); err != nil {
		return timeline.Observed{}, err
	}
	c.n++
	env := map[string]any{"input": input}
	if c.pending != "" {
		env["previous_observation"] = map[string]string{"tool_call_id": c.pending, "evaluation": "GAINED"}
	}
	args, err := json.Marshal(env)
	if err != nil {
		return timeline.Observed{}, fmt.Errorf("timeline: encode the %s input: %w", tool, err)
	}
	id := fmt.Sprintf("call_%d", c.n)
	raw := c.b.Handle(model.ToolCall{ID: id, Name: tool, Arguments: args})
	var o timeline.Observed
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return timeline.Observed{}, fmt.Errorf("timeline: read the %s observation: %w", tool, err)
	}
	if o.ToolCallID == "" {
		o.ToolCallID = id
	}
	if invs := c.b.Invocations(); len(invs) > 0 {
		o.Detail = invs[len(invs)-1].Detail
	}
	if o.EvidenceStatus == tools.EvidenceFound {
		c.pending = o.ToolCallID
	}
	if o.ErrorCode == tools.CodeCancelled {
		return o, context.Canceled
	}
	return o, nil
}

// parseTimelineQuery reads back the window, alert expression and service
// TimelineQuery wrote.
func parseTimelineQuery(q string) (timeline.Window, *timeline.Metric, string, error) {
	rest, ok := strings.CutPrefix(q, "timeline ")
	rest, expr, hasExpr := strings.Cut(rest, alertExprMark)
	span, service, _ := strings.Cut(rest, " service=")
	lo, hi, ok2 := strings.Cut(span, "..")
	start, err1 := time.Parse(time.RFC3339, lo)
	end, err2 := time.Parse(time.RFC3339, hi)
	if !ok || !ok2 || err1 != nil || err2 != nil {
		return timeline.Window{}, nil, "", fmt.Errorf("the stored query %q is not a timeline's window", q)
	}
	var m *timeline.Metric
	if hasExpr {
		m = &timeline.Metric{}
		if err := json.Unmarshal([]byte(expr), m); err != nil {
			return timeline.Window{}, nil, "", fmt.Errorf("the stored query %q: its alert expression: %w", q, err)
		}
	}
	return timeline.Window{Start: start.UTC(), End: end.UTC()}, m, service, nil
}

// replayTimeline builds a stored TIMELINE run's timeline again over the
// same window and service, each read answered by the observation recorded
// for the same tool and input (live with o.LiveTools), stores it as a new
// run linked to the original and compares the two: the calls and the
// timeline (the stored Markdown answer).
func (d *Deps) replayTimeline(ctx context.Context, orig *runstore.RunDetail, o ReplayOptions) (ReplayReport, error) {
	w, alertExpr, service, err := parseTimelineQuery(orig.Query)
	if err != nil {
		return ReplayReport{}, fmt.Errorf("run %s: %w", orig.ID, err)
	}
	adapters := o.Adapters
	var alerts tools.Adapter = alertsReader{}
	if !o.LiveTools {
		adapters = make([]tools.Adapter, len(o.Adapters))
		for i, a := range o.Adapters {
			adapters[i] = recordedTool{live: a, recorded: orig.Invocations}
		}
		alerts = recordedTool{live: alerts, recorded: orig.Invocations}
	}
	if d.Tools, err = harness.NewToolset(adapters, o.Playbooks); err != nil {
		return ReplayReport{}, err
	}
	req := TimelineRequest{Plan: timeline.Plan{Window: w, Service: service, Logs: o.Timeline.Logs, Metrics: o.Timeline.Metrics, AlertExpr: alertExpr, AlertSeries: o.Timeline.AlertSeries, Kubernetes: o.Timeline.Kubernetes}, ReplayOf: orig.ID}
	if slices.ContainsFunc(orig.Invocations, func(inv runrecord.Invocation) bool { return inv.Tool == timeline.AlertsTool }) {
		// the original read Alertmanager: today's live one when asked, else its recording
		req.Alerts = alerts
		if o.LiveTools {
			req.Alerts = o.LiveAlerts
		}
	}
	tl, err := d.Timeline(ctx, req)
	if tl.RunID == "" {
		return ReplayReport{}, err
	}
	again, gerr := d.Store.GetRun(context.WithoutCancel(ctx), tl.RunID)
	if gerr != nil {
		return ReplayReport{}, errors.Join(err, fmt.Errorf("load replay run: %w", gerr))
	}
	diffs := compareRuns(orig, again)
	diffs = append(diffs, answerDiffs(orig.Answer, again.Answer)...)
	out := Output{SessionID: again.SessionID, RunID: again.ID, Intent: again.Intent, Status: again.Status, ReleaseOutcome: again.ReleaseOutcome,
		StopReason: again.StopReason, Answer: again.Answer, Checks: []runrecord.Check{}, Timeline: &tl}
	return ReplayReport{OriginalRunID: orig.ID, ReplayRunID: again.ID, Identical: len(diffs) == 0, Differences: diffs, Result: out}, err
}

// maxAnswerDiffs bounds the lines answerDiffs names each way.
const maxAnswerDiffs = 8

// answerDiffs names how two Markdown timelines differ: the original's
// lines the replay lacks ("-") and the replay's lines the original lacks
// ("+"), at most maxAnswerDiffs each way; none when they are equal.
func answerDiffs(orig, again string) []string {
	if orig == again {
		return nil
	}
	was, now := strings.Split(orig, "\n"), strings.Split(again, "\n")
	var out []string
	for _, side := range []struct {
		mark       string
		lines, not []string
	}{{"-", was, now}, {"+", now, was}} {
		n := 0
		for _, l := range side.lines {
			if l == "" || slices.Contains(side.not, l) {
				continue
			}
			if n++; n <= maxAnswerDiffs {
				out = append(out, "timeline differs: "+side.mark+" "+l)
			}
		}
		if n > maxAnswerDiffs {
			out = append(out, fmt.Sprintf("timeline differs: %s %d more lines", side.mark, n-maxAnswerDiffs))
		}
	}
	if len(out) == 0 {
		// the same lines in another order or count
		out = append(out, "timeline differs: the same lines, in another order")
	}
	return out
}

// alertsReader stands for read_alerts where no Alertmanager is configured:
// its definition and canonical input, for the recorded observations.
type alertsReader struct{}

func (alertsReader) Definition() model.Tool { return timeline.AlertsDefinition() }

func (alertsReader) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return timeline.AlertsCanonical(in)
}

func (alertsReader) Execute(context.Context, tools.Call) tools.Outcome {
	return tools.Failed(tools.CodeUnavailable, errors.New("read_alerts: no Alertmanager configured"))
}

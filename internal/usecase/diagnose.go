// Package usecase is the application use case: it resolves the session, opens
// one stored run and one RunContext per request, runs the chosen executor
// (the diagnosis agent and release, or the chat router's executors),
// persists the single terminal outcome and reports it. It owns no diagnosis
// semantics and never prints.
package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/diagnosis"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Deps are the implementations cmd wires into the use case.
type Deps struct {
	Store     *runstore.Store
	Model     model.ChatModel
	ModelName string
	Host      string
	// Provider names the model provider, recorded with the run (ollama,
	// openai, or demo for the scripted demo transcript).
	Provider string
	// Note is said with every answer of these deps (the scripted demo
	// transcript's notice), so a reader of the output alone sees it; "" for none.
	Note     string
	Tools    *harness.Toolset
	Budget   harness.Budget
	Limits   agent.Limits
	Language string
	// ToolGuide is the prompt's list of the evidence tools by language
	// (registry.ToolGuide, agent.Config.ToolGuide).
	ToolGuide map[string]string
	// Demo marks the runs as made on the built-in demo workspace (stored in
	// their settings, so replay finds that workspace by itself).
	Demo bool
	// Clock fixes the run's notion of now (SUPERBIZ_NOW, replay); nil is real time.
	Clock harness.Clock
	// Events receives every run event (TUI, progress lines); nil drops them.
	Events harness.Sink
	// NewID makes session and run IDs; nil uses the store's time-ordered IDs.
	NewID func(prefix string) string
	// FindAlert finds the alert of `diagnose --alert` and chat's "/alert
	// REF" ([alerts] url); nil answers such a message with an *AlertError.
	FindAlert FindAlert
	// WatchAlert gives the series an alert's rule compares, which the
	// alert's diagnosis has build_timeline watch; nil watches none.
	WatchAlert WatchAlert
}

// DiagnoseRequest is one `superbiz diagnose` invocation.
type DiagnoseRequest struct {
	Query     string
	SessionID string
	// Continue picks the most recent session when SessionID is empty.
	Continue bool
	// ReplayOf links a replayed run to its original.
	ReplayOf string
	// FixedPreviousTurn makes the run use PreviousTurn as given (replay)
	// instead of loading the session's last safe diagnosis.
	FixedPreviousTurn bool
	PreviousTurn      *agent.PreviousTurn
	// OnStart is told the stored run's identity (see StartFunc); nil ignores it.
	OnStart StartFunc
}

// StartFunc is the one run-start hook of Diagnose and Chat: called once,
// after the run is stored and before any work, with its identifiers and a
// cancel that cancels that run's RunContext (client disconnect; safe from
// any goroutine), so a late executor result cannot complete it.
type StartFunc func(sessionID, runID string, cancel func())

// Output is a finished run as `-o json` prints it (docs/SPEC.md#diagnose--o-json).
type Output struct {
	SessionID      string                   `json:"session_id"`
	RunID          string                   `json:"run_id"`
	Intent         string                   `json:"intent"`
	Status         runrecord.RunStatus      `json:"status"`
	ReleaseOutcome runrecord.Outcome        `json:"release_outcome"`
	StopReason     runrecord.StopReason     `json:"stop_reason"`
	Answer         string                   `json:"answer"`
	Result         *release.PublishedResult `json:"result"`
	Checks         []runrecord.Check        `json:"checks"`
	Usage          runrecord.Usage          `json:"usage"`
	Error          *OutputError             `json:"error"`
	// Model is the model that answered the run: model.name, or the
	// scripted demo transcript.
	Model string `json:"model"`
	// Provider is the provider that served the model: ollama, openai, or
	// demo for the scripted demo transcript.
	Provider string `json:"provider"`
	// Note is said with the answer (the scripted demo transcript's notice,
	// or which of several same-named alerts chat's "/alert REF" picked);
	// nil for none, so its schema says null too (an MCP client validates
	// diagnose's structured result against it).
	Note *string `json:"note" jsonschema:"nullable"`
	// Timeline is the incident timeline the agent built (its last
	// build_timeline call that completed), else nil.
	Timeline *timeline.Timeline `json:"timeline"`
	// ModelError is the model server failure that ended the run, for the
	// command's exit code and hint; not part of the JSON output.
	ModelError *model.Error `json:"-"`
}

// OutputError explains a failed run with a stable code.
type OutputError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Diagnose runs one DIAGNOSIS run end to end: PreviousTurn, agent, release,
// persistence. The returned error is for failures outside the run (the store);
// a failed run is an Output with status FAILED.
func (d *Deps) Diagnose(ctx context.Context, req DiagnoseRequest) (Output, error) {
	// The query as a run takes it in, before the model, the store, the
	// events or the output see it: control characters stripped and secrets
	// (an api_key=… pasted into a question) masked; idempotent, so a stored
	// query replays as is.
	req.Query = egress.Mask(req.Query).Shown().String()
	// An accepted run is stored even when its caller cancelled it already
	// (queued for a slot): it then ends CANCELLED.
	sessionID, err := d.resolveSession(context.WithoutCancel(ctx), req.SessionID, req.Continue)
	if err != nil {
		return Output{}, err
	}
	prev := req.PreviousTurn
	if !req.FixedPreviousTurn {
		prev = d.previousTurn(ctx, sessionID, req.Query)
	}
	rc, err := d.openRun(ctx, sessionID, req.Query, runrecord.IntentDiagnosis, req.ReplayOf, req.OnStart)
	if err != nil {
		return Output{}, err
	}
	defer rc.Release()

	dec := diagnosis.Diagnose(rc, diagnosis.Config{Model: d.Model, Tools: d.Tools, Limits: d.Limits, Language: d.Language, ToolGuide: d.ToolGuide, Hints: cliHints()}, diagnosis.Request{Query: req.Query, PreviousTurn: prev})
	out, err := d.finish(rc, runrecord.IntentDiagnosis, dec)
	if err != nil || !slices.ContainsFunc(out.Checks, func(c runrecord.Check) bool { return c.Tool == timeline.ToolName }) {
		return out, err
	}
	// the timeline the model saw is the one its run stored
	run, gerr := d.Store.GetRun(context.WithoutCancel(ctx), out.RunID)
	if gerr != nil {
		return out, fmt.Errorf("read the run's timeline: %w", gerr)
	}
	if out.Timeline = usedTimeline(run.Invocations); out.Timeline != nil {
		out.Timeline.RunID = out.RunID
	}
	return out, nil
}

// usedTimeline is the timeline of the run's last build_timeline call that
// completed with a result, as the model saw it; nil when there is none.
func usedTimeline(invs []runrecord.Invocation) *timeline.Timeline {
	for i := len(invs) - 1; i >= 0; i-- {
		inv := invs[i]
		if inv.Tool != timeline.ToolName || inv.Kind != runrecord.KindEvidence ||
			(inv.EvidenceStatus != tools.EvidenceFound && inv.EvidenceStatus != tools.NoEvidence) {
			continue
		}
		var obs struct {
			Result *timeline.Timeline `json:"result"`
		}
		if json.Unmarshal(inv.Observation, &obs) == nil && obs.Result != nil {
			return obs.Result
		}
	}
	return nil
}

// openRun stores a new RUNNING run (with the settings it runs under), opens
// its RunContext, tells onStart and emits RunStarted; the caller releases it.
// The run is stored even when ctx has ended: its RunContext is then
// interrupted at once and the run ends CANCELLED, audited like any other.
func (d *Deps) openRun(ctx context.Context, sessionID, query, intent, replayOf string, onStart StartFunc) (*harness.RunContext, error) {
	clock := d.Clock
	if clock == nil {
		clock = harness.SystemClock{}
	}
	runID := d.newID("r_")
	rc, err := diagnosis.Start(ctx, d.Store, runstore.NewRun{
		ID: runID, SessionID: sessionID, Query: query, Intent: intent,
		Model: d.ModelName, Host: d.Host, Clock: clock.Now(), Settings: d.storedSettings(), ReplayOf: replayOf,
	}, harness.RunOptions{Budget: d.Budget, Clock: clock, Events: d.Events})
	if err != nil {
		return nil, err
	}
	if onStart != nil {
		onStart(sessionID, runID, rc.Cancel)
	}
	rc.Emit(harness.RunStarted{Meta: rc.Meta(), Query: query, Budget: d.Budget})
	return rc, nil
}

// finish stores the run's single terminal record and reports it. A run
// whose audit could not be written ends FAILED saying so (not as an
// anonymous internal error), and the write failure is returned: the caller
// reports it (a full disk) instead of an answer whose audit is missing.
func (d *Deps) finish(rc *harness.RunContext, intent string, dec release.Decision) (Output, error) {
	res, err := diagnosis.Finish(rc, d.Store, dec)
	out := Output{
		SessionID: res.SessionID, RunID: res.RunID, Intent: intent,
		Status: res.Decision.Outcome.Status(), ReleaseOutcome: res.Decision.Outcome, StopReason: res.Decision.StopReason,
		Answer: res.Decision.Answer, Result: res.Decision.Published, Checks: res.Checks,
		Usage: res.Usage, ModelError: res.Decision.ModelError,
		Model: d.ModelName, Provider: runrecord.Settings{Provider: d.Provider}.ProviderName(),
	}
	if d.Note != "" {
		note := d.Note
		out.Note = &note
	}
	if res.RunID == "" {
		return Output{}, err
	}
	if res.Decision.ErrorCode != "" {
		out.Error = &OutputError{Code: res.Decision.ErrorCode, Message: res.Decision.ErrorMessage}
	}
	return out, err
}

// resolveSession returns the session to use, creating it when needed.
func (d *Deps) resolveSession(ctx context.Context, id string, cont bool) (string, error) {
	if id == "" && cont {
		latest, ok, err := d.Store.LatestSessionID(ctx)
		if err != nil {
			return "", fmt.Errorf("find the latest session: %w", err)
		}
		if ok {
			return latest, nil
		}
	}
	if id != "" {
		if _, err := d.Store.GetSession(ctx, id); err != nil {
			if errors.Is(err, runstore.ErrNotFound) {
				return "", &notfound.Error{Kind: "session", Name: id, Hint: "`superbiz runs` lists the runs with their sessions"}
			}
			return "", fmt.Errorf("look up session %s: %w", id, err)
		}
		return id, nil
	}
	id = d.newID("s_")
	if err := d.Store.CreateSession(ctx, id); err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return id, nil
}

// previousTurn loads the session's last safe diagnosis, or nil: corrupt or
// blank stored results never reach the model.
func (d *Deps) previousTurn(ctx context.Context, sessionID, query string) *agent.PreviousTurn {
	safe, ok, err := d.Store.LastSafeDiagnosis(ctx, sessionID)
	if err != nil || !ok {
		return nil
	}
	pub, err := release.ParsePublished(safe.PublishedResult)
	if err != nil {
		return nil
	}
	// The previous turn must fit beside the query in limits.input too.
	q, _ := json.Marshal(query)
	limit := min(d.Limits.PreviousTurn, d.Limits.Input-len(q)-len(`{"query":,"previous_turn":}`))
	if limit <= 0 {
		return nil
	}
	return pub.PreviousTurn(limit)
}

func (d *Deps) newID(prefix string) string {
	if d.NewID != nil {
		return d.NewID(prefix)
	}
	return d.Store.NewID(prefix)
}

// NewID makes one time-ordered random ID with prefix (runstore.IDs), for a
// run that is not stored; stored runs take theirs from the store.
func NewID(prefix string) string {
	var ids runstore.IDs
	return ids.New(prefix)
}

package usecase

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ReplayOptions choose what is live in a replay.
type ReplayOptions struct {
	// LiveTools re-queries today's sources instead of the recorded observations.
	LiveTools bool
	// LiveModel calls d.Model instead of playing the recorded rounds.
	LiveModel bool
	// Adapters are the live evidence adapters (their definitions and
	// canonical inputs are used even when observations are recorded).
	Adapters  []tools.Adapter
	Playbooks tools.Playbooks
	// Timeline is the configured sources a replayed TIMELINE run reads
	// (Logs, Metrics); its window and service are the run's own.
	Timeline timeline.Plan
	// LiveAlerts is the read_alerts adapter of the configured Alertmanager
	// for a TIMELINE run replayed with LiveTools (nil: none configured).
	LiveAlerts tools.Adapter
}

// ReplayReport compares a replay with its original run.
type ReplayReport struct {
	OriginalRunID string   `json:"original_run_id"`
	ReplayRunID   string   `json:"replay_run_id"`
	Identical     bool     `json:"identical"`
	Differences   []string `json:"differences"`
	Result        Output   `json:"result"`
}

// NotReplayableError says why Replay refuses a stored run; cmd reports it
// as a usage error (exit 2).
type NotReplayableError struct {
	RunID  string
	Reason string
}

func (e *NotReplayableError) Error() string { return "run " + e.RunID + " " + e.Reason }

// Replayable is the one statement of Replay's preconditions: only a
// finished DIAGNOSIS or TIMELINE run can be replayed. It returns a *NotReplayableError
// otherwise; cmd asks it before warning about tools the run used.
func Replayable(run *runstore.RunSummary) error {
	switch {
	case run.Intent == runrecord.IntentToolCall:
		return &NotReplayableError{RunID: run.ID, Reason: "is a direct tool call (TOOL_CALL), not a diagnosis: only DIAGNOSIS runs can be replayed; `superbiz tools call` runs a tool again"}
	case run.Intent != runrecord.IntentDiagnosis && run.Intent != runrecord.IntentTimeline:
		intent := egress.Mask(termsafe.Line(run.Intent)).String()
		if intent == "" {
			intent = "-"
		}
		return &NotReplayableError{RunID: run.ID, Reason: "has intent " + intent + ": only DIAGNOSIS and TIMELINE runs can be replayed"}
	case run.Status == runrecord.RunStatusRunning:
		return &NotReplayableError{RunID: run.ID, Reason: "is still running: replay it once it has finished"}
	}
	return nil
}

// Replay re-executes a stored DIAGNOSIS run through the same use case with
// its recorded model rounds and tool observations, clock, budget and
// previous turn, stores it as a new run linked to the original and compares.
func (d *Deps) Replay(ctx context.Context, runID string, o ReplayOptions) (ReplayReport, error) {
	orig, err := d.Store.GetRun(ctx, runID)
	if err != nil {
		return ReplayReport{}, fmt.Errorf("load run %s: %w", runID, err)
	}
	if err := Replayable(&orig.RunSummary); err != nil {
		return ReplayReport{}, err
	}
	rd := *d
	settings, ok, err := orig.DecodeSettings()
	if err != nil {
		return ReplayReport{}, fmt.Errorf("run %s: %w", runID, err)
	}
	if ok {
		rd.useStoredSettings(settings)
	}
	if !orig.Clock.IsZero() {
		rd.Clock = harness.FixedClock{T: orig.Clock}
	}
	if orig.Intent == runrecord.IntentTimeline {
		return rd.replayTimeline(ctx, orig, o)
	}
	if !o.LiveModel {
		steps, err := recordedSteps(orig.ModelRounds)
		if err != nil {
			return ReplayReport{}, fmt.Errorf("run %s: %w", runID, err)
		}
		rd.Model = replay.NewSteps(steps)
		rd.ModelName = "replay of " + runID
		// The answers are the original provider's, as recorded.
		rd.Provider = ""
		if ok {
			rd.Provider = settings.Provider
		}
	}
	adapters := o.Adapters
	if !o.LiveTools {
		adapters = make([]tools.Adapter, len(o.Adapters))
		for i, a := range o.Adapters {
			adapters[i] = recordedTool{live: a, recorded: orig.Invocations}
		}
	}
	if rd.Tools, err = harness.NewToolset(adapters, o.Playbooks); err != nil {
		return ReplayReport{}, err
	}
	prev, err := recordedPreviousTurn(orig.ModelRounds)
	if err != nil {
		return ReplayReport{}, fmt.Errorf("run %s: %w", runID, err)
	}
	out, err := rd.replayRun(ctx, orig, prev)
	if err != nil {
		return ReplayReport{}, err
	}
	again, err := d.Store.GetRun(context.WithoutCancel(ctx), out.RunID)
	if err != nil {
		return ReplayReport{}, fmt.Errorf("load replay run: %w", err)
	}
	diffs := compareRuns(orig, again)
	return ReplayReport{OriginalRunID: runID, ReplayRunID: out.RunID, Identical: len(diffs) == 0, Differences: diffs, Result: out}, nil
}

// replayRun runs the original again the way it was made: a diagnosis made
// in chat (its rounds begin with the router's) through chat's router and
// executor, with the router's recorded memory of the session, so its router
// rounds are routed again and spend the budget they spent; any other
// through Diagnose. Either gets the recorded PreviousTurn, and a new
// session.
func (d *Deps) replayRun(ctx context.Context, orig *runstore.RunDetail, prev *agent.PreviousTurn) (Output, error) {
	routed, lastIntent, lastQuery, err := recordedRouting(orig.ModelRounds)
	if err != nil {
		return Output{}, fmt.Errorf("run %s: %w", orig.ID, err)
	}
	if !routed {
		return d.Diagnose(ctx, DiagnoseRequest{Query: orig.Query, ReplayOf: orig.ID, FixedPreviousTurn: true, PreviousTurn: prev})
	}
	query := egress.Mask(orig.Query).Shown().String() // as Chat takes it in
	sessionID, err := d.resolveSession(ctx, "", false)
	if err != nil {
		return Output{}, err
	}
	turn := chatTurn{lastIntent: lastIntent, lastQuery: lastQuery, previousTurn: func(context.Context) *agent.PreviousTurn { return prev }}
	return d.chatRun(ctx, sessionID, query, orig.ID, turn, nil, nil)
}

// recordedRouting reports whether the run was routed by chat (its first
// round is the router's) and the router's memory it was given: the last
// intent and query of the recorded router request, "" where it had none.
func recordedRouting(rounds []runrecord.ModelRound) (routed bool, lastIntent, lastQuery string, err error) {
	if len(rounds) == 0 || rounds[0].Purpose != runrecord.PurposeRouter {
		return false, "", "", nil
	}
	in, err := recordedUserMessage[routerInput](rounds[0].Request)
	if err != nil {
		return true, "", "", fmt.Errorf("recorded router request: %w", err)
	}
	if in.LastIntent != nil {
		lastIntent = *in.LastIntent
	}
	if in.LastQuery != nil {
		lastQuery = *in.LastQuery
	}
	return true, lastIntent, lastQuery, nil
}

// recordedSteps turns stored rounds back into what the model answered.
func recordedSteps(rounds []runrecord.ModelRound) ([]replay.Step, error) {
	steps := make([]replay.Step, 0, len(rounds))
	for _, r := range rounds {
		if len(r.Response) == 0 {
			kind := model.ErrorKind(r.ErrorKind)
			if kind == "" || runrecord.StopReason(r.ErrorKind) == runrecord.StopCancelled {
				kind = model.ErrCancelled
			}
			steps = append(steps, replay.Step{Err: kind})
			continue
		}
		var resp model.Response
		if err := json.Unmarshal(r.Response, &resp); err != nil {
			return nil, fmt.Errorf("model round %d: recorded response: %w", r.Seq, err)
		}
		steps = append(steps, replay.Step{Response: resp})
	}
	return steps, nil
}

// recordedPreviousTurn reads the previous turn the original run was given
// from the agent's first request (its first DIAGNOSIS round: in chat the
// router's came before it); nil when the agent made none.
func recordedPreviousTurn(rounds []runrecord.ModelRound) (*agent.PreviousTurn, error) {
	for _, r := range rounds {
		if r.Purpose != runrecord.PurposeDiagnosis {
			continue
		}
		in, err := recordedUserMessage[struct {
			PreviousTurn *agent.PreviousTurn `json:"previous_turn"`
		}](r.Request)
		if err != nil {
			return nil, fmt.Errorf("recorded agent input: %w", err)
		}
		return in.PreviousTurn, nil
	}
	return nil, nil
}

// recordedUserMessage decodes the JSON of a recorded request's first user
// message (the zero T when it has none).
func recordedUserMessage[T any](request json.RawMessage) (T, error) {
	var (
		req model.Request
		in  T
	)
	if err := json.Unmarshal(request, &req); err != nil {
		return in, err
	}
	for _, m := range req.Messages {
		if m.Role == model.RoleUser {
			err := json.Unmarshal([]byte(m.Content), &in)
			return in, err
		}
	}
	return in, nil
}

// recordedTool answers with the observation recorded for the same tool and
// canonical input, or ERROR UNRECORDED; it never calls the real source.
type recordedTool struct {
	live     tools.Adapter
	recorded []runrecord.Invocation
}

func (r recordedTool) Definition() model.Tool { return r.live.Definition() }

func (r recordedTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return r.live.Canonical(in)
}

// Tally is the one the original recorded with this result, so a replayed
// report's check lines read as the original's even after the adapter's
// words changed (a stored "412 matched" is not "published result differs"
// from today's "412 matched, first 09:10:03"); the live adapter's over the
// recorded result when none was recorded.
func (r recordedTool) Tally(result json.RawMessage) string {
	name := r.live.Definition().Name
	for _, inv := range r.recorded {
		if inv.Tally == "" || inv.Kind != runrecord.KindEvidence || inv.Tool != name {
			continue
		}
		var obs struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(inv.Observation, &obs) == nil && jsonEqual(runstore.Redacted(obs.Result), runstore.Redacted(result)) {
			return inv.Tally
		}
	}
	if t, ok := r.live.(tools.Tallier); ok {
		return t.Tally(result)
	}
	return ""
}

// Execute matches in the stored (redacted) form: a recorded tool call whose
// SQL held a secret was stored with it masked, and the replayed model round
// sends it masked, so both sides are compared redacted.
func (r recordedTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	want := runstore.Redacted(call.Input)
	for _, inv := range r.recorded {
		if inv.Kind != runrecord.KindEvidence || inv.Tool != call.Tool || !bytes.Equal(runstore.Redacted(inv.Input), want) {
			continue
		}
		out, ok := runstore.RecordedOutcome(inv.Observation)
		if !ok {
			// A discarded or stopped observation holds no result to replay.
			break
		}
		return out
	}
	return tools.Failed(tools.CodeUnrecorded, fmt.Errorf("no recorded observation for %s %s", call.Tool, want))
}

// compareRuns lists what differs between two runs in the ways replay checks,
// comparing redacted forms (what the store keeps).
func compareRuns(a, b *runstore.RunDetail) []string {
	var diffs []string
	field := func(name, x, y string) {
		if x != y {
			diffs = append(diffs, fmt.Sprintf("%s: %q → %q", name, x, y))
		}
	}
	field("intent", a.Intent, b.Intent)
	field("status", string(a.Status), string(b.Status))
	field("release_outcome", string(a.ReleaseOutcome), string(b.ReleaseOutcome))
	field("stop_reason", string(a.StopReason), string(b.StopReason))
	if !jsonEqual(runstore.Redacted(a.PublishedResult), withoutChecksUnlike(runstore.Redacted(a.PublishedResult), runstore.Redacted(b.PublishedResult))) {
		diffs = append(diffs, "published result differs")
	}
	sa, sb := toolSequence(a.Invocations), toolSequence(b.Invocations)
	if !slices.Equal(sa, sb) {
		diffs = append(diffs, fmt.Sprintf("tool calls: %d recorded, %d replayed", len(sa), len(sb)))
		for i := 0; i < max(len(sa), len(sb)); i++ {
			x, y := at(sa, i), at(sb, i)
			if x != y {
				diffs = append(diffs, fmt.Sprintf("tool call %d: %s → %s", i+1, x, y))
			}
		}
	}
	return diffs
}

func toolSequence(invs []runrecord.Invocation) []string {
	out := make([]string, 0, len(invs))
	for _, inv := range invs {
		status := string(inv.EvidenceStatus)
		if inv.Control != "" {
			status = inv.Control
		}
		if inv.ErrorCode != "" {
			status += " " + inv.ErrorCode
		}
		out = append(out, fmt.Sprintf("%s %s %s [%s]", inv.ToolCallID, inv.Tool, runstore.Redacted(inv.Input), status))
	}
	return out
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// withoutChecksUnlike drops the findings' check lines from the replayed
// result b when the original a was stored before findings had them, so an
// older run replays the same; otherwise b is returned as it is.
func withoutChecksUnlike(a, b json.RawMessage) json.RawMessage {
	var orig, replayed map[string]any
	if json.Unmarshal(a, &orig) != nil || json.Unmarshal(b, &replayed) != nil {
		return b
	}
	findings, _ := orig["findings"].([]any)
	for _, f := range findings {
		if m, ok := f.(map[string]any); ok {
			if _, has := m["checks"]; has {
				return b
			}
		}
	}
	rf, _ := replayed["findings"].([]any)
	for _, f := range rf {
		if m, ok := f.(map[string]any); ok {
			delete(m, "checks")
		}
	}
	out, err := json.Marshal(replayed)
	if err != nil {
		return b
	}
	return out
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

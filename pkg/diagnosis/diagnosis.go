// Package diagnosis runs one incident diagnosis the way superbiz does: the
// agent under the harness's budgets and audit, every model round and tool
// call recorded in a run store, the draft released through the release
// guards; it returns what was published. It is an embedding program's
// entry point: the program brings a run store, a model (pkg/model/openai,
// pkg/model/ollama or its own model.ChatModel) and its tools.
package diagnosis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Config is what a diagnosis runs with.
type Config struct {
	// Store records the run, its audit and its outcome; required.
	Store *runstore.Store
	// Model answers the agent's rounds and the semantic guard; required.
	Model model.ChatModel
	// ModelName and Host name the model in the stored run.
	ModelName, Host string
	// Tools are the evidence tools the agent may call; required.
	Tools *harness.Toolset
	// Budget bounds the run; the zero Budget is harness.DefaultBudget().
	Budget harness.Budget
	// Limits bound the agent's texts; the zero Limits are agent.DefaultLimits().
	Limits agent.Limits
	// Language is the answer's language: auto (or ""), en or zh.
	Language string
	// ToolGuide is the system prompt's list of the evidence tools by
	// language (agent.Config.ToolGuide); nil lists the offered tools' names.
	ToolGuide map[string]string
	// Clock is the run's notion of now; nil is the real time.
	Clock harness.Clock
	// Events receives the run's typed events; nil drops them.
	Events harness.Sink
	// Hints are the program's pointers to its own commands in the answer
	// (release.Hints, by language); nil names none.
	Hints map[string]release.Hints
}

// Request is one question to diagnose.
type Request struct {
	// Query is the incident in the user's words.
	Query string
	// SessionID continues a stored session; "" starts a new one.
	SessionID string
	// PreviousTurn is the session's last diagnosis the agent may build on; nil is none.
	PreviousTurn *agent.PreviousTurn
}

// Result is a finished run as stored: its identity, how it ended, the
// release's decision (Outcome, Answer, Published) and what it used.
type Result struct {
	SessionID, RunID string
	// Lifecycle is how the run ended (COMPLETED, DEADLINE_REACHED, …).
	Lifecycle runrecord.Lifecycle
	// Decision is the release's verdict; Decision.Published is set only
	// when the guards released a diagnosis.
	Decision release.Decision
	// Checks are the evidence checks as published: tool, status, summary.
	Checks []runrecord.Check
	// Usage counts the run's calls, tokens and duration.
	Usage runrecord.Usage
}

// Run diagnoses req.Query: it stores a new run (and a new session unless
// req.SessionID names one), runs the agent and the release guards, and
// stores the outcome. The error is for what happened outside the run (the
// store, a bad Config); a run that ended without a published diagnosis is a
// Result whose Decision says why.
func Run(ctx context.Context, cfg Config, req Request) (Result, error) {
	if cfg.Store == nil || cfg.Model == nil || cfg.Tools == nil {
		return Result{}, errors.New("diagnosis: Config needs a Store, a Model and Tools")
	}
	if cfg.Budget == (harness.Budget{}) {
		cfg.Budget = harness.DefaultBudget()
	}
	if cfg.Limits == (agent.Limits{}) {
		cfg.Limits = agent.DefaultLimits()
	}
	if cfg.Clock == nil {
		cfg.Clock = harness.SystemClock{}
	}
	store := context.WithoutCancel(ctx)
	sessionID := req.SessionID
	if sessionID == "" {
		sessionID = cfg.Store.NewID("s_")
		if err := cfg.Store.CreateSession(store, sessionID); err != nil {
			return Result{}, fmt.Errorf("diagnosis: create session: %w", err)
		}
	}
	limits := cfg.Limits
	rc, err := Start(ctx, cfg.Store, runstore.NewRun{
		ID: cfg.Store.NewID("r_"), SessionID: sessionID, Query: req.Query, Intent: runrecord.IntentDiagnosis,
		Model: cfg.ModelName, Host: cfg.Host, Clock: cfg.Clock.Now(),
		Settings: &runrecord.Settings{Budget: cfg.Budget, Limits: &limits, Language: cfg.Language},
	}, harness.RunOptions{Budget: cfg.Budget, Clock: cfg.Clock, Events: cfg.Events})
	if err != nil {
		return Result{}, err
	}
	defer rc.Release()
	rc.Emit(harness.RunStarted{Meta: rc.Meta(), Query: req.Query, Budget: cfg.Budget})
	return Finish(rc, cfg.Store, Diagnose(rc, cfg, req))
}

// Diagnose is a started run's work, between Start and Finish: the agent
// with cfg's model, tools, limits and language, then the release guards,
// which end the run. cfg's Store, Budget and Clock are not used here.
func Diagnose(rc *harness.RunContext, cfg Config, req Request) release.Decision {
	res := agent.Run(rc, agent.Config{Model: cfg.Model, Tools: cfg.Tools, Limits: cfg.Limits, Language: cfg.Language, ToolGuide: cfg.ToolGuide, Reserved: 1}, agent.Input{Query: req.Query, PreviousTurn: req.PreviousTurn})
	return release.Release(rc, release.Config{Model: cfg.Model, Language: cfg.Language, ObservationLimit: cfg.Limits.Observation, Hints: cfg.Hints}, req.Query, res)
}

// Start stores run as RUNNING and opens its RunContext with opts, whose
// session and run IDs it takes from run and whose audit it records into
// store; the caller releases it. The run is stored even when ctx has
// ended: its RunContext is then interrupted at once and the run ends
// CANCELLED, audited like any other.
func Start(ctx context.Context, store *runstore.Store, run runstore.NewRun, opts harness.RunOptions) (*harness.RunContext, error) {
	if err := store.CreateRun(context.WithoutCancel(ctx), run); err != nil {
		return nil, fmt.Errorf("store run: %w", err)
	}
	opts.SessionID, opts.RunID = run.SessionID, run.ID
	opts.Recorder, opts.StoreFull = store.Recorder(), runstore.IsFull
	return harness.NewRunContext(ctx, opts)
}

// Finish stores the terminal record of a run the releaser ended (guard
// reviews, outcome, answer, checks, usage) and emits RunFinished. A run
// whose audit could not be written ends FAILED saying so, and the write
// failure is returned with the Result: the caller reports it (a full disk)
// instead of an answer whose audit is missing.
func Finish(rc *harness.RunContext, store *runstore.Store, dec release.Decision) (Result, error) {
	ctx := context.WithoutCancel(rc.Context())
	auditErr := rc.AuditError()
	if auditErr != nil && dec.Outcome != runrecord.OutcomeCancelled {
		dec = release.AuditFailed(dec, runstore.IsFull(auditErr))
	}
	for _, g := range dec.Reviews {
		if _, err := store.AppendGuardReview(ctx, rc.RunID(), g); err != nil {
			return Result{}, fmt.Errorf("store guard review: %w", err)
		}
	}
	u := rc.Usage()
	u.DurationMS = rc.Elapsed().Milliseconds()
	// The releaser (release.Release, release.Chat) ended the run through
	// RunContext.End; Finish only records that end.
	lifecycle, _ := rc.State()
	if lifecycle == runrecord.Running {
		return Result{}, fmt.Errorf("run %s was released without ending it (RunContext.End)", rc.RunID())
	}
	out := Result{SessionID: rc.SessionID(), RunID: rc.RunID(), Lifecycle: lifecycle, Decision: dec, Checks: publicChecks(dec.Checks), Usage: u}
	var published json.RawMessage
	if dec.Published != nil {
		var err error
		if published, err = json.Marshal(dec.Published); err != nil {
			return Result{}, fmt.Errorf("encode published result: %w", err)
		}
	}
	fin := runstore.Finish{
		Status: dec.Outcome.Status(), ReleaseOutcome: dec.Outcome, StopReason: dec.StopReason,
		Lifecycle: lifecycle, Answer: dec.Answer, PublishedResult: published, Checks: out.Checks,
		Usage: u, ErrorCode: dec.ErrorCode, ErrorMessage: dec.ErrorMessage,
	}
	if err := store.FinishRun(ctx, rc.RunID(), fin); err != nil {
		return out, errors.Join(auditErr, fmt.Errorf("store run result: %w", err))
	}
	if auditErr != nil {
		return out, auditErr
	}
	rc.Emit(harness.RunFinished{Meta: rc.Meta(), Lifecycle: lifecycle, StopReason: dec.StopReason, Usage: u, Duration: rc.Elapsed(), Outcome: dec.Outcome, Answer: dec.Answer})
	return out, nil
}

// publicChecks are the checks as shown and stored: exactly {tool,
// evidence_status, summary}, an ERROR's code folded into the summary.
func publicChecks(in []runrecord.Check) []runrecord.Check {
	out := make([]runrecord.Check, 0, len(in))
	for _, c := range in {
		out = append(out, c.Folded())
	}
	return out
}

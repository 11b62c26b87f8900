package usecase

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/prompts"
)

// ChatRequest is one chat message: every message is one stored run, routed
// to exactly one fixed executor.
type ChatRequest struct {
	Query string
	// SessionID continues a chat; "" creates a session (or, with Continue,
	// picks the most recent one).
	SessionID string
	Continue  bool
	// OnStart is told the stored run's identity (see StartFunc); nil ignores it.
	OnStart StartFunc
	// Observer is told the run's progress; nil ignores it.
	Observer Observer
}

// ChatOutput is a finished chat run; Intent is the routed intent, or ""
// when routing failed.
type ChatOutput = Output

// StatusCode is one fixed, safe progress code of a chat run: observers
// (TUI, line printer, a future server) show progress without engine types.
type StatusCode string

// The chat status codes, in the order a run can emit them.
const (
	StatusRouting          StatusCode = "ROUTING"
	StatusRoutingRetry     StatusCode = "ROUTING_RETRY"
	StatusRoutedSystemChat StatusCode = "ROUTED_SYSTEM_CHAT"
	StatusRoutedKnowledge  StatusCode = "ROUTED_KNOWLEDGE_QUERY"
	StatusRoutedDiagnosis  StatusCode = "ROUTED_DIAGNOSIS"
	StatusExecuting        StatusCode = "EXECUTING"
	StatusReleasing        StatusCode = "RELEASING"
	StatusDone             StatusCode = "DONE"
	StatusFailed           StatusCode = "FAILED"
	StatusCancelled        StatusCode = "CANCELLED"
)

// Observer is the protocol-neutral window on a chat run's progress: fixed
// status codes only, never engine data (the run's identity goes to the
// request's OnStart).
type Observer interface {
	// Status reports one step of the run.
	Status(code StatusCode)
}

// notify sends code to obs when there is one.
func notify(obs Observer, code StatusCode) {
	if obs != nil {
		obs.Status(code)
	}
}

// Chat handles one chat message end to end: session, one stored run and one
// RunContext, the intent router, exactly one executor, and the single
// terminal record. A message "/alert REF" is a DIAGNOSIS from that firing
// alert instead (chatAlert: no router; an alert that cannot be found is an
// *AlertError and no run). Routing and executor failures are an Output with
// status FAILED; the returned error is for failures outside the run (the
// store).
func (d *Deps) Chat(ctx context.Context, req ChatRequest) (ChatOutput, error) {
	if ref, ok := AlertRef(req.Query); ok {
		return d.chatAlert(ctx, req, ref)
	}
	query := egress.Mask(req.Query).Shown().String() // as Diagnose takes it in
	sessionID, err := d.resolveSession(ctx, req.SessionID, req.Continue)
	if err != nil {
		return Output{}, err
	}
	// The router's memory is the session's previous routed turn, read before
	// this run becomes it.
	sess, err := d.Store.GetSession(ctx, sessionID)
	if err != nil {
		return Output{}, fmt.Errorf("read session %s: %w", sessionID, err)
	}
	turn := chatTurn{
		lastIntent: sess.LastIntent, lastQuery: sess.LastQuery,
		previousTurn: func(ctx context.Context) *agent.PreviousTurn { return d.previousTurn(ctx, sessionID, query) },
	}
	return d.chatRun(ctx, sessionID, query, "", turn, req.OnStart, req.Observer)
}

// chatTurn is what one chat message's run is given besides its query: the
// router's memory (the last routed intent and query, "" for none) and the
// PreviousTurn the DIAGNOSIS executor gets. Chat reads both from the
// session; a replay gives the recorded ones.
type chatTurn struct {
	lastIntent, lastQuery string
	previousTurn          func(ctx context.Context) *agent.PreviousTurn
}

// chatRun is one chat run end to end: the stored run (replayOf links a
// replay to its original), routing, exactly one executor and the single
// terminal record.
func (d *Deps) chatRun(ctx context.Context, sessionID, query, replayOf string, turn chatTurn, onStart StartFunc, obs Observer) (Output, error) {
	// The run is stored before routing: its intent is set once routed.
	rc, err := d.openRun(ctx, sessionID, query, "", replayOf, onStart)
	if err != nil {
		return Output{}, err
	}
	defer rc.Release()
	t := release.ChatFor(d.Language, query).WithHints(cliHints())

	intent, dec, storeErr := d.dispatch(rc, obs, t, query, turn)
	out, err := d.finish(rc, intent, dec)
	switch out.Status {
	case runrecord.RunStatusSuccess:
		notify(obs, StatusDone)
	case runrecord.RunStatusCancelled:
		notify(obs, StatusCancelled)
	default:
		notify(obs, StatusFailed)
	}
	return out, errors.Join(storeErr, err)
}

// dispatch routes the message and runs exactly the routed executor. The
// executors never call one another and all receive the query unchanged.
func (d *Deps) dispatch(rc *harness.RunContext, obs Observer, t release.Chat, query string, turn chatTurn) (string, release.Decision, error) {
	if msg := d.checkQuery(query); msg != "" {
		return "", t.Conclude(rc, t.Failed(runrecord.StopInputRejected, msg)), nil
	}
	notify(obs, StatusRouting)
	routed := d.route(rc, obs, query, turn.lastIntent, turn.lastQuery)
	if routed.Intent == "" {
		return "", t.Conclude(rc, t.RoutingFailed(rc, routed.Stop, routed.Err)), nil
	}
	if err := d.Store.SetIntent(context.WithoutCancel(rc.Context()), rc.RunID(), routed.Intent); err != nil {
		return routed.Intent, t.Conclude(rc, t.NotStored()), fmt.Errorf("store routed intent: %w", err)
	}
	switch routed.Intent {
	case runrecord.IntentSystemChat:
		notify(obs, StatusRoutedSystemChat)
		notify(obs, StatusExecuting)
		return routed.Intent, t.Conclude(rc, d.systemChat(rc, t, query)), nil
	case runrecord.IntentKnowledgeQuery:
		notify(obs, StatusRoutedKnowledge)
		notify(obs, StatusExecuting)
		return routed.Intent, t.Conclude(rc, d.knowledgeQuery(rc, t, query)), nil
	default:
		notify(obs, StatusRoutedDiagnosis)
		notify(obs, StatusExecuting)
		return routed.Intent, d.diagnosis(rc, obs, query, turn.previousTurn(context.WithoutCancel(rc.Context()))), nil
	}
}

// checkQuery returns why the message cannot be routed, or "" when it can.
func (d *Deps) checkQuery(query string) string {
	if strings.TrimSpace(query) == "" {
		return "the message is empty"
	}
	if d.Limits.Query > 0 && len(query) > d.Limits.Query {
		return fmt.Sprintf("the message has %d bytes, the limit is %d (limits.query)", len(query), d.Limits.Query)
	}
	return ""
}

// systemChat is the SYSTEM_CHAT executor: one no-tool model answer, no
// evidence tool, agent or guard; pkg/release decides what is published.
func (d *Deps) systemChat(rc *harness.RunContext, t release.Chat, query string) release.Decision {
	prompt := prompts.SystemChatEN
	if agent.PromptLanguage(d.Language, query) == "zh" {
		prompt = prompts.SystemChatZH
	}
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: prompt},
		{Role: model.RoleUser, Content: query},
	}}
	resp, err := rc.CallModel(d.Model, runrecord.PurposeSystemChat, req, 0)
	if err != nil {
		return t.ModelFailure(rc, err)
	}
	return t.SystemChat(resp.Message.Content)
}

// diagnosis is the DIAGNOSIS executor: exactly what `diagnose` runs after
// the run is stored — the single agent with the session's PreviousTurn, then
// release, which takes the run's terminal transition.
func (d *Deps) diagnosis(rc *harness.RunContext, obs Observer, query string, prev *agent.PreviousTurn) release.Decision {
	res := agent.Run(rc, agent.Config{Model: d.Model, Tools: d.Tools, Limits: d.Limits, Language: d.Language, ToolGuide: d.ToolGuide, Reserved: 1}, agent.Input{Query: query, PreviousTurn: prev})
	notify(obs, StatusReleasing)
	return release.Release(rc, release.Config{Model: d.Model, Language: d.Language, ObservationLimit: d.Limits.Observation, Hints: cliHints()}, query, res)
}

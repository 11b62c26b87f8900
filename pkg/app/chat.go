package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/textclip"
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

// maxChatAnswerBytes bounds the SYSTEM_CHAT answer shown to the user.
const maxChatAnswerBytes = 4096

// Chat handles one chat message end to end: session, one stored run and one
// RunContext, the intent router, exactly one executor, and the single
// terminal record. Routing and executor failures are an Output with status
// FAILED; the returned error is for failures outside the run (the store).
func (d *Deps) Chat(ctx context.Context, req ChatRequest) (ChatOutput, error) {
	req.Query = CleanQuery(req.Query)
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
	// The run is stored before routing: its intent is set once routed.
	rc, err := d.openRun(ctx, sessionID, req.Query, "", "", req.OnStart)
	if err != nil {
		return Output{}, err
	}
	defer rc.Release()
	obs := req.Observer
	t := chatTextsFor(agent.PromptLanguage(d.Language, req.Query))

	intent, dec, storeErr := d.dispatch(rc, obs, t, sessionID, req.Query, sess)
	out, err := d.finish(rc, intent, dec)
	switch out.Status {
	case release.StatusSuccess:
		notify(obs, StatusDone)
	case release.StatusCancelled:
		notify(obs, StatusCancelled)
	default:
		notify(obs, StatusFailed)
	}
	return out, errors.Join(storeErr, err)
}

// dispatch routes the message and runs exactly the routed executor. The
// executors never call one another and all receive the query unchanged.
func (d *Deps) dispatch(rc *harness.RunContext, obs Observer, t *chatTexts, sessionID, query string, sess runstore.Session) (string, release.Decision, error) {
	if msg := d.checkQuery(query); msg != "" {
		return "", t.conclude(rc, t.failed(harness.StopInputRejected, msg)), nil
	}
	notify(obs, StatusRouting)
	routed := d.route(rc, obs, query, sess)
	if routed.Intent == "" {
		return "", t.conclude(rc, t.routingFailed(rc, routed)), nil
	}
	if err := d.Store.SetIntent(context.WithoutCancel(rc.Context()), rc.RunID(), routed.Intent); err != nil {
		rc.Terminate(harness.StopInternal)
		return routed.Intent, t.failed(harness.StopInternal, t.internal), fmt.Errorf("store routed intent: %w", err)
	}
	switch routed.Intent {
	case runstore.IntentSystemChat:
		notify(obs, StatusRoutedSystemChat)
		notify(obs, StatusExecuting)
		return routed.Intent, t.conclude(rc, d.systemChat(rc, t, query)), nil
	case runstore.IntentKnowledgeQuery:
		notify(obs, StatusRoutedKnowledge)
		notify(obs, StatusExecuting)
		return routed.Intent, t.conclude(rc, d.knowledgeQuery(rc, t, query)), nil
	default:
		notify(obs, StatusRoutedDiagnosis)
		notify(obs, StatusExecuting)
		return routed.Intent, d.diagnosis(rc, obs, sessionID, query), nil
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
// evidence tool, agent or guard.
func (d *Deps) systemChat(rc *harness.RunContext, t *chatTexts, query string) release.Decision {
	prompt := prompts.SystemChatEN
	if agent.PromptLanguage(d.Language, query) == "zh" {
		prompt = prompts.SystemChatZH
	}
	req := model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: prompt},
		{Role: model.RoleUser, Content: query},
	}}
	resp, err := rc.CallModel(d.Model, harness.PurposeSystemChat, req, 0)
	if err != nil {
		return t.modelFailure(rc, err)
	}
	answer := strings.TrimSpace(redact.StripControl(redact.String(resp.Message.Content)))
	if answer == "" {
		return t.failed(harness.StopInvalidOutput, t.emptyAnswer)
	}
	return release.Decision{
		Outcome: release.Success, Status: release.StatusSuccess, StopReason: harness.StopCompleted,
		Answer: textclip.Bytes(answer, maxChatAnswerBytes) + "\n",
	}
}

// diagnosis is the DIAGNOSIS executor: exactly what `diagnose` runs after
// the run is stored — the single agent with the session's PreviousTurn, then
// release, which takes the run's terminal transition.
func (d *Deps) diagnosis(rc *harness.RunContext, obs Observer, sessionID, query string) release.Decision {
	prev := d.previousTurn(context.WithoutCancel(rc.Context()), sessionID, query)
	res := agent.Run(rc, agent.Config{Model: d.Model, Registry: d.Registry, Limits: d.Limits, Language: d.Language, Reserved: 1}, agent.Input{Query: query, PreviousTurn: prev})
	notify(obs, StatusReleasing)
	return release.Release(rc, release.Config{Model: d.Model, Language: d.Language, ObservationLimit: d.Limits.Observation}, query, res)
}

// chatTexts are the fixed, safe words of chat outcomes in one language.
type chatTexts struct {
	failedH, failedLine, cancelled string
	routing                        map[harness.StopReason]string
	routingModel                   string
	failText                       map[harness.StopReason]string
	failModel                      string
	emptyAnswer, internal          string
	// knowledge
	noEvidence, limitationsH                       string
	knowledgeMissing, knowledgeError, knowledgeBig string
	knowledgeStopped                               string
	invalidAnswer, badReference                    string
}

var enChatTexts = &chatTexts{
	failedH:    "Request failed",
	failedLine: "%s (`%s`).",
	cancelled:  "## Cancelled\n\nThe run was cancelled; nothing was published.\n",
	routing: map[harness.StopReason]string{
		harness.StopRoutingFailed: "The message could not be classified: the router gave no valid intent in two attempts. Try again, or check the model with `superbiz doctor`",
	},
	routingModel: "The message could not be classified: the model failed twice (%s: %s). Check the model with `superbiz doctor` and try again",
	failText: map[harness.StopReason]string{
		harness.StopModelBudget:   "The model call budget is spent (budget.max_model_calls)",
		harness.StopTokenBudget:   "The token budget is spent (budget.max_tokens)",
		harness.StopDeadline:      "The run passed its deadline (budget.deadline)",
		harness.StopInternal:      "An internal error ended the run; see its audit record with `superbiz runs show`",
		harness.StopInvalidOutput: "The model's answer was not valid",
	},
	failModel:        "The model is unavailable (%s: %s). Check it with `superbiz doctor`",
	emptyAnswer:      "The model gave an empty answer",
	internal:         "The run could not be stored; see the error printed with it",
	noEvidence:       "## No matching runbook\n\nNo runbook section matches this question, so there is nothing to answer from. Try other words (a service, component or error message), or add runbooks under `knowledge.paths` and run `superbiz kb index`.\n",
	limitationsH:     "Limitations",
	knowledgeMissing: "Knowledge questions need the `lookup_knowledge` tool, which is not configured (set `knowledge.paths`)",
	knowledgeError:   "The runbook lookup failed (%s). Check `knowledge.paths` with `superbiz doctor`",
	knowledgeBig:     "A knowledge question is limited to 512 bytes; ask it in fewer words",
	knowledgeStopped: "The runbook lookup could not run (%s)",
	invalidAnswer:    "The model's answer was not a valid list of runbook-backed items; nothing was published",
	badReference:     "The model's answer cited a lookup or document that this run did not return; nothing was published",
}

var zhChatTexts = &chatTexts{
	failedH:    "请求失败",
	failedLine: "%s（`%s`）。",
	cancelled:  "## 已取消\n\n本次运行已取消，没有发布任何内容。\n",
	routing: map[harness.StopReason]string{
		harness.StopRoutingFailed: "无法判断这条消息的意图：路由器两次都没有给出有效意图。请重试，或用 `superbiz doctor` 检查模型",
	},
	routingModel: "无法判断这条消息的意图：模型两次调用均失败（%s：%s）。请用 `superbiz doctor` 检查模型后重试",
	failText: map[harness.StopReason]string{
		harness.StopModelBudget:   "模型调用预算已用完（budget.max_model_calls）",
		harness.StopTokenBudget:   "token 预算已用完（budget.max_tokens）",
		harness.StopDeadline:      "本次运行超过了截止时间（budget.deadline）",
		harness.StopInternal:      "内部错误终止了本次运行；可用 `superbiz runs show` 查看审计记录",
		harness.StopInvalidOutput: "模型的回答无效",
	},
	failModel:        "模型不可用（%s：%s）。请用 `superbiz doctor` 检查",
	emptyAnswer:      "模型给出了空回答",
	internal:         "本次运行无法保存；请查看随之输出的错误",
	noEvidence:       "## 没有匹配的手册\n\n没有任何手册章节与这个问题匹配，因此无从作答。请换个说法（服务、组件或错误信息），或在 `knowledge.paths` 下添加手册并运行 `superbiz kb index`。\n",
	limitationsH:     "局限",
	knowledgeMissing: "知识问答需要 `lookup_knowledge` 工具，但它没有配置（请设置 `knowledge.paths`）",
	knowledgeError:   "手册检索失败（%s）。请用 `superbiz doctor` 检查 `knowledge.paths`",
	knowledgeBig:     "知识问题最多 512 字节；请用更少的字提问",
	knowledgeStopped: "手册检索无法执行（%s）",
	invalidAnswer:    "模型的回答不是有效的、以手册为依据的条目列表；没有发布任何内容",
	badReference:     "模型的回答引用了本次运行没有返回的检索调用或文档；没有发布任何内容",
}

func chatTextsFor(lang string) *chatTexts {
	if lang == "zh" {
		return zhChatTexts
	}
	return enChatTexts
}

// failed is a fail-closed outcome; msg must already be safe to show.
func (t *chatTexts) failed(reason harness.StopReason, msg string) release.Decision {
	return release.Decision{
		Outcome: release.Failed, Status: release.StatusFailed, StopReason: reason,
		Answer:    fmt.Sprintf("## %s\n\n"+t.failedLine+"\n", t.failedH, msg, reason),
		ErrorCode: string(reason), ErrorMessage: msg,
	}
}

func (t *chatTexts) cancelledDecision() release.Decision {
	return release.Decision{Outcome: release.Cancelled, Status: release.StatusCancelled, StopReason: harness.StopCancelled, Answer: t.cancelled}
}

// stopped describes a run interruption or a refused model call.
func (t *chatTexts) stopped(reason harness.StopReason) release.Decision {
	if reason == harness.StopCancelled {
		return t.cancelledDecision()
	}
	msg, ok := t.failText[reason]
	if !ok {
		msg = string(reason)
	}
	return t.failed(reason, msg)
}

// modelFailure turns a failed executor model round into its outcome: the
// run's interruption when there is one, else the model's stable error kind.
func (t *chatTexts) modelFailure(rc *harness.RunContext, err error) release.Decision {
	if r := rc.Interrupted(); r != "" {
		return t.stopped(r)
	}
	if r := harness.ReasonOf(err); r != "" {
		return t.stopped(r)
	}
	kind, detail := modelDetail(err)
	dec := t.failed(harness.StopModelUnavailable, fmt.Sprintf(t.failModel, kind, detail))
	dec.ModelError = model.AsError(err)
	return dec
}

// maxModelDetail bounds the model error's account in a failure message.
const maxModelDetail = 400

// modelDetail is a model failure's stable kind and its one-line account
// (host, HTTP status, the server's words), redacted and bounded.
func modelDetail(err error) (model.ErrorKind, string) {
	kind := model.KindOf(err)
	if kind == "" {
		kind = model.ErrProtocol
	}
	text := strings.Join(strings.Fields(redact.StripControl(redact.String(err.Error()))), " ")
	return kind, textclip.Bytes(text, maxModelDetail)
}

// routingFailed is the outcome of routing that produced no intent.
func (t *chatTexts) routingFailed(rc *harness.RunContext, r routeResult) release.Decision {
	switch r.Stop {
	case harness.StopRoutingFailed:
		if me := model.AsError(r.Err); me != nil {
			kind, detail := modelDetail(me)
			dec := t.failed(harness.StopRoutingFailed, fmt.Sprintf(t.routingModel, kind, detail))
			dec.ModelError = me
			return dec
		}
		return t.failed(harness.StopRoutingFailed, t.routing[harness.StopRoutingFailed])
	case harness.StopModelUnavailable:
		return t.modelFailure(rc, r.Err)
	}
	return t.stopped(r.Stop)
}

// conclude takes the run's single terminal transition for dec. When the run
// already ended (a cancel from the observer while the executor finished),
// dec is replaced by what the run's end says, so a late result cannot
// complete a cancelled run.
func (t *chatTexts) conclude(rc *harness.RunContext, dec release.Decision) release.Decision {
	if rc.Terminate(dec.StopReason) {
		return dec
	}
	lc, reason := rc.State()
	if lc == harness.Cancelled {
		return t.cancelledDecision()
	}
	if reason == "" || reason == dec.StopReason {
		return dec
	}
	return t.stopped(reason)
}

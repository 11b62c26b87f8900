package release

import (
	"fmt"
	"strings"
	"sync"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Bounds of the Markdown answer: a released diagnosis may be as long as its
// draft; fallback and failure texts stay short.
const (
	maxSuccessAnswer  = 16384
	maxFallbackAnswer = 8192
	// maxShownChecks is how many checks the fallback lists before "and N more".
	maxShownChecks = 20
)

// texts holds every fixed phrase of the answers in one language, so the
// rendering code is shared and the output is deterministic.
type texts struct {
	conclusion, summary, rootCause, confidence                  string
	findings, scope, sources, actionPlan, risk, recommendations string
	check                                                       string
	limitations, missing, references                            string
	truncated                                                   string

	noConclusion, checked, found, missingH, next string
	noChecks, scopeCovered, foundCounts          string
	foundNote, missingNone, missingErrors        string
	// missingEmpty names a check whose window held no data, with the source's range.
	missingEmpty string
	moreChecks   string
	why          map[runrecord.StopReason]string
	whyTool      string
	whyOther     string
	nextFor      map[runrecord.StopReason][]string
	nextCommon   string

	failedH, failedLine, inputRejected string
	failText                           map[runrecord.StopReason]string
	failStoppedText, failModel         string
	// cancelledAnswer is the whole answer of every cancelled run, chat or diagnosis.
	cancelledAnswer string
	// auditH, audit and auditFull say that a run's audit could not be
	// stored; English only (see AuditFailed).
	auditH, audit, auditFull string

	// chat holds the words only the chat executors publish.
	chat chatTexts
	// hint is the embedding program's pointers in this language.
	hint Hints
}

// Hints are an embedding program's pointers to its own commands, flags and
// settings, in one language: release's texts name no program, so one
// program's users read "`superbiz doctor`" where another's read their own
// words or nothing. An empty field adds nothing.
type Hints struct {
	// Next is a "What to do next" line of a diagnosis that ended for a stop
	// reason, e.g. how to raise the budget that ran out.
	Next map[runrecord.StopReason]string
	// CheckSources is the next-step line of a diagnosis whose checks failed
	// or never ran: how to check the sources are reachable.
	CheckSources string
	// InspectRun is the next-step line naming how to read a run's checks;
	// %s is the run ID.
	InspectRun string
	// Stopped follows a chat failure's text by stop reason (the setting of
	// a spent budget, where the audit is read).
	Stopped map[runrecord.StopReason]string
	// CheckModel follows the text of a chat run whose model failed.
	CheckModel string
	// RetryRouting follows a routing failure's text when the router gave no
	// valid intent; RetryRoutingModel when the model failed.
	RetryRouting, RetryRoutingModel string
	// KnowledgeSetup follows "the lookup_knowledge tool is not configured".
	KnowledgeSetup string
	// CheckKnowledge follows a failed runbook lookup's text.
	CheckKnowledge string
	// AddRunbooks follows "try other words" when no runbook matched.
	AddRunbooks string
}

// chatTexts are the fixed words of the outcomes of the chat executors that
// run no agent (routing, SYSTEM_CHAT, KNOWLEDGE_QUERY); a message in them
// starts a line, so it is escaped like every other published line.
type chatTexts struct {
	failedH, failedLine   string
	routing, routingModel string
	failText              map[runrecord.StopReason]string
	failModel             string
	emptyAnswer, internal string
	// knowledge
	noEvidence                                     string
	knowledgeMissing, knowledgeError, knowledgeBig string
	knowledgeStopped                               string
	invalidAnswer, badReference                    string
}

// textsFor is the text table of lang with the caller's hints in it.
func textsFor(lang string, hints map[string]Hints) *texts {
	t := enTexts()
	if lang == "zh" {
		t = zhTexts()
	}
	if h, ok := hints[lang]; ok {
		withHints := *t
		withHints.hint = h
		return &withHints
	}
	return t
}

var enTexts = sync.OnceValue(func() *texts {
	return &texts{
		conclusion: "Conclusion", summary: "Summary", rootCause: "Root cause", confidence: "Confidence",
		findings: "Findings", scope: "Scope", sources: "Sources", check: "Checked", actionPlan: "Action plan", risk: "risk",
		recommendations: "Recommendations", limitations: "Limitations", missing: "Missing", references: "References",
		truncated: "(answer truncated; the full result is in the JSON output)",

		noConclusion: "No conclusion", checked: "What was checked", found: "What was found",
		missingH: "What is missing", next: "What to do next",
		noChecks:      "No evidence check completed.",
		scopeCovered:  "Scope covered: %s",
		foundCounts:   "Evidence found: %d · No evidence: %d · Errors: %d",
		foundNote:     "These results do not establish a verified root cause, so none is given.",
		missingNone:   "A verified root cause: the checks above do not establish one.",
		missingErrors: "Results of %d check(s) that failed (%s).",
		missingEmpty:  "Data in the asked window: %s (a window without data is missing information, not evidence of absence).",
		moreChecks:    "… and %d more checks",
		why: map[runrecord.StopReason]string{
			runrecord.StopNoConclusion:  "The evidence gathered does not support a root cause, so none is given.",
			runrecord.StopSaturated:     "Further checks stopped adding information (information saturated) before a root cause was established.",
			runrecord.StopModelBudget:   "The model-call budget was exhausted before a root cause was established.",
			runrecord.StopTokenBudget:   "The token budget was exhausted before a root cause was established.",
			runrecord.StopByteBudget:    "The run's context byte budget was exhausted before a root cause was established.",
			runrecord.StopDeadline:      "The run reached its deadline before a root cause was established.",
			runrecord.StopGuardRejected: "A conclusion was proposed, but it could not be verified against the evidence of this run, so it is not published.",
			runrecord.StopInvalidOutput: "The model's final answer was not a valid diagnosis, so only the checks performed are reported.",
		},
		whyTool:  "The tool-call budget was exhausted after %d check(s) before a root cause was established.",
		whyOther: "The run ended (%s) before a root cause was established.",
		nextFor: map[runrecord.StopReason][]string{
			runrecord.StopNoConclusion:  {"Add what is missing to the query: the affected service, the time of the first error, an error message or an order ID."},
			runrecord.StopSaturated:     {"Add what is missing to the query: the affected service, the time of the first error, an error message or an order ID."},
			runrecord.StopGuardRejected: {"Ask again with a narrower question so every claim can be tied to a check."},
		},
		nextCommon: "Narrow the time window (for example 30 minutes around the first error) and name the affected service.",

		failedH:       "Diagnosis failed",
		failedLine:    "The run failed: %s (`%s`).",
		inputRejected: "the input was rejected",
		failText: map[runrecord.StopReason]string{
			runrecord.StopInvalidOutput:    "the model's final answer was not a valid diagnosis",
			runrecord.StopModelUnavailable: "the model is unavailable",
			runrecord.StopInternal:         "an internal error ended the run; see its audit record",
			runrecord.StopRoutingFailed:    "the request could not be routed",
			runrecord.StopGuardRejected:    "the conclusion could not be verified",
		},
		failStoppedText: "the run stopped (%s) before any evidence check gave a usable result",
		failModel:       "the model is unavailable (%s): %s",
		cancelledAnswer: "## Cancelled\n\nThe run was cancelled; nothing was published.\n",
		auditH:          "Failed",
		audit:           "the run's audit could not be written to the run store",
		auditFull:       ": the disk holding it is full",

		chat: chatTexts{
			failedH:      "Request failed",
			failedLine:   "%s (`%s`).",
			routing:      "The message could not be classified: the router gave no valid intent in two attempts",
			routingModel: "The message could not be classified: the model failed twice (%s: %s)",
			failText: map[runrecord.StopReason]string{
				runrecord.StopModelBudget:   "The model call budget is spent",
				runrecord.StopTokenBudget:   "The token budget is spent",
				runrecord.StopDeadline:      "The run passed its deadline",
				runrecord.StopInternal:      "An internal error ended the run; see its audit record",
				runrecord.StopInvalidOutput: "The model's answer was not valid",
			},
			failModel:        "The model is unavailable (%s: %s)",
			emptyAnswer:      "The model gave an empty answer",
			internal:         "The run could not be stored; see the error printed with it",
			noEvidence:       "## No matching runbook\n\nNo runbook section matches this question, so there is nothing to answer from. Try other words (a service, component or error message)%s.\n",
			knowledgeMissing: "Knowledge questions need the `lookup_knowledge` tool, which is not configured",
			knowledgeError:   "The runbook lookup failed (%s)",
			knowledgeBig:     "A knowledge question is limited to 512 bytes; ask it in fewer words",
			knowledgeStopped: "The runbook lookup could not run (%s)",
			invalidAnswer:    "The model's answer was not a valid list of runbook-backed items; nothing was published",
			badReference:     "The model's answer cited a lookup or document that this run did not return; nothing was published",
		},
	}
})

var zhTexts = sync.OnceValue(func() *texts {
	return &texts{
		conclusion: "结论", summary: "摘要", rootCause: "根因", confidence: "置信度",
		findings: "发现", scope: "范围", sources: "来源", check: "已检查", actionPlan: "行动计划", risk: "风险",
		recommendations: "建议", limitations: "局限", missing: "缺少", references: "参考资料",
		truncated: "（回答已截断；完整结果见 JSON 输出）",

		noConclusion: "没有结论", checked: "已检查", found: "已发现",
		missingH: "缺少的信息", next: "下一步",
		noChecks:      "没有完成任何证据检查。",
		scopeCovered:  "覆盖范围：%s",
		foundCounts:   "发现证据：%d · 无证据：%d · 出错：%d",
		foundNote:     "这些结果不足以确认根因，因此不给出根因。",
		missingNone:   "经过验证的根因：以上检查不足以确认。",
		missingErrors: "%d 项失败检查的结果（%s）。",
		missingEmpty:  "所查时间窗口内的数据：%s（没有数据的窗口是缺失的信息，不能证明没有发生）。",
		moreChecks:    "…… 以及另外 %d 项检查",
		why: map[runrecord.StopReason]string{
			runrecord.StopNoConclusion:  "收集到的证据不足以支持任何根因，因此不给出根因。",
			runrecord.StopSaturated:     "继续检查已不再带来新信息（信息饱和），尚未确认根因。",
			runrecord.StopModelBudget:   "模型调用预算已用尽，尚未确认根因。",
			runrecord.StopTokenBudget:   "token 预算已用尽，尚未确认根因。",
			runrecord.StopByteBudget:    "本次运行的上下文字节预算已用尽，尚未确认根因。",
			runrecord.StopDeadline:      "本次运行已到截止时间，尚未确认根因。",
			runrecord.StopGuardRejected: "模型提出了结论，但无法用本次运行的证据验证，因此不予发布。",
			runrecord.StopInvalidOutput: "模型的最终回答不是有效的诊断，因此只报告已执行的检查。",
		},
		whyTool:  "工具调用预算在 %d 项检查后用尽，尚未确认根因。",
		whyOther: "本次运行已结束（%s），尚未确认根因。",
		nextFor: map[runrecord.StopReason][]string{
			runrecord.StopNoConclusion:  {"在问题中补充缺少的信息：受影响的服务、首次报错时间、错误信息或订单号。"},
			runrecord.StopSaturated:     {"在问题中补充缺少的信息：受影响的服务、首次报错时间、错误信息或订单号。"},
			runrecord.StopGuardRejected: {"用更具体的问题重试，使每条说法都能对应到一次检查。"},
		},
		nextCommon: "缩小时间窗口（例如首次报错前后 30 分钟），并写明受影响的服务。",

		failedH:       "诊断失败",
		failedLine:    "本次运行失败：%s（`%s`）。",
		inputRejected: "输入被拒绝",
		failText: map[runrecord.StopReason]string{
			runrecord.StopInvalidOutput:    "模型的最终回答不是有效的诊断",
			runrecord.StopModelUnavailable: "模型不可用",
			runrecord.StopInternal:         "内部错误终止了本次运行；请查看其审计记录",
			runrecord.StopRoutingFailed:    "无法路由该请求",
			runrecord.StopGuardRejected:    "结论无法验证",
		},
		failStoppedText: "本次运行在任何证据检查给出可用结果之前停止（%s）",
		failModel:       "模型不可用（%s）：%s",
		cancelledAnswer: "## 已取消\n\n本次运行已取消，没有发布任何内容。\n",

		chat: chatTexts{
			failedH:      "请求失败",
			failedLine:   "%s（`%s`）。",
			routing:      "无法判断这条消息的意图：路由器两次都没有给出有效意图",
			routingModel: "无法判断这条消息的意图：模型两次调用均失败（%s：%s）",
			failText: map[runrecord.StopReason]string{
				runrecord.StopModelBudget:   "模型调用预算已用完",
				runrecord.StopTokenBudget:   "token 预算已用完",
				runrecord.StopDeadline:      "本次运行超过了截止时间",
				runrecord.StopInternal:      "内部错误终止了本次运行",
				runrecord.StopInvalidOutput: "模型的回答无效",
			},
			failModel:        "模型不可用（%s：%s）",
			emptyAnswer:      "模型给出了空回答",
			internal:         "本次运行无法保存；请查看随之输出的错误",
			noEvidence:       "## 没有匹配的手册\n\n没有任何手册章节与这个问题匹配，因此无从作答。请换个说法（服务、组件或错误信息）%s。\n",
			knowledgeMissing: "知识问答需要 `lookup_knowledge` 工具，但它没有配置",
			knowledgeError:   "手册检索失败（%s）",
			knowledgeBig:     "知识问题最多 512 字节；请用更少的字提问",
			knowledgeStopped: "手册检索无法执行（%s）",
			invalidAnswer:    "模型的回答不是有效的、以手册为依据的条目列表；没有发布任何内容",
			badReference:     "模型的回答引用了本次运行没有返回的检索调用或文档；没有发布任何内容",
		},
	}
})

// successAnswer renders a released diagnosis; every string in p is already
// bounded, redacted and free of Tool Call IDs.
func (t *texts) successAnswer(p *PublishedResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", t.conclusion)
	fmt.Fprintf(&b, "**%s:** %s\n\n", t.summary, p.Conclusion.Summary)
	fmt.Fprintf(&b, "**%s:** %s\n\n", t.rootCause, p.Conclusion.RootCause)
	fmt.Fprintf(&b, "**%s:** %s\n", t.confidence, p.Conclusion.Confidence)
	if len(p.Findings) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", t.findings)
		for i, f := range p.Findings {
			fmt.Fprintf(&b, "%d. **%s** %s\n", i+1, f.Type, mdText(f.Claim))
			if f.Scope != "" {
				fmt.Fprintf(&b, "   - %s: %s\n", t.scope, mdText(f.Scope))
			}
			if len(f.Sources) > 0 {
				fmt.Fprintf(&b, "   - %s: %s\n", t.sources, codeList(f.Sources))
			}
			for _, c := range f.Checks {
				fmt.Fprintf(&b, "   - %s: %s\n", t.check, codeList([]string{c}))
			}
		}
	}
	if len(p.ActionPlan) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", t.actionPlan)
		for i, a := range p.ActionPlan {
			fmt.Fprintf(&b, "%d. **%s** %s (%s: %s)\n", i+1, a.Priority, mdText(a.Step), t.risk, a.Risk)
		}
	}
	if len(p.Recommendations) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", t.recommendations)
		for _, r := range p.Recommendations {
			fmt.Fprintf(&b, "- %s\n", mdText(r))
		}
	}
	if p.Limitations.Scope != "" || len(p.Limitations.MissingInfo) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", t.limitations)
		if p.Limitations.Scope != "" {
			fmt.Fprintf(&b, "- %s: %s\n", t.scope, mdText(p.Limitations.Scope))
		}
		for _, m := range p.Limitations.MissingInfo {
			fmt.Fprintf(&b, "- %s: %s\n", t.missing, mdText(m))
		}
	}
	if len(p.KnowledgeRefs) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", t.references)
		for _, r := range p.KnowledgeRefs {
			fmt.Fprintf(&b, "- %s (%s)\n", mdTitle(r.Title), codeList([]string{r.Source}))
		}
	}
	return bound(b.String(), maxSuccessAnswer, t.truncated)
}

// fallbackAnswer renders the honest no-conclusion content: built only from
// the safe progress snapshot, the draft's limitations (the model's words
// about what is missing, never evidence claims) and fixed text.
func (t *texts) fallbackAnswer(reason runrecord.StopReason, s harness.ProgressSnapshot, lim *agent.Limitations, sc scrubber, runID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n", t.noConclusion, t.whyLine(reason, s))

	fmt.Fprintf(&b, "\n### %s\n\n", t.checked)
	if len(s.Checks) == 0 {
		fmt.Fprintf(&b, "- %s\n", t.noChecks)
	}
	for i, c := range s.Checks {
		if i == maxShownChecks {
			fmt.Fprintf(&b, "- "+t.moreChecks+"\n", len(s.Checks)-maxShownChecks)
			break
		}
		status := string(c.EvidenceStatus)
		if c.ErrorCode != "" {
			status += " " + c.ErrorCode
		}
		line := fmt.Sprintf("- `%s` — %s", c.Tool, status)
		if sum := sc.inline(c.Summary, harness.MaxCheckSummaryBytes); sum != "" {
			line += " — " + mdText(sum)
		}
		b.WriteString(line + "\n")
	}
	if lim != nil {
		if scope := sc.inline(lim.Scope, maxLimitScope); scope != "" {
			fmt.Fprintf(&b, "- "+t.scopeCovered+"\n", mdText(scope))
		}
	}

	fmt.Fprintf(&b, "\n### %s\n\n", t.found)
	fmt.Fprintf(&b, "- "+t.foundCounts+"\n", s.EvidenceFound, s.NoEvidence, s.Errors)
	fmt.Fprintf(&b, "- %s\n", t.foundNote)

	fmt.Fprintf(&b, "\n### %s\n\n", t.missingH)
	var missing []string
	if lim != nil {
		missing = boundList(lim.MissingInfo, sc)
	}
	for _, c := range s.Checks {
		if c.EmptyWindow != "" {
			missing = append(missing, fmt.Sprintf(t.missingEmpty, sc.inline(c.EmptyWindow, harness.MaxCheckSummaryBytes)))
		}
	}
	if len(missing) == 0 {
		missing = []string{t.missingNone}
	}
	if codes := errorCodes(s.Checks); len(codes) > 0 {
		missing = append(missing, fmt.Sprintf(t.missingErrors, s.Errors, strings.Join(codes, ", ")))
	}
	for _, m := range missing {
		fmt.Fprintf(&b, "- %s\n", mdText(m))
	}

	fmt.Fprintf(&b, "\n### %s\n\n", t.next)
	next := append([]string{}, t.nextFor[reason]...)
	if n := t.hint.Next[reason]; n != "" {
		next = append(next, n)
	}
	next = append(next, t.nextCommon)
	if (s.Errors > 0 || len(s.Checks) == 0) && t.hint.CheckSources != "" {
		next = append(next, t.hint.CheckSources)
	}
	if runID != "" && t.hint.InspectRun != "" {
		next = append(next, fmt.Sprintf(t.hint.InspectRun, safe(runID, 64)))
	}
	for _, n := range next {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	return bound(b.String(), maxFallbackAnswer, t.truncated)
}

// whyLine is the one line saying why there is no conclusion.
func (t *texts) whyLine(reason runrecord.StopReason, s harness.ProgressSnapshot) string {
	if reason == runrecord.StopToolBudget {
		return fmt.Sprintf(t.whyTool, s.EvidenceFound+s.NoEvidence+s.Errors)
	}
	if w, ok := t.why[reason]; ok {
		return w
	}
	return fmt.Sprintf(t.whyOther, reason)
}

// failedAnswer is the short, safe text of a failed diagnosis.
func (t *texts) failedAnswer(reason runrecord.StopReason, msg string) string {
	return failedText(t.failedH, t.failedLine, reason, msg)
}

// failedText renders every failure, diagnosis or chat: a heading, then the
// message (escaped like any published line) with the stop reason.
func failedText(heading, line string, reason runrecord.StopReason, msg string) string {
	return fmt.Sprintf("## %s\n\n"+line+"\n", heading, mdText(msg), reason)
}

// maxModelDetail bounds the model error's account in a failure message.
const maxModelDetail = 400

// failMessage is a short safe description of a failure: fixed text by stop
// reason, plus the model error's stable kind and its redacted, bounded
// account (host, HTTP status, the server's words); never model output.
func (t *texts) failMessage(reason runrecord.StopReason, err error) string {
	if reason == runrecord.StopModelUnavailable {
		if me := model.AsError(err); me != nil {
			// The adapter's account names the host and the HTTP status and
			// bounds the server's words; redacted and one line here.
			return fmt.Sprintf(t.failModel, me.Kind, safe(me.Error(), maxModelDetail))
		}
	}
	if s, ok := t.failText[reason]; ok {
		return s
	}
	return fmt.Sprintf(t.failStoppedText, reason)
}

// failStopped describes a controlled stop that came before any check.
func (t *texts) failStopped(reason runrecord.StopReason) string {
	return fmt.Sprintf(t.failStoppedText, reason)
}

// errorCodes lists the distinct error codes of the failed checks, in order.
func errorCodes(checks []runrecord.Check) []string {
	var codes []string
	seen := map[string]bool{}
	for _, c := range checks {
		if c.EvidenceStatus != string(tools.StatusError) {
			continue
		}
		code := c.ErrorCode
		if code == "" {
			code = tools.CodeInternal
		}
		if !seen[code] {
			seen[code] = true
			codes = append(codes, code)
		}
	}
	return codes
}

// mdText keeps one line of text from being read as Markdown structure: the
// one escaping every published text that is not fixed goes through, in the
// diagnosis and the chat answers alike.
func mdText(s string) string {
	if s != "" && strings.ContainsRune("#>|=", rune(s[0])) {
		return `\` + s
	}
	return s
}

// titleEscaper keeps a runbook title's brackets and backslashes literal.
var titleEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`)

// mdTitle is mdText for a runbook section's title, which is also kept from
// opening or closing a link: the same text in a diagnosis's references and
// in a knowledge answer's links.
func mdTitle(s string) string {
	return mdText(titleEscaper.Replace(s))
}

// codeList renders names as inline code, separated by commas.
func codeList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + strings.ReplaceAll(n, "`", "'") + "`"
	}
	return strings.Join(out, ", ")
}

// bound cuts a Markdown text at the last line that fits in n bytes and
// says so, so an answer never exceeds its bound.
func bound(s string, n int, note string) string {
	if len(s) <= n {
		return s
	}
	keep := n - len(note) - 2
	cut := strings.LastIndexByte(s[:max(keep, 0)], '\n')
	if cut < 0 {
		return textclip.Bytes(s, n)
	}
	return s[:cut+1] + "\n" + note
}

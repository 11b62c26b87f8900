package release

import (
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// maxChatAnswer bounds the SYSTEM_CHAT answer shown to the user.
const maxChatAnswer = 4096

// Chat decides what the chat executors that run no agent (routing,
// SYSTEM_CHAT, KNOWLEDGE_QUERY) publish, with the same text table and
// Markdown escaping as a diagnosis in the run's language. It takes no
// terminal transition: the executor's caller does.
type Chat struct {
	t    *texts
	lang string
}

// ChatFor is the chat release of one message; language is auto, zh or en,
// resolved against the query like agent.PromptLanguage.
func ChatFor(language, query string) Chat {
	lang := agent.PromptLanguage(language, query)
	return Chat{t: textsFor(lang, nil), lang: lang}
}

// WithHints is c with the caller's pointers (by language) in its texts.
func (c Chat) WithHints(hints map[string]Hints) Chat {
	c.t = textsFor(c.lang, hints)
	return c
}

// Failed is a fail-closed outcome; msg must already be safe to show.
func (c Chat) Failed(reason runrecord.StopReason, msg string) Decision {
	return Decision{
		Outcome: runrecord.OutcomeFailed, StopReason: reason,
		Answer:    failedText(c.t.chat.failedH, c.t.chat.failedLine, reason, msg),
		ErrorCode: string(reason), ErrorMessage: msg,
	}
}

// Cancelled is the outcome of a cancelled chat run: nothing is published.
func (c Chat) Cancelled() Decision {
	return Decision{Outcome: runrecord.OutcomeCancelled, StopReason: runrecord.StopCancelled, Answer: c.t.cancelledAnswer}
}

// Stopped describes a run interruption or a refused model call.
func (c Chat) Stopped(reason runrecord.StopReason) Decision {
	if reason == runrecord.StopCancelled {
		return c.Cancelled()
	}
	msg, ok := c.t.chat.failText[reason]
	if !ok {
		msg = string(reason)
	}
	return c.Failed(reason, msg+c.t.hint.Stopped[reason])
}

// NotStored is the outcome of a run whose routed intent could not be stored.
func (c Chat) NotStored() Decision {
	return c.Failed(runrecord.StopInternal, c.t.chat.internal)
}

// ModelFailure turns a failed executor model round into its outcome: the
// run's interruption when there is one, else the model's stable error kind.
func (c Chat) ModelFailure(rc *harness.RunContext, err error) Decision {
	if r := rc.Interrupted(); r != "" {
		return c.Stopped(r)
	}
	if r := harness.ReasonOf(err); r != "" {
		return c.Stopped(r)
	}
	kind, detail := modelDetail(err)
	d := c.Failed(runrecord.StopModelUnavailable, fmt.Sprintf(c.t.chat.failModel, kind, detail)+c.t.hint.CheckModel)
	d.ModelError = model.AsError(err)
	return d
}

// RoutingFailed is the outcome of routing that produced no intent: stop is
// why, err the last failure (a model error is named with its kind).
func (c Chat) RoutingFailed(rc *harness.RunContext, stop runrecord.StopReason, err error) Decision {
	switch stop {
	case runrecord.StopRoutingFailed:
		if me := model.AsError(err); me != nil {
			kind, detail := modelDetail(me)
			d := c.Failed(runrecord.StopRoutingFailed, fmt.Sprintf(c.t.chat.routingModel, kind, detail)+c.t.hint.RetryRoutingModel)
			d.ModelError = me
			return d
		}
		return c.Failed(runrecord.StopRoutingFailed, c.t.chat.routing+c.t.hint.RetryRouting)
	case runrecord.StopModelUnavailable:
		return c.ModelFailure(rc, err)
	}
	return c.Stopped(stop)
}

// modelDetail is a model failure's stable kind and its one-line account
// (host, HTTP status, the server's words), redacted and bounded.
func modelDetail(err error) (model.ErrorKind, string) {
	kind := model.KindOf(err)
	if kind == "" {
		kind = model.ErrProtocol
	}
	return kind, safe(err.Error(), maxModelDetail)
}

// SystemChat releases the SYSTEM_CHAT model answer: redacted, without
// control characters, bounded; a blank answer fails as invalid output.
func (c Chat) SystemChat(content string) Decision {
	answer := strings.TrimSpace(egress.Mask(content).Shown().String())
	if answer == "" {
		return c.Failed(runrecord.StopInvalidOutput, c.t.chat.emptyAnswer)
	}
	return Decision{
		Outcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted,
		Answer: textclip.Bytes(answer, maxChatAnswer) + "\n",
	}
}

// KnowledgeMissing is the outcome of a knowledge question without the
// lookup_knowledge tool.
func (c Chat) KnowledgeMissing() Decision {
	return c.Failed(runrecord.StopInternal, c.t.chat.knowledgeMissing+c.t.hint.KnowledgeSetup)
}

// KnowledgeLookup decides what the one lookup_knowledge of a
// KNOWLEDGE_QUERY allows. proceed is true only for EVIDENCE_FOUND with
// documents, when the answer call may run; otherwise d is what the run
// publishes: the fixed FALLBACK when no runbook matched (no model call), or
// a failure. stopRequired is the boundary's stop, if any.
func (c Chat) KnowledgeLookup(inv harness.Invocation, stopRequired runrecord.StopReason) (d Decision, proceed bool) {
	switch {
	case inv.Status != harness.StatusCompleted:
		reason := orInternal(stopRequired)
		return c.Failed(reason, fmt.Sprintf(c.t.chat.knowledgeStopped, reason)), false
	case inv.EvidenceStatus == tools.StatusError && inv.ErrorCode == tools.CodeInvalidInput:
		return c.Failed(runrecord.StopInputRejected, c.t.chat.knowledgeBig), false
	case inv.EvidenceStatus == tools.StatusError:
		return c.Failed(runrecord.StopInternal, fmt.Sprintf(c.t.chat.knowledgeError, inv.ErrorCode)+c.t.hint.CheckKnowledge), false
	case inv.EvidenceStatus == tools.NoEvidence:
		return Decision{
			Outcome: runrecord.OutcomeFallback, StopReason: runrecord.StopNoConclusion,
			Answer: fmt.Sprintf(c.t.chat.noEvidence, c.t.hint.AddRunbooks),
		}, false
	case inv.EvidenceStatus != tools.EvidenceFound || len(documentsOf(inv)) == 0:
		return c.Stopped(runrecord.StopInternal), false
	}
	return Decision{}, true
}

// KnowledgeInvalid is the outcome of an answer that broke its format.
func (c Chat) KnowledgeInvalid() Decision {
	return c.Failed(runrecord.StopInvalidOutput, c.t.chat.invalidAnswer)
}

// Knowledge releases a parsed knowledge answer against the lookup it rests
// on: the reference check is a release guard (its verdict kept for the
// audit), and only an answer citing that lookup and its documents is
// published, as Markdown with links to the runbook sections.
func (c Chat) Knowledge(a KnowledgeAnswer, lookup harness.Invocation) Decision {
	docs := documentsOf(lookup)
	returned := make(map[string]bool, len(docs))
	for _, doc := range docs {
		returned[doc.DocID] = true
	}
	review := runrecord.NewGuardReview(runrecord.GuardKnowledge, runrecord.VerdictPass, nil)
	if err := CheckKnowledgeReferences(a, lookup.ToolCallID, returned); err != nil {
		review = runrecord.NewGuardReview(runrecord.GuardKnowledge, runrecord.VerdictReject, []string{err.Error()})
		d := c.Failed(runrecord.StopGuardRejected, c.t.chat.badReference)
		d.Reviews = []GuardReview{review}
		return d
	}
	md, ok := c.t.knowledgeAnswer(a, docs, lookupScrubber(lookup.ToolCallID))
	if !ok {
		return c.KnowledgeInvalid()
	}
	return Decision{
		Outcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted,
		Answer: md, Reviews: []GuardReview{review},
	}
}

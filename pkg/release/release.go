// Package release decides what a run may publish. For a diagnosis it runs
// the EvidenceGuard (deterministic citation checks) and the SemanticGuard
// (one no-tool model call) on the agent's draft, applies the outcome rules
// (SUCCESS, FALLBACK, FAILED, CANCELLED), builds the PublishedResult and the
// deterministic, bounded fallback content, and bounds a PreviousTurn. For
// the chat executors without an agent (Chat) it decides the routing,
// SYSTEM_CHAT and KNOWLEDGE_QUERY outcomes, with the knowledge answer's
// reference check as a guard. One text table per language and one Markdown
// escaping serve both. Guard reasons are returned for the audit only and
// never published.
package release

import (
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Decision is everything the application persists and shows after release.
type Decision struct {
	// Outcome is what is published; its run status is Outcome.Status().
	Outcome    runrecord.Outcome
	StopReason runrecord.StopReason
	// Answer is the bounded Markdown shown to the user.
	Answer string
	// Published is set for the SUCCESS outcome only.
	Published *PublishedResult
	// Checks are the completed evidence checks (one-line summaries), for the
	// `-o json` "checks" field.
	Checks []runrecord.Check
	// Reviews are the guards' verdicts, for the audit store only.
	Reviews      []GuardReview
	ErrorCode    string
	ErrorMessage string
	// ModelError is the model server failure that ended the run (stop
	// reason MODEL_UNAVAILABLE), for the caller's hint; never published.
	ModelError *model.Error
}

// Config wires the release of one run.
type Config struct {
	// Model answers the SemanticGuard call.
	Model model.ChatModel
	// Language is auto, zh or en, resolved like agent.PromptLanguage; it
	// picks the guard prompt's and the answer's language.
	Language string
	// ObservationLimit is limits.observation; it bounds the observations the
	// guard may be shown (the harness already bounded them to it).
	ObservationLimit int
	// Hints are the caller's pointers to its own commands and settings, by
	// language (en, zh); nil names none.
	Hints map[string]Hints
}

// Release applies the outcome rules of docs/SPEC.md#release-outcomes to the
// agent's result and ends the run through harness.RunContext.End, whatever
// the result: when the run's end was already taken (e.g. Ctrl-C during the
// guard call), a late guard answer cannot complete the run and the outcome
// follows the run's actual end.
func Release(rc *harness.RunContext, cfg Config, query string, res agent.Result) Decision {
	r := &releaser{rc: rc, cfg: cfg, query: query, res: res, sc: newScrubber(res.Invocations), lang: textsFor(agent.PromptLanguage(cfg.Language, query), cfg.Hints)}
	r.progress = progressOf(res)
	for i, c := range r.progress.Checks {
		r.progress.Checks[i].Summary = r.sc.inline(c.Summary, harness.MaxCheckSummaryBytes)
	}
	switch reason := orInternal(res.StopReason); {
	case res.Draft != nil:
		return r.draft()
	case reason == runrecord.StopInputRejected:
		msg := r.lang.inputRejected
		if res.Err != nil {
			msg = safe(res.Err.Error(), 500)
		}
		return r.terminate(r.failed(runrecord.StopInputRejected, msg))
	case reason == runrecord.StopCancelled:
		return r.terminate(r.cancelled())
	case isControlledStop(reason):
		if r.progress.HasProgress() {
			return r.terminate(r.fallback(reason))
		}
		return r.terminate(r.failed(reason, r.lang.failStopped(reason)))
	case res.Snapshot != nil && res.Snapshot.HasProgress():
		// An invalid answer after safe progress.
		return r.terminate(r.fallback(runrecord.StopInvalidOutput))
	default:
		d := r.terminate(r.failed(reason, r.lang.failMessage(reason, res.Err)))
		if d.StopReason == runrecord.StopModelUnavailable {
			d.ModelError = model.AsError(res.Err)
		}
		return d
	}
}

type releaser struct {
	rc       *harness.RunContext
	cfg      Config
	query    string
	res      agent.Result
	sc       scrubber
	lang     *texts
	progress harness.ProgressSnapshot
	reviews  []GuardReview
}

// draft releases a strictly valid draft (res.Draft is set).
func (r *releaser) draft() Decision {
	d := r.res.Draft
	if r.rc.Interrupted() == runrecord.StopCancelled {
		return r.terminate(r.cancelled())
	}
	ev := EvidenceGuard(d, r.res.Invocations)
	r.reviews = append(r.reviews, ev)
	if !ev.Passed() {
		return r.terminate(r.fallback(runrecord.StopGuardRejected))
	}
	if d.Conclusion == nil {
		reason := runrecord.StopNoConclusion
		if isControlledStop(r.res.StopReason) {
			reason = r.res.StopReason
		}
		return r.terminate(r.fallback(reason))
	}
	byID := readyByID(r.res.Invocations, r.cfg.ObservationLimit)
	sem, interrupted := semanticGuard(r.rc, r.cfg, r.query, d, byID)
	r.reviews = append(r.reviews, sem)
	switch interrupted {
	case "":
	case runrecord.StopCancelled:
		return r.terminate(r.cancelled())
	case runrecord.StopDeadline:
		return r.terminate(r.fallback(runrecord.StopDeadline))
	default:
		return r.terminate(r.failed(interrupted, r.lang.failMessage(interrupted, nil)))
	}
	if !sem.Passed() {
		return r.terminate(r.fallback(runrecord.StopGuardRejected))
	}
	p := buildPublished(r.query, d, byID, r.sc)
	return r.terminate(Decision{
		Outcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted,
		Answer: r.lang.successAnswer(p), Published: p, Checks: r.progress.Checks, Reviews: r.reviews,
	})
}

// terminate ends the run with d and publishes what the run's actual end
// allows (conclude).
func (r *releaser) terminate(d Decision) Decision { return conclude(r.rc, d, r) }

// fallback is the honest no-conclusion outcome with its bounded content.
func (r *releaser) fallback(reason runrecord.StopReason) Decision {
	var lim *agent.Limitations
	if r.res.Draft != nil {
		lim = &r.res.Draft.Limitations
	}
	return Decision{
		Outcome: runrecord.OutcomeFallback, StopReason: reason,
		Answer: r.lang.fallbackAnswer(reason, r.progress, lim, r.sc, r.rc.RunID()),
		Checks: r.progress.Checks, Reviews: r.reviews,
	}
}

// failed is the fail-closed outcome; msg must already be safe to show.
func (r *releaser) failed(reason runrecord.StopReason, msg string) Decision {
	return Decision{
		Outcome: runrecord.OutcomeFailed, StopReason: reason,
		Answer: r.lang.failedAnswer(reason, msg), Checks: r.progress.Checks, Reviews: r.reviews,
		ErrorCode: string(reason), ErrorMessage: msg,
	}
}

func (r *releaser) cancelled() Decision {
	return Decision{
		Outcome: runrecord.OutcomeCancelled, StopReason: runrecord.StopCancelled,
		Answer: r.lang.cancelledAnswer, Checks: r.progress.Checks, Reviews: r.reviews,
	}
}

// AuditFailed is the FAILED decision of a run whose audit could not be
// written (diskFull: the store's disk is full), taken after release: what
// was checked stays, nothing is published. It is decided where the run's
// language is no longer known, so it is worded in English.
func AuditFailed(d Decision, diskFull bool) Decision {
	t := enTexts()
	msg := t.audit
	if diskFull {
		msg += t.auditFull
	}
	return Decision{
		Outcome: runrecord.OutcomeFailed, StopReason: runrecord.StopInternal,
		Answer: failedText(t.auditH, t.failedLine, runrecord.StopInternal, msg), Checks: d.Checks, Reviews: d.Reviews,
		ErrorCode: string(runrecord.StopInternal), ErrorMessage: msg,
	}
}

// isControlledStop reports whether a draft's stop reason is a named limit
// the fallback should report instead of NO_CONCLUSION.
func isControlledStop(r runrecord.StopReason) bool {
	switch r {
	case runrecord.StopSaturated, runrecord.StopToolBudget, runrecord.StopModelBudget, runrecord.StopTokenBudget, runrecord.StopByteBudget, runrecord.StopDeadline:
		return true
	}
	return false
}

func orInternal(r runrecord.StopReason) runrecord.StopReason {
	if r == "" {
		return runrecord.StopInternal
	}
	return r
}

// readyByID indexes the run's invocations by Tool Call ID for the guard
// request and the sources; an observation longer than limit (which the
// harness never produces) is replaced by an empty object rather than shown.
func readyByID(invs []harness.Invocation, limit int) map[string]harness.Invocation {
	byID := map[string]harness.Invocation{}
	for _, inv := range invs {
		if limit > 0 && len(inv.Observation) > limit {
			inv.Observation = []byte(`{}`)
		}
		byID[inv.ToolCallID] = inv
	}
	return byID
}

// progressOf is the run's safe progress: the agent's snapshot when it made
// one, else the same account built from the run's completed evidence checks.
func progressOf(res agent.Result) harness.ProgressSnapshot {
	if res.Snapshot != nil {
		s := *res.Snapshot
		s.Checks = append([]runrecord.Check{}, s.Checks[:min(len(s.Checks), harness.MaxSnapshotChecks)]...)
		return s
	}
	return harness.SnapshotOf(res.Invocations, res.StopReason)
}

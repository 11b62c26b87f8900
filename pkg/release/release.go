// Package release decides what a diagnosis run may publish. It runs the
// EvidenceGuard (deterministic citation checks) and the SemanticGuard (one
// no-tool model call) on the agent's draft, applies the outcome rules
// (SUCCESS, FALLBACK, FAILED, CANCELLED), builds the PublishedResult and the
// deterministic, bounded fallback content, and bounds a PreviousTurn. Guard
// reasons are returned for the audit only and never published.
package release

import (
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
)

// Outcome is the release outcome of a run (docs/SPEC.md#release-outcomes).
type Outcome string

// The release outcomes.
const (
	// Success: a conclusion passed both guards and is published.
	Success Outcome = "SUCCESS"
	// Fallback: the run finished honestly without a publishable conclusion.
	Fallback Outcome = "FALLBACK"
	// Failed: a failure without safe progress to show.
	Failed Outcome = "FAILED"
	// Cancelled: the run was cancelled; nothing is published.
	Cancelled Outcome = "CANCELLED"
)

// The run statuses a Decision carries (status in docs/SPEC.md#diagnose--o-json).
const (
	StatusSuccess   = "SUCCESS"
	StatusFailed    = "FAILED"
	StatusCancelled = "CANCELLED"
)

// Decision is everything the application persists and shows after release.
type Decision struct {
	Outcome Outcome
	// Status is the run status: SUCCESS for the SUCCESS and FALLBACK outcomes.
	Status     string
	StopReason harness.StopReason
	// Answer is the bounded Markdown shown to the user.
	Answer string
	// Published is set for the SUCCESS outcome only.
	Published *PublishedResult
	// Checks are the completed evidence checks (one-line summaries), for the
	// `-o json` "checks" field.
	Checks []harness.Check
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
}

// Release applies the outcome rules of docs/SPEC.md#release-outcomes to the agent's result.
// For a draft it performs the run's single terminal transition; when that
// transition was already taken (e.g. Ctrl-C during the guard call), a late
// guard answer cannot complete the run and the outcome follows the run.
func Release(rc *harness.RunContext, cfg Config, query string, res agent.Result) Decision {
	r := &releaser{rc: rc, cfg: cfg, query: query, res: res, sc: newScrubber(res.Invocations), lang: textsFor(agent.PromptLanguage(cfg.Language, query))}
	r.progress = progressOf(res)
	for i, c := range r.progress.Checks {
		r.progress.Checks[i].Summary = r.sc.inline(c.Summary, harness.MaxCheckSummaryBytes)
	}
	switch res.Kind {
	case agent.KindDraft:
		return r.draft()
	case agent.KindStopped:
		reason := orInternal(res.StopReason)
		rc.Terminate(reason)
		if r.progress.HasProgress() {
			return r.fallback(reason)
		}
		return r.failed(reason, r.lang.failStopped(reason))
	case agent.KindFailed:
		rc.Terminate(orInternal(res.StopReason))
		if res.Snapshot != nil && res.Snapshot.HasProgress() {
			return r.fallback(harness.StopInvalidOutput)
		}
		d := r.failed(orInternal(res.StopReason), r.lang.failMessage(orInternal(res.StopReason), res.Err))
		if d.StopReason == harness.StopModelUnavailable {
			d.ModelError = model.AsError(res.Err)
		}
		return d
	case agent.KindRejected:
		rc.Terminate(harness.StopInputRejected)
		msg := r.lang.inputRejected
		if res.Err != nil {
			msg = safe(res.Err.Error(), 500)
		}
		return r.failed(harness.StopInputRejected, msg)
	case agent.KindCancelled:
		rc.Terminate(harness.StopCancelled)
		return r.cancelled()
	}
	rc.Terminate(harness.StopInternal)
	return r.failed(harness.StopInternal, r.lang.failMessage(harness.StopInternal, nil))
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

// draft releases a strictly valid draft.
func (r *releaser) draft() Decision {
	d := r.res.Draft
	if d == nil {
		r.rc.Terminate(harness.StopInternal)
		return r.failed(harness.StopInternal, r.lang.failMessage(harness.StopInternal, nil))
	}
	if r.rc.Interrupted() == harness.StopCancelled {
		r.rc.Terminate(harness.StopCancelled)
		return r.cancelled()
	}
	ev := EvidenceGuard(d, r.res.Invocations)
	r.reviews = append(r.reviews, ev)
	if !ev.Passed() {
		return r.terminate(r.fallback(harness.StopGuardRejected))
	}
	if d.Conclusion == nil {
		reason := harness.StopNoConclusion
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
	case harness.StopCancelled:
		r.rc.Terminate(harness.StopCancelled)
		return r.cancelled()
	case harness.StopDeadline:
		return r.terminate(r.fallback(harness.StopDeadline))
	default:
		return r.terminate(r.failed(interrupted, r.lang.failMessage(interrupted, nil)))
	}
	if !sem.Passed() {
		return r.terminate(r.fallback(harness.StopGuardRejected))
	}
	p := buildPublished(r.query, d, byID, r.sc)
	return r.terminate(Decision{
		Outcome: Success, Status: StatusSuccess, StopReason: harness.StopCompleted,
		Answer: r.lang.successAnswer(p), Published: p, Checks: r.progress.Checks, Reviews: r.reviews,
	})
}

// terminate takes the run's single terminal transition for d; when the run
// had already ended, d is replaced by what the run's end says.
func (r *releaser) terminate(d Decision) Decision {
	if r.rc.Terminate(d.StopReason) {
		return d
	}
	lc, reason := r.rc.State()
	if lc == harness.Cancelled {
		return r.cancelled()
	}
	if reason == "" || reason == d.StopReason {
		// Ended by the same reason elsewhere (e.g. the agent's own stop).
		return d
	}
	return r.failed(reason, r.lang.failMessage(reason, nil))
}

// fallback is the honest no-conclusion outcome with its bounded content.
func (r *releaser) fallback(reason harness.StopReason) Decision {
	var lim *agent.Limitations
	if r.res.Draft != nil {
		lim = &r.res.Draft.Limitations
	}
	return Decision{
		Outcome: Fallback, Status: StatusSuccess, StopReason: reason,
		Answer: r.lang.fallbackAnswer(reason, r.progress, lim, r.sc, r.rc.RunID()),
		Checks: r.progress.Checks, Reviews: r.reviews,
	}
}

// failed is the fail-closed outcome; msg must already be safe to show.
func (r *releaser) failed(reason harness.StopReason, msg string) Decision {
	return Decision{
		Outcome: Failed, Status: StatusFailed, StopReason: reason,
		Answer: r.lang.failedAnswer(reason, msg), Checks: r.progress.Checks, Reviews: r.reviews,
		ErrorCode: string(reason), ErrorMessage: msg,
	}
}

func (r *releaser) cancelled() Decision {
	return Decision{
		Outcome: Cancelled, Status: StatusCancelled, StopReason: harness.StopCancelled,
		Answer: r.lang.cancelledAnswer, Checks: r.progress.Checks, Reviews: r.reviews,
	}
}

// isControlledStop reports whether a draft's stop reason is a named limit
// the fallback should report instead of NO_CONCLUSION.
func isControlledStop(r harness.StopReason) bool {
	switch r {
	case harness.StopSaturated, harness.StopToolBudget, harness.StopModelBudget, harness.StopTokenBudget, harness.StopByteBudget, harness.StopDeadline:
		return true
	}
	return false
}

func orInternal(r harness.StopReason) harness.StopReason {
	if r == "" {
		return harness.StopInternal
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
		s.Checks = append([]harness.Check{}, s.Checks[:min(len(s.Checks), harness.MaxSnapshotChecks)]...)
		return s
	}
	return harness.SnapshotOf(res.Invocations, res.StopReason)
}

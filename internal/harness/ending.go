package harness

// This file is the run vocabulary every layer shares (run status, release
// outcome, lifecycle, stop reason) and the one rule of how a run may end:
// which lifecycle each stop reason ends in and which release outcome it
// allows. The run store keeps the same words as plain strings (its SQL CHECK
// sets); a test in internal/runstore holds the three in agreement.
//
// Who ends a run: the harness stops it for a cancel (CANCELLED) or a failed
// audit (INTERNAL_ERROR), and the agent for its own stops (Terminate); the
// releaser of the run — release for a diagnosis, the chat executors for
// theirs, the application for a run left open — ends it with End, which
// takes the transition if nobody did and settles the outcome by the table
// below. Whichever stop came first, the outcome comes from ruleOf and
// Settle, never from the caller that came second.

// RunStatus is a stored run's status: RUNNING until its single terminal
// transition, then SUCCESS (a released SUCCESS or FALLBACK), FAILED or
// CANCELLED (docs/SPEC.md#diagnose--o-json).
type RunStatus string

// The run statuses.
const (
	RunStatusRunning   RunStatus = "RUNNING"
	RunStatusSuccess   RunStatus = "SUCCESS"
	RunStatusFailed    RunStatus = "FAILED"
	RunStatusCancelled RunStatus = "CANCELLED"
)

// Outcome is the release outcome of a finished run (docs/SPEC.md#release-outcomes).
type Outcome string

// The release outcomes, from the best a run can end with to the worst.
const (
	// OutcomeSuccess: a conclusion passed every release check and is published.
	OutcomeSuccess Outcome = "SUCCESS"
	// OutcomeFallback: the run finished honestly without a publishable conclusion.
	OutcomeFallback Outcome = "FALLBACK"
	// OutcomeFailed: a failure without safe progress to show.
	OutcomeFailed Outcome = "FAILED"
	// OutcomeCancelled: the run was cancelled; nothing is published.
	OutcomeCancelled Outcome = "CANCELLED"
)

// Status is the run status an outcome is stored with: a FALLBACK is an
// honest answer, so its run succeeded.
func (o Outcome) Status() RunStatus {
	switch o {
	case OutcomeSuccess, OutcomeFallback:
		return RunStatusSuccess
	case OutcomeCancelled:
		return RunStatusCancelled
	}
	return RunStatusFailed
}

// RunStatuses lists every run status, for exhaustive tests and checks.
func RunStatuses() []RunStatus {
	return []RunStatus{RunStatusRunning, RunStatusSuccess, RunStatusFailed, RunStatusCancelled}
}

// Outcomes lists every release outcome, best first.
func Outcomes() []Outcome {
	return []Outcome{OutcomeSuccess, OutcomeFallback, OutcomeFailed, OutcomeCancelled}
}

// Lifecycles lists every lifecycle state, RUNNING first.
func Lifecycles() []Lifecycle {
	return []Lifecycle{Running, Completed, BudgetExhausted, DeadlineReached, Cancelled, Failed}
}

// StopReasons lists every stop reason a run can end with.
func StopReasons() []StopReason {
	return []StopReason{
		StopCompleted, StopNoConclusion, StopSaturated, StopToolBudget, StopModelBudget, StopTokenBudget,
		StopByteBudget, StopDeadline, StopCancelled, StopInvalidOutput, StopGuardRejected, StopInputRejected,
		StopModelUnavailable, StopRoutingFailed, StopInternal,
	}
}

// rule is how one stop reason may end a run: the lifecycle it ends in and
// the best release outcome it allows.
type rule struct {
	lifecycle Lifecycle
	best      Outcome
}

// ruleOf is the table of who may end a run with what. Only COMPLETED (a
// conclusion that passed every check) may publish a SUCCESS. The honest
// ends — no conclusion, saturation, a spent budget, the deadline, a draft
// the guards refused, or an invalid answer after safe progress — may at
// best be a FALLBACK, and FAILED when there is nothing safe to show. Input
// refusals, model and routing failures and internal errors always fail;
// a cancellation is always CANCELLED. ok is false for a reason missing from
// the table (which then fails closed).
func ruleOf(r StopReason) (rule, bool) {
	switch r {
	case StopCompleted:
		return rule{Completed, OutcomeSuccess}, true
	case StopNoConclusion, StopSaturated, StopGuardRejected:
		return rule{Completed, OutcomeFallback}, true
	case StopToolBudget, StopModelBudget, StopTokenBudget, StopByteBudget:
		return rule{BudgetExhausted, OutcomeFallback}, true
	case StopDeadline:
		return rule{DeadlineReached, OutcomeFallback}, true
	case StopInvalidOutput:
		return rule{Failed, OutcomeFallback}, true
	case StopCancelled:
		return rule{Cancelled, OutcomeCancelled}, true
	case StopInputRejected, StopModelUnavailable, StopRoutingFailed, StopInternal:
		return rule{Failed, OutcomeFailed}, true
	}
	return rule{Failed, OutcomeFailed}, false
}

// lifecycleFor maps a stop reason to the lifecycle it ends in.
func lifecycleFor(r StopReason) Lifecycle {
	ru, _ := ruleOf(r)
	return ru.lifecycle
}

// Settle is the release outcome a run ending for reason gets when its
// releaser proposes proposed: the proposal, capped by the best outcome the
// reason allows. A cancellation is always CANCELLED, CANCELLED is never the
// outcome of another reason, and an unknown proposal fails closed.
func Settle(reason StopReason, proposed Outcome) Outcome {
	ru, _ := ruleOf(reason)
	switch {
	case ru.best == OutcomeCancelled:
		return OutcomeCancelled
	case rank(proposed) < rank(ru.best):
		return ru.best
	case rank(proposed) == rank(OutcomeFailed):
		// FAILED, a CANCELLED without its reason, or no known outcome.
		return OutcomeFailed
	}
	return proposed
}

// rank orders the publishing outcomes, best (0) first; anything unknown is
// ranked as FAILED.
func rank(o Outcome) int {
	switch o {
	case OutcomeSuccess:
		return 0
	case OutcomeFallback:
		return 1
	}
	return 2
}

// Ending is a run's single terminal transition as it was taken.
type Ending struct {
	Lifecycle Lifecycle
	Reason    StopReason
	Outcome   Outcome
}

// End is how a releaser (release, the chat executors, the application)
// ends the run: it proposes a stop reason and the outcome it would publish.
// The run's single terminal transition is taken for reason unless it was
// taken earlier (a cancel, a failed audit, the agent's own stop); either
// way the Ending is the run's actual end, with the outcome Settle allows
// for its actual reason. The releaser publishes what the Ending says,
// never its own proposal, so a stop taken elsewhere cannot be overruled.
func (rc *RunContext) End(reason StopReason, proposed Outcome) Ending {
	rc.Terminate(reason)
	lc, actual := rc.State()
	if actual == "" {
		actual = StopInternal
	}
	return Ending{Lifecycle: lc, Reason: actual, Outcome: Settle(actual, proposed)}
}

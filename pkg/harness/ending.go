package harness

import "github.com/superbiz/superbiz/pkg/runrecord"

// This file is the one rule of how a run may end: which lifecycle each
// stop reason (runrecord's vocabulary) ends in and which release outcome it
// allows.
//
// Who ends a run: the harness stops it for a cancel (CANCELLED) or a failed
// audit (INTERNAL_ERROR), and the agent for its own stops (Terminate); the
// releaser of the run ends it with End from one place, release's conclude
// (for a diagnosis and the chat executors alike): End takes the transition
// if nobody did and settles the outcome by the table below. The
// application only records the end End took. Whichever stop came first, the
// outcome comes from ruleOf and settle (inside End), never from the caller
// that came second.

// rule is how one stop reason may end a run: the lifecycle it ends in and
// the best release outcome it allows.
type rule struct {
	lifecycle runrecord.Lifecycle
	best      runrecord.Outcome
}

// ruleOf is the table of who may end a run with what. Only COMPLETED (a
// conclusion that passed every check) may publish a SUCCESS. The honest
// ends — no conclusion, saturation, a spent budget, the deadline, a draft
// the guards refused, or an invalid answer after safe progress — may at
// best be a FALLBACK, and FAILED when there is nothing safe to show. Input
// refusals, model and routing failures and internal errors always fail;
// a cancellation is always CANCELLED. ok is false for a reason missing from
// the table (which then fails closed).
func ruleOf(r runrecord.StopReason) (rule, bool) {
	switch r {
	case runrecord.StopCompleted:
		return rule{runrecord.Completed, runrecord.OutcomeSuccess}, true
	case runrecord.StopNoConclusion, runrecord.StopSaturated, runrecord.StopGuardRejected:
		return rule{runrecord.Completed, runrecord.OutcomeFallback}, true
	case runrecord.StopToolBudget, runrecord.StopModelBudget, runrecord.StopTokenBudget, runrecord.StopByteBudget:
		return rule{runrecord.BudgetExhausted, runrecord.OutcomeFallback}, true
	case runrecord.StopDeadline:
		return rule{runrecord.DeadlineReached, runrecord.OutcomeFallback}, true
	case runrecord.StopInvalidOutput:
		return rule{runrecord.Failed, runrecord.OutcomeFallback}, true
	case runrecord.StopCancelled:
		return rule{runrecord.Cancelled, runrecord.OutcomeCancelled}, true
	case runrecord.StopInputRejected, runrecord.StopModelUnavailable, runrecord.StopRoutingFailed, runrecord.StopInternal, runrecord.StopInterrupted:
		return rule{runrecord.Failed, runrecord.OutcomeFailed}, true
	}
	return rule{runrecord.Failed, runrecord.OutcomeFailed}, false
}

// lifecycleFor maps a stop reason to the lifecycle it ends in.
func lifecycleFor(r runrecord.StopReason) runrecord.Lifecycle {
	ru, _ := ruleOf(r)
	return ru.lifecycle
}

// settle is the release outcome a run ending for reason gets when its
// releaser proposes proposed: the proposal, capped by the best outcome the
// reason allows. A cancellation is always CANCELLED, CANCELLED is never the
// outcome of another reason, and an unknown proposal fails closed.
func settle(reason runrecord.StopReason, proposed runrecord.Outcome) runrecord.Outcome {
	ru, _ := ruleOf(reason)
	switch {
	case ru.best == runrecord.OutcomeCancelled:
		return runrecord.OutcomeCancelled
	case rank(proposed) < rank(ru.best):
		return ru.best
	case rank(proposed) == rank(runrecord.OutcomeFailed):
		// FAILED, a CANCELLED without its reason, or no known outcome.
		return runrecord.OutcomeFailed
	}
	return proposed
}

// rank orders the publishing outcomes, best (0) first; anything unknown is
// ranked as FAILED.
func rank(o runrecord.Outcome) int {
	switch o {
	case runrecord.OutcomeSuccess:
		return 0
	case runrecord.OutcomeFallback:
		return 1
	}
	return 2
}

// Ending is a run's single terminal transition as it was taken.
type Ending struct {
	Lifecycle runrecord.Lifecycle
	Reason    runrecord.StopReason
	Outcome   runrecord.Outcome
}

// End is how a releaser (release's conclude) ends the run: it proposes a stop reason and the outcome it would publish.
// The run's single terminal transition is taken for reason unless it was
// taken earlier (a cancel, a failed audit, the agent's own stop); either
// way the Ending is the run's actual end, with the outcome settle allows
// for its actual reason. The releaser publishes what the Ending says,
// never its own proposal, so a stop taken elsewhere cannot be overruled.
func (rc *RunContext) End(reason runrecord.StopReason, proposed runrecord.Outcome) Ending {
	rc.Terminate(reason)
	lc, actual := rc.State()
	if actual == "" {
		actual = runrecord.StopInternal
	}
	return Ending{Lifecycle: lc, Reason: actual, Outcome: settle(actual, proposed)}
}

package release

import (
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// overruled words what a releaser publishes when the run's actual end is
// not the one it proposed: a diagnosis (releaser) and a chat executor
// (Chat) say the same ends, each with its own texts and content.
type overruled interface {
	// endCancelled is the decision of a run cancelled before it ended.
	endCancelled() Decision
	// endFallback is the decision of a run that an honest stop (a budget,
	// the deadline, saturation) ended with reason before proposed.
	endFallback(proposed Decision, reason runrecord.StopReason) Decision
	// endFailed is the decision of a run that reason ended as a failure.
	endFailed(reason runrecord.StopReason) Decision
}

// conclude is the one place a run's end is reconciled with what its
// releaser proposes, for a diagnosis and a chat executor alike. It takes
// the run's single terminal transition for d through
// harness.RunContext.End, whose table decides the lifecycle, stop reason
// and outcome, and publishes d when the run ended as d says; otherwise
// (a cancel, a budget or the deadline, a failed audit came first, or d
// claims more than its reason allows) it publishes the decision for the
// actual end, worded by w, so a late result cannot overrule an earlier stop.
func conclude(rc *harness.RunContext, d Decision, w overruled) Decision {
	end := rc.End(d.StopReason, d.Outcome)
	switch {
	case end.Reason == d.StopReason && end.Outcome == d.Outcome:
		return d
	case end.Outcome == runrecord.OutcomeCancelled:
		return w.endCancelled()
	case end.Outcome == runrecord.OutcomeFallback:
		return w.endFallback(d, end.Reason)
	}
	return w.endFailed(end.Reason)
}

// The diagnosis words an overruled end with its progress: the bounded
// fallback for the actual stop, or the failure that names it.
func (r *releaser) endCancelled() Decision { return r.cancelled() }

func (r *releaser) endFallback(_ Decision, reason runrecord.StopReason) Decision {
	return r.fallback(reason)
}

func (r *releaser) endFailed(reason runrecord.StopReason) Decision {
	return r.failed(reason, r.lang.failMessage(reason, nil))
}

// Conclude ends a chat executor's run for d (see conclude): the caller
// publishes what it returns, never d itself.
func (c Chat) Conclude(rc *harness.RunContext, d Decision) Decision {
	return conclude(rc, d, c)
}

// A chat executor has no partial progress to fall back on: its own fixed
// fallback ("no matching runbook") stays true under another honest stop;
// any other answer is withheld as the stop's failure.
func (c Chat) endCancelled() Decision { return c.Cancelled() }

func (c Chat) endFallback(proposed Decision, reason runrecord.StopReason) Decision {
	if proposed.Outcome == runrecord.OutcomeFallback {
		proposed.StopReason = reason
		return proposed
	}
	return c.Stopped(reason)
}

func (c Chat) endFailed(reason runrecord.StopReason) Decision { return c.Stopped(reason) }

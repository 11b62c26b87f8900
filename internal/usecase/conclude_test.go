package usecase

import (
	"context"
	"testing"

	"github.com/superbiz/superbiz/internal/harness"
	"github.com/superbiz/superbiz/internal/release"
	"github.com/superbiz/superbiz/internal/runrecord"
)

// A chat executor's decision is published only as far as the run's actual
// end allows (harness.RunContext.End): its own end when it is first, a
// cancel over a late answer, the fixed "no matching runbook" fallback kept
// under another honest stop taken first, and a failure for a failure.
func TestConcludeFollowsTheRunsEnd(t *testing.T) {
	tx := release.ChatFor("en", "what is redis?")
	answer := release.Decision{Outcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted, Answer: "hello\n"}
	noRunbook := release.Decision{Outcome: runrecord.OutcomeFallback, StopReason: runrecord.StopNoConclusion, Answer: "## No matching runbook\n"}
	cases := []struct {
		name       string
		first      func(rc *harness.RunContext)
		dec        release.Decision
		outcome    runrecord.Outcome
		reason     runrecord.StopReason
		sameAnswer bool
	}{
		{"first to end", func(*harness.RunContext) {}, answer, runrecord.OutcomeSuccess, runrecord.StopCompleted, true},
		{"cancelled first", func(rc *harness.RunContext) { rc.Cancel() }, answer, runrecord.OutcomeCancelled, runrecord.StopCancelled, false},
		{"an honest stop first keeps the fallback", func(rc *harness.RunContext) { rc.Terminate(runrecord.StopToolBudget) }, noRunbook, runrecord.OutcomeFallback, runrecord.StopToolBudget, true},
		{"an internal error first fails", func(rc *harness.RunContext) { rc.Terminate(runrecord.StopInternal) }, noRunbook, runrecord.OutcomeFailed, runrecord.StopInternal, false},
		{"a budget stop first withholds the answer", func(rc *harness.RunContext) { rc.Terminate(runrecord.StopModelBudget) }, answer, runrecord.OutcomeFailed, runrecord.StopModelBudget, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s_1", RunID: "r_1", Budget: harness.DefaultBudget()})
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Release()
			tc.first(rc)
			got := conclude(rc, tx, tc.dec)
			if got.Outcome != tc.outcome || got.StopReason != tc.reason || (got.Answer == tc.dec.Answer) != tc.sameAnswer {
				t.Fatalf("concluded %s/%s (answer %q), want %s/%s", got.Outcome, got.StopReason, got.Answer, tc.outcome, tc.reason)
			}
			if _, r := rc.State(); r != tc.reason {
				t.Fatalf("the run ended %s, the decision says %s", r, tc.reason)
			}
		})
	}
}

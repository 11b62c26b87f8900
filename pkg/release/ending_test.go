package release

import (
	"context"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// A diagnosis's proposal is published only as far as the run's actual end
// allows (conclude): a cancel taken first publishes the cancellation over
// the agent's budget stop, and a budget stop taken first turns an invalid
// answer's fallback into that budget's fallback.
func TestConcludeDiagnosisFollowsTheRunsEnd(t *testing.T) {
	cases := []struct {
		name      string
		first     func(rc *harness.RunContext)
		proposal  runrecord.StopReason
		outcome   runrecord.Outcome
		reason    runrecord.StopReason
		answerHas string
	}{
		{"cancelled first", func(rc *harness.RunContext) { rc.Cancel() }, runrecord.StopToolBudget, runrecord.OutcomeCancelled, runrecord.StopCancelled, "cancelled"},
		{"a budget stop first", func(rc *harness.RunContext) { rc.Terminate(runrecord.StopToolBudget) }, runrecord.StopInvalidOutput, runrecord.OutcomeFallback, runrecord.StopToolBudget, "--max-tool-calls"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			providertest.Each(t, func(t *testing.T, p providertest.Provider) {
				f := newFixture(t, p)
				f.standardChecks()
				tc.first(f.rc)
				snap := f.boundary.Snapshot(tc.proposal)
				// The agent reports its own stop; the run already ended otherwise.
				d := f.release(agent.Result{StopReason: tc.proposal, Snapshot: &snap, Invocations: f.boundary.Invocations()})
				if d.Outcome != tc.outcome || d.StopReason != tc.reason || d.Published != nil || !strings.Contains(d.Answer, tc.answerHas) {
					t.Fatalf("decision = %s/%s, answer:\n%s\nwant %s/%s saying %q", d.Outcome, d.StopReason, d.Answer, tc.outcome, tc.reason, tc.answerHas)
				}
				if _, r := f.rc.State(); r != tc.reason {
					t.Fatalf("the run ended %s, the decision says %s", r, tc.reason)
				}
			})
		})
	}
}

// A chat executor's decision is published only as far as the run's actual
// end allows (conclude): its own end when it is first, a cancel over a late
// answer, the fixed "no matching runbook" fallback kept under another
// honest stop taken first, and a failure for a failure.
func TestConcludeChatFollowsTheRunsEnd(t *testing.T) {
	tx := ChatFor("en", "what is redis?")
	answer := Decision{Outcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted, Answer: "hello\n"}
	noRunbook := Decision{Outcome: runrecord.OutcomeFallback, StopReason: runrecord.StopNoConclusion, Answer: "## No matching runbook\n"}
	cases := []struct {
		name       string
		first      func(rc *harness.RunContext)
		dec        Decision
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
			got := tx.Conclude(rc, tc.dec)
			if got.Outcome != tc.outcome || got.StopReason != tc.reason || (got.Answer == tc.dec.Answer) != tc.sameAnswer {
				t.Fatalf("concluded %s/%s (answer %q), want %s/%s", got.Outcome, got.StopReason, got.Answer, tc.outcome, tc.reason)
			}
			if tc.outcome == runrecord.OutcomeCancelled && got.Answer != tx.Cancelled().Answer {
				t.Fatalf("a cancelled chat run says %q", got.Answer)
			}
			if _, r := rc.State(); r != tc.reason {
				t.Fatalf("the run ended %s, the decision says %s", r, tc.reason)
			}
		})
	}
}

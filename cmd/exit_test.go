package cmd

import (
	"testing"

	"github.com/superbiz/superbiz/internal/harness"
	"github.com/superbiz/superbiz/internal/model"
	"github.com/superbiz/superbiz/internal/usecase"
)

// outcomeExit is the one outcome → exit code mapping of docs/SPEC.md#exit-codes;
// it is checked for every outcome and every stop reason, with and without a
// typed model error (the router that could not reach the model), together
// with chat line mode's grading built on it.
func TestOutcomeExitCoversEveryOutcomeAndReason(t *testing.T) {
	unreachable := &model.Error{Kind: model.ErrUnreachable, Host: "http://127.0.0.1:11434"}
	for _, o := range harness.Outcomes() {
		for _, r := range harness.StopReasons() {
			for _, me := range []*model.Error{nil, unreachable} {
				out := usecase.Output{ReleaseOutcome: o, StopReason: r, Status: o.Status(), ModelError: me}
				want := ExitFailed
				switch {
				case o == harness.OutcomeSuccess:
					want = ExitOK
				case o == harness.OutcomeFallback:
					want = ExitFallback
				case o == harness.OutcomeCancelled:
					want = ExitCancelled
				case r == harness.StopInputRejected:
					want = ExitUsage
				case r == harness.StopModelUnavailable, me != nil:
					want = ExitUnavailable
				}
				if got := outcomeExit(out); got != want {
					t.Errorf("outcomeExit(%s, %s, model error %v) = %d, want %d", o, r, me != nil, got, want)
				}
				// Line mode: a fallback is answered, a rejected message failed.
				chatWant := want
				switch want {
				case ExitFallback:
					chatWant = ExitOK
				case ExitUsage:
					chatWant = ExitFailed
				}
				if got := chatExit(out); got != chatWant {
					t.Errorf("chatExit(%s, %s, model error %v) = %d, want %d", o, r, me != nil, got, chatWant)
				}
			}
		}
	}
	// The cases SPEC names, spelled out.
	spelled := []struct {
		name string
		out  usecase.Output
		want int
	}{
		{"released", usecase.Output{ReleaseOutcome: harness.OutcomeSuccess, StopReason: harness.StopCompleted}, ExitOK},
		{"no conclusion", usecase.Output{ReleaseOutcome: harness.OutcomeFallback, StopReason: harness.StopNoConclusion}, ExitFallback},
		{"cancelled", usecase.Output{ReleaseOutcome: harness.OutcomeCancelled, StopReason: harness.StopCancelled}, ExitCancelled},
		{"input rejected", usecase.Output{ReleaseOutcome: harness.OutcomeFailed, StopReason: harness.StopInputRejected}, ExitUsage},
		{"model down", usecase.Output{ReleaseOutcome: harness.OutcomeFailed, StopReason: harness.StopModelUnavailable}, ExitUnavailable},
		{"router could not reach the model", usecase.Output{ReleaseOutcome: harness.OutcomeFailed, StopReason: harness.StopRoutingFailed, ModelError: unreachable}, ExitUnavailable},
		{"router gave no intent", usecase.Output{ReleaseOutcome: harness.OutcomeFailed, StopReason: harness.StopRoutingFailed}, ExitFailed},
		{"internal error", usecase.Output{ReleaseOutcome: harness.OutcomeFailed, StopReason: harness.StopInternal}, ExitFailed},
	}
	for _, tc := range spelled {
		if got := outcomeExit(tc.out); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

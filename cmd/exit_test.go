package cmd

import (
	"testing"

	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// outcomeExit is the one outcome → exit code mapping of docs/SPEC.md#exit-codes;
// it is checked for every outcome and every stop reason, with and without a
// typed model error (the router that could not reach the model), together
// with chat line mode's grading built on it.
func TestOutcomeExitCoversEveryOutcomeAndReason(t *testing.T) {
	unreachable := &model.Error{Kind: model.ErrUnreachable, Host: "http://127.0.0.1:11434"}
	for _, o := range runrecord.Outcomes() {
		for _, r := range runrecord.StopReasons() {
			for _, me := range []*model.Error{nil, unreachable} {
				out := usecase.Output{ReleaseOutcome: o, StopReason: r, Status: o.Status(), ModelError: me}
				want := ExitFailed
				switch {
				case o == runrecord.OutcomeSuccess:
					want = ExitOK
				case o == runrecord.OutcomeFallback:
					want = ExitFallback
				case o == runrecord.OutcomeCancelled:
					want = ExitCancelled
				case r == runrecord.StopInputRejected:
					want = ExitUsage
				case r == runrecord.StopModelUnavailable, me != nil:
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
		{"released", usecase.Output{ReleaseOutcome: runrecord.OutcomeSuccess, StopReason: runrecord.StopCompleted}, ExitOK},
		{"no conclusion", usecase.Output{ReleaseOutcome: runrecord.OutcomeFallback, StopReason: runrecord.StopNoConclusion}, ExitFallback},
		{"cancelled", usecase.Output{ReleaseOutcome: runrecord.OutcomeCancelled, StopReason: runrecord.StopCancelled}, ExitCancelled},
		{"input rejected", usecase.Output{ReleaseOutcome: runrecord.OutcomeFailed, StopReason: runrecord.StopInputRejected}, ExitUsage},
		{"model down", usecase.Output{ReleaseOutcome: runrecord.OutcomeFailed, StopReason: runrecord.StopModelUnavailable}, ExitUnavailable},
		{"router could not reach the model", usecase.Output{ReleaseOutcome: runrecord.OutcomeFailed, StopReason: runrecord.StopRoutingFailed, ModelError: unreachable}, ExitUnavailable},
		{"router gave no intent", usecase.Output{ReleaseOutcome: runrecord.OutcomeFailed, StopReason: runrecord.StopRoutingFailed}, ExitFailed},
		{"internal error", usecase.Output{ReleaseOutcome: runrecord.OutcomeFailed, StopReason: runrecord.StopInternal}, ExitFailed},
	}
	for _, tc := range spelled {
		if got := outcomeExit(tc.out); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// Every command ends a cancel with the one message, naming what it stored.
func TestCancelledMessage(t *testing.T) {
	for _, tt := range []struct{ stored, want string }{
		{"", "cancelled"},
		{"the run", "cancelled; the run is stored as CANCELLED"},
		{"the replay r_1", "cancelled; the replay r_1 is stored as CANCELLED"},
	} {
		e := cancelled(tt.stored)
		if e.Code != ExitCancelled || e.Err.Error() != tt.want {
			t.Errorf("cancelled(%q) = exit %d %q, want exit %d %q", tt.stored, e.Code, e.Err, ExitCancelled, tt.want)
		}
	}
}

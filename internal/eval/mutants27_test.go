package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// Behaviours a hand mutation pass (docs/MUTATION.md) found no test holding;
// each fails with one planted mutant of grade.go or results.go.

// Only a SUCCESS where a FALLBACK was expected is called a false success: a
// FAILED run is a plain wrong outcome.
func TestGradeFalseSuccessWording(t *testing.T) {
	e := Expect{Outcome: runrecord.OutcomeFallback}
	for _, tt := range []struct {
		outcome      runrecord.Outcome
		falseSuccess bool
	}{
		{runrecord.OutcomeSuccess, true},
		{runrecord.OutcomeFailed, false},
		{runrecord.OutcomeCancelled, false},
	} {
		got := Grade(e, Attempt{Outcome: string(tt.outcome)})
		if len(got) != 1 || got[0].Check != CheckOutcome {
			t.Fatalf("%s: checks %+v, want one outcome check", tt.outcome, got)
		}
		if strings.Contains(got[0].Why, "false success") != tt.falseSuccess {
			t.Errorf("%s: %q, false success said: want %v", tt.outcome, got[0].Why, tt.falseSuccess)
		}
	}
}

// A run that did not succeed is credited with the evidence its completed
// calls read, whatever its outcome (FAILED as FALLBACK), never with its
// citations: a FALLBACK pack's FAILED repeat that read the expected source
// counts in evidence_recall.
func TestRecallOfUnsuccessfulRuns(t *testing.T) {
	e := Expect{Outcome: runrecord.OutcomeFallback, Evidence: []string{"query_logs:app", "lookup_knowledge"}}
	for _, tt := range []struct {
		a           Attempt
		found, want int
	}{
		{Attempt{Outcome: string(runrecord.OutcomeFailed), Checked: []string{"query_logs:app"}}, 1, 2},
		{Attempt{Outcome: string(runrecord.OutcomeFailed), Cited: []string{"query_logs:app"}}, 0, 2},
		{Attempt{Outcome: string(runrecord.OutcomeFallback), Checked: []string{"query_logs:app", "lookup_knowledge"}}, 2, 2},
		{Attempt{Outcome: string(runrecord.OutcomeSuccess), Cited: []string{"lookup_knowledge"}, Checked: []string{"query_logs:app"}}, 1, 2},
	} {
		if found, want := recall(e, tt.a); found != tt.found || want != tt.want {
			t.Errorf("%s checked %v cited %v: recall %d/%d, want %d/%d", tt.a.Outcome, tt.a.Checked, tt.a.Cited, found, want, tt.found, tt.want)
		}
	}
}

// A pack with no attempt (a results file whose graded pack lists no run,
// regraded) is not graded: it neither counts as a pass nor makes a rate NaN.
func TestSummaryPackWithoutAttempts(t *testing.T) {
	p := &Pack{ID: "empty", Expect: Expect{Outcome: runrecord.OutcomeFallback, Evidence: []string{"query_logs:app"}}}
	pr := newPackResult(p)
	s := summarize([]*Pack{p}, []PackResult{pr}, [][]Attempt{nil})
	if s.Graded != 0 {
		t.Errorf("graded %d, want 0", s.Graded)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("summary JSON: %v", err)
	}
	if !strings.Contains(string(b), `"pass_at_1":null`) || !strings.Contains(string(b), `"pass_hat_k":null`) {
		t.Errorf("summary %s: want pass_at_1 and pass_hat_k null", b)
	}
}

// A failed pack's grade names each failed check once, in first-failure
// order, as eval compare shows it.
func TestPackGradeNamesEachCheckOnce(t *testing.T) {
	p := PackResult{Outcome: "SUCCESS", FailedChecks: []FailedCheck{
		{CheckEvidence, "query_logs:app is not cited"}, {CheckRootCause, "none of [disk]"}, {CheckEvidence, "lookup_knowledge is not cited"},
	}}
	if got, want := p.Grade(), "fail: evidence,root_cause (SUCCESS)"; got != want {
		t.Errorf("grade %q, want %q", got, want)
	}
}

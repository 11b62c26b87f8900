package harness

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// The ending table, written out: every stop reason's lifecycle and the best
// outcome it allows. A stop reason missing here or in ruleOf fails.
func TestEveryStopReasonHasItsEnding(t *testing.T) {
	want := map[runrecord.StopReason]rule{
		runrecord.StopCompleted:        {runrecord.Completed, runrecord.OutcomeSuccess},
		runrecord.StopNoConclusion:     {runrecord.Completed, runrecord.OutcomeFallback},
		runrecord.StopSaturated:        {runrecord.Completed, runrecord.OutcomeFallback},
		runrecord.StopGuardRejected:    {runrecord.Completed, runrecord.OutcomeFallback},
		runrecord.StopToolBudget:       {runrecord.BudgetExhausted, runrecord.OutcomeFallback},
		runrecord.StopModelBudget:      {runrecord.BudgetExhausted, runrecord.OutcomeFallback},
		runrecord.StopTokenBudget:      {runrecord.BudgetExhausted, runrecord.OutcomeFallback},
		runrecord.StopByteBudget:       {runrecord.BudgetExhausted, runrecord.OutcomeFallback},
		runrecord.StopDeadline:         {runrecord.DeadlineReached, runrecord.OutcomeFallback},
		runrecord.StopInvalidOutput:    {runrecord.Failed, runrecord.OutcomeFallback},
		runrecord.StopCancelled:        {runrecord.Cancelled, runrecord.OutcomeCancelled},
		runrecord.StopInputRejected:    {runrecord.Failed, runrecord.OutcomeFailed},
		runrecord.StopModelUnavailable: {runrecord.Failed, runrecord.OutcomeFailed},
		runrecord.StopRoutingFailed:    {runrecord.Failed, runrecord.OutcomeFailed},
		runrecord.StopInternal:         {runrecord.Failed, runrecord.OutcomeFailed},
		runrecord.StopInterrupted:      {runrecord.Failed, runrecord.OutcomeFailed},
	}
	for _, r := range runrecord.StopReasons() {
		got, ok := ruleOf(r)
		if !ok {
			t.Errorf("stop reason %s has no ending rule", r)
			continue
		}
		w, listed := want[r]
		if !listed {
			t.Errorf("stop reason %s is missing from this test's table (rule %+v)", r, got)
			continue
		}
		if got != w {
			t.Errorf("%s ends %+v, want %+v", r, got, w)
		}
		if got.lifecycle == runrecord.Running {
			t.Errorf("%s would leave the run RUNNING", r)
		}
	}
	if _, ok := ruleOf("NOT_A_REASON"); ok {
		t.Error("an unknown stop reason has a rule")
	}
	if got := settle("NOT_A_REASON", runrecord.OutcomeSuccess); got != runrecord.OutcomeFailed {
		t.Errorf("an unknown stop reason settles %s, want FAILED (fail closed)", got)
	}
}

// settle caps what a releaser proposes by what the stop reason allows: for
// every reason and proposal the outcome is never better than either, and
// CANCELLED comes from a cancellation only.
func TestSettleCapsTheProposal(t *testing.T) {
	for _, r := range runrecord.StopReasons() {
		allowed, _ := ruleOf(r)
		for _, p := range append(runrecord.Outcomes(), "", "BOGUS") {
			got := settle(r, p)
			if (got == runrecord.OutcomeCancelled) != (r == runrecord.StopCancelled) {
				t.Errorf("settle(%s, %s) = %s: CANCELLED if and only if the run was cancelled", r, p, got)
			}
			if r == runrecord.StopCancelled {
				continue
			}
			if rank(got) < rank(allowed.best) || rank(got) < rank(p) {
				t.Errorf("settle(%s, %s) = %s: better than the reason (%s) or the proposal allows", r, p, got, allowed.best)
			}
		}
	}
	spelled := []struct {
		reason   runrecord.StopReason
		proposed runrecord.Outcome
		want     runrecord.Outcome
	}{
		{runrecord.StopCompleted, runrecord.OutcomeSuccess, runrecord.OutcomeSuccess},
		{runrecord.StopCompleted, runrecord.OutcomeFallback, runrecord.OutcomeFallback},     // a releaser may show less
		{runrecord.StopSaturated, runrecord.OutcomeSuccess, runrecord.OutcomeFallback},      // only COMPLETED publishes
		{runrecord.StopSaturated, runrecord.OutcomeFallback, runrecord.OutcomeFallback},     // an honest end stays a fallback
		{runrecord.StopDeadline, runrecord.OutcomeFallback, runrecord.OutcomeFallback},      // so does the deadline
		{runrecord.StopModelBudget, runrecord.OutcomeFallback, runrecord.OutcomeFallback},   // and a spent budget
		{runrecord.StopInvalidOutput, runrecord.OutcomeFallback, runrecord.OutcomeFallback}, // safe progress before a bad answer
		{runrecord.StopInternal, runrecord.OutcomeFallback, runrecord.OutcomeFailed},        // a failure never shows a fallback
		{runrecord.StopModelUnavailable, runrecord.OutcomeSuccess, runrecord.OutcomeFailed}, // nor a success
		{runrecord.StopCancelled, runrecord.OutcomeSuccess, runrecord.OutcomeCancelled},     // a cancel wins over a late answer
		{runrecord.StopNoConclusion, runrecord.OutcomeCancelled, runrecord.OutcomeFailed},   // CANCELLED needs its reason
		{runrecord.StopCompleted, "BOGUS", runrecord.OutcomeFailed},                         // an unknown proposal fails closed
	}
	for _, tc := range spelled {
		if got := settle(tc.reason, tc.proposed); got != tc.want {
			t.Errorf("settle(%s, %s) = %s, want %s", tc.reason, tc.proposed, got, tc.want)
		}
	}
}

// End reports the run's actual end: a releaser that lost the race to
// another stop publishes what that stop allows, so an honest stop taken
// first (the agent's, say) keeps a FALLBACK a FALLBACK instead of turning it
// into FAILED, a cancel wins over a late answer, and a failed audit fails.
func TestEndFollowsTheRunsActualEnd(t *testing.T) {
	cases := []struct {
		name     string
		before   func(rc *RunContext)
		reason   runrecord.StopReason
		proposed runrecord.Outcome
		want     Ending
	}{
		{"first to end", func(*RunContext) {}, runrecord.StopNoConclusion, runrecord.OutcomeFallback,
			Ending{runrecord.Completed, runrecord.StopNoConclusion, runrecord.OutcomeFallback}},
		{"another honest stop first", func(rc *RunContext) { rc.Terminate(runrecord.StopSaturated) }, runrecord.StopNoConclusion, runrecord.OutcomeFallback,
			Ending{runrecord.Completed, runrecord.StopSaturated, runrecord.OutcomeFallback}},
		{"a budget stop before a success", func(rc *RunContext) { rc.Terminate(runrecord.StopModelBudget) }, runrecord.StopCompleted, runrecord.OutcomeSuccess,
			Ending{runrecord.BudgetExhausted, runrecord.StopModelBudget, runrecord.OutcomeFallback}},
		{"cancelled before a late answer", func(rc *RunContext) { rc.Cancel() }, runrecord.StopCompleted, runrecord.OutcomeSuccess,
			Ending{runrecord.Cancelled, runrecord.StopCancelled, runrecord.OutcomeCancelled}},
		{"audit failed before a fallback", func(rc *RunContext) { rc.auditFailed(errors.New("disk full")) }, runrecord.StopNoConclusion, runrecord.OutcomeFallback,
			Ending{runrecord.Failed, runrecord.StopInternal, runrecord.OutcomeFailed}},
		{"a proposal above its reason", func(*RunContext) {}, runrecord.StopGuardRejected, runrecord.OutcomeSuccess,
			Ending{runrecord.Completed, runrecord.StopGuardRejected, runrecord.OutcomeFallback}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := newRC(t, DefaultBudget())
			tc.before(rc)
			if got := rc.End(tc.reason, tc.proposed); got != tc.want {
				t.Fatalf("End(%s, %s) = %+v, want %+v", tc.reason, tc.proposed, got, tc.want)
			}
			if lc, r := rc.State(); lc != tc.want.Lifecycle || r != tc.want.Reason {
				t.Fatalf("state %s %s, want %s %s", lc, r, tc.want.Lifecycle, tc.want.Reason)
			}
			if again := rc.End(runrecord.StopCompleted, runrecord.OutcomeSuccess); again.Reason != tc.want.Reason {
				t.Fatalf("a second End moved the run to %s", again.Reason)
			}
		})
	}
}

// Who ends a run is fixed: only the harness (Cancel, a failed audit) and
// the agent (its own stops) call Terminate; every releaser — release, the
// chat executors, the application — ends runs through End, so the outcome
// always comes from the ending table. A direct Terminate anywhere else
// fails here.
func TestOnlyTheHarnessAndTheAgentTerminate(t *testing.T) {
	allowed := map[string]bool{"pkg/harness": true, "pkg/agent": true}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var callers []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Terminate" && !allowed[filepath.ToSlash(filepath.Dir(rel))] {
				callers = append(callers, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), fset.Position(call.Pos()).Line))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(callers) > 0 {
		t.Errorf("Terminate called outside the harness and the agent (end runs with RunContext.End): %s", strings.Join(callers, ", "))
	}
}

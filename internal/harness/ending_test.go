package harness

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/goconst"
)

// The "every value" lists hold every constant of their type, so tests that
// iterate over them (the ending table, the exit codes, the store's CHECK
// sets) see a value the moment it is declared.
func TestVocabularyListsAreComplete(t *testing.T) {
	cs, err := goconst.Read(".")
	if err != nil {
		t.Fatal(err)
	}
	sorted := func(vs []string) []string { sort.Strings(vs); return vs }
	cases := []struct {
		typ  string
		list []string
	}{
		{"StopReason", sorted(strs(StopReasons()))},
		{"Outcome", sorted(strs(Outcomes()))},
		{"RunStatus", sorted(strs(RunStatuses()))},
		{"Lifecycle", sorted(strs(Lifecycles()))},
	}
	for _, tc := range cases {
		if want := goconst.OfType(cs, tc.typ); !slices.Equal(tc.list, want) {
			t.Errorf("%s list = %q, constants = %q", tc.typ, tc.list, want)
		}
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// The ending table, written out: every stop reason's lifecycle and the best
// outcome it allows. A stop reason missing here or in ruleOf fails.
func TestEveryStopReasonHasItsEnding(t *testing.T) {
	want := map[StopReason]rule{
		StopCompleted:        {Completed, OutcomeSuccess},
		StopNoConclusion:     {Completed, OutcomeFallback},
		StopSaturated:        {Completed, OutcomeFallback},
		StopGuardRejected:    {Completed, OutcomeFallback},
		StopToolBudget:       {BudgetExhausted, OutcomeFallback},
		StopModelBudget:      {BudgetExhausted, OutcomeFallback},
		StopTokenBudget:      {BudgetExhausted, OutcomeFallback},
		StopByteBudget:       {BudgetExhausted, OutcomeFallback},
		StopDeadline:         {DeadlineReached, OutcomeFallback},
		StopInvalidOutput:    {Failed, OutcomeFallback},
		StopCancelled:        {Cancelled, OutcomeCancelled},
		StopInputRejected:    {Failed, OutcomeFailed},
		StopModelUnavailable: {Failed, OutcomeFailed},
		StopRoutingFailed:    {Failed, OutcomeFailed},
		StopInternal:         {Failed, OutcomeFailed},
	}
	for _, r := range StopReasons() {
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
		if got.lifecycle == Running {
			t.Errorf("%s would leave the run RUNNING", r)
		}
	}
	if _, ok := ruleOf("NOT_A_REASON"); ok {
		t.Error("an unknown stop reason has a rule")
	}
	if got := Settle("NOT_A_REASON", OutcomeSuccess); got != OutcomeFailed {
		t.Errorf("an unknown stop reason settles %s, want FAILED (fail closed)", got)
	}
}

// Settle caps what a releaser proposes by what the stop reason allows: for
// every reason and proposal the outcome is never better than either, and
// CANCELLED comes from a cancellation only.
func TestSettle(t *testing.T) {
	for _, r := range StopReasons() {
		allowed, _ := ruleOf(r)
		for _, p := range append(Outcomes(), "", "BOGUS") {
			got := Settle(r, p)
			if (got == OutcomeCancelled) != (r == StopCancelled) {
				t.Errorf("Settle(%s, %s) = %s: CANCELLED if and only if the run was cancelled", r, p, got)
			}
			if r == StopCancelled {
				continue
			}
			if rank(got) < rank(allowed.best) || rank(got) < rank(p) {
				t.Errorf("Settle(%s, %s) = %s: better than the reason (%s) or the proposal allows", r, p, got, allowed.best)
			}
		}
	}
	spelled := []struct {
		reason   StopReason
		proposed Outcome
		want     Outcome
	}{
		{StopCompleted, OutcomeSuccess, OutcomeSuccess},
		{StopCompleted, OutcomeFallback, OutcomeFallback},     // a releaser may show less
		{StopSaturated, OutcomeSuccess, OutcomeFallback},      // only COMPLETED publishes
		{StopSaturated, OutcomeFallback, OutcomeFallback},     // an honest end stays a fallback
		{StopDeadline, OutcomeFallback, OutcomeFallback},      // so does the deadline
		{StopModelBudget, OutcomeFallback, OutcomeFallback},   // and a spent budget
		{StopInvalidOutput, OutcomeFallback, OutcomeFallback}, // safe progress before a bad answer
		{StopInternal, OutcomeFallback, OutcomeFailed},        // a failure never shows a fallback
		{StopModelUnavailable, OutcomeSuccess, OutcomeFailed}, // nor a success
		{StopCancelled, OutcomeSuccess, OutcomeCancelled},     // a cancel wins over a late answer
		{StopNoConclusion, OutcomeCancelled, OutcomeFailed},   // CANCELLED needs its reason
		{StopCompleted, "BOGUS", OutcomeFailed},               // an unknown proposal fails closed
	}
	for _, tc := range spelled {
		if got := Settle(tc.reason, tc.proposed); got != tc.want {
			t.Errorf("Settle(%s, %s) = %s, want %s", tc.reason, tc.proposed, got, tc.want)
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
		reason   StopReason
		proposed Outcome
		want     Ending
	}{
		{"first to end", func(*RunContext) {}, StopNoConclusion, OutcomeFallback,
			Ending{Completed, StopNoConclusion, OutcomeFallback}},
		{"another honest stop first", func(rc *RunContext) { rc.Terminate(StopSaturated) }, StopNoConclusion, OutcomeFallback,
			Ending{Completed, StopSaturated, OutcomeFallback}},
		{"a budget stop before a success", func(rc *RunContext) { rc.Terminate(StopModelBudget) }, StopCompleted, OutcomeSuccess,
			Ending{BudgetExhausted, StopModelBudget, OutcomeFallback}},
		{"cancelled before a late answer", func(rc *RunContext) { rc.Cancel() }, StopCompleted, OutcomeSuccess,
			Ending{Cancelled, StopCancelled, OutcomeCancelled}},
		{"audit failed before a fallback", func(rc *RunContext) { rc.auditFailed(errors.New("disk full")) }, StopNoConclusion, OutcomeFallback,
			Ending{Failed, StopInternal, OutcomeFailed}},
		{"a proposal above its reason", func(*RunContext) {}, StopGuardRejected, OutcomeSuccess,
			Ending{Completed, StopGuardRejected, OutcomeFallback}},
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
			if again := rc.End(StopCompleted, OutcomeSuccess); again.Reason != tc.want.Reason {
				t.Fatalf("a second End moved the run to %s", again.Reason)
			}
		})
	}
}

// Every outcome has the run status SPEC gives it.
func TestOutcomeStatus(t *testing.T) {
	want := map[Outcome]RunStatus{
		OutcomeSuccess: RunStatusSuccess, OutcomeFallback: RunStatusSuccess,
		OutcomeFailed: RunStatusFailed, OutcomeCancelled: RunStatusCancelled,
	}
	for _, o := range Outcomes() {
		if got, ok := want[o]; !ok || o.Status() != got {
			t.Errorf("%s has status %s, want %s", o, o.Status(), got)
		}
	}
}

// Who ends a run is fixed: only the harness (Cancel, a failed audit) and
// the agent (its own stops) call Terminate; every releaser — release, the
// chat executors, the application — ends runs through End, so the outcome
// always comes from the ending table. A direct Terminate anywhere else
// fails here.
func TestOnlyTheHarnessAndTheAgentTerminate(t *testing.T) {
	allowed := map[string]bool{"internal/harness": true, "internal/agent": true}
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

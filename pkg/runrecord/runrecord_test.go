package runrecord

import (
	"slices"
	"sort"
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
		{"InvocationKind", sorted(strs(InvocationKinds()))},
		{"Purpose", sorted(strs(Purposes()))},
	}
	for _, tc := range cases {
		if want := goconst.OfType(cs, tc.typ); !slices.Equal(tc.list, want) {
			t.Errorf("%s list = %q, constants = %q", tc.typ, tc.list, want)
		}
	}
	// The untyped words, by their names' prefix.
	for prefix, list := range map[string][]string{"Control": Controls(), "Guard": Guards(), "Intent": Intents(), "Invocation": InvocationStatuses()} {
		if want := goconst.WithPrefix(cs, prefix); !slices.Equal(sorted(list), want) {
			t.Errorf("%s list = %q, constants = %q", prefix, list, want)
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

// A shown or stored check carries an ERROR's code at the end of its summary
// and no separate code, so the JSON keeps the {tool, evidence_status,
// summary} shape; a check without a code is unchanged.
func TestCheckFolded(t *testing.T) {
	got := Check{Tool: "query_logs", EvidenceStatus: "ERROR", ErrorCode: "TIMEOUT", Summary: "order ERROR since 1h"}.Folded()
	if want := (Check{Tool: "query_logs", EvidenceStatus: "ERROR", Summary: "order ERROR since 1h (TIMEOUT)"}); got != want {
		t.Errorf("folded = %+v, want %+v", got, want)
	}
	plain := Check{Tool: "query_logs", EvidenceStatus: "NO_EVIDENCE", Summary: "s"}
	if plain.Folded() != plain {
		t.Errorf("a check without a code changed: %+v", plain.Folded())
	}
}

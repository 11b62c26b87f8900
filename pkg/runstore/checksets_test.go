package runstore

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
)

// checkIn matches one `column … CHECK (column IN ('a', 'b'))` of a table's SQL.
var checkIn = regexp.MustCompile(`CHECK\s*\(\s*(\w+)\s+IN\s*\(([^)]*)\)\s*\)`)

// checkSets reads the CHECK (column IN (…)) sets of table as a fresh store
// has it (after every migration), by column.
func checkSets(t *testing.T, s *Store, table string) map[string][]string {
	t.Helper()
	var ddl string
	if err := s.db.QueryRowContext(context.Background(), `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&ddl); err != nil {
		t.Fatalf("read the schema of %s: %v", table, err)
	}
	sets := map[string][]string{}
	for _, m := range checkIn.FindAllStringSubmatch(ddl, -1) {
		var vals []string
		for _, v := range strings.Split(m[2], ",") {
			vals = append(vals, strings.Trim(strings.TrimSpace(v), "'"))
		}
		sort.Strings(vals)
		sets[m[1]] = vals
	}
	return sets
}

func sortedStrings[T ~string](vs []T) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, string(v))
	}
	sort.Strings(out)
	return out
}

// The SQL CHECK sets of a migrated store accept exactly runrecord's words:
// a status, outcome, lifecycle, intent, invocation kind, control, guard or
// model-round purpose added or renamed in runrecord and not in a migration
// fails here, not as a CHECK violation when a run ends.
func TestCheckSetsAcceptRunrecordsWords(t *testing.T) {
	s, _ := openTemp(t)
	var terminal []runrecord.Lifecycle
	for _, lc := range runrecord.Lifecycles() {
		if lc != runrecord.Running {
			terminal = append(terminal, lc)
		}
	}
	cases := []struct {
		table, column string
		words         []string
	}{
		{"runs", "status", sortedStrings(runrecord.RunStatuses())},
		{"runs", "release_outcome", sortedStrings(runrecord.Outcomes())},
		{"runs", "lifecycle", sortedStrings(terminal)},
		{"runs", "intent", sortedStrings(append([]string{""}, runrecord.Intents()...))},
		{"tool_invocations", "kind", sortedStrings(runrecord.InvocationKinds())},
		{"tool_invocations", "control", sortedStrings(runrecord.Controls())},
		{"guard_reviews", "guard", sortedStrings(runrecord.Guards())},
		{"model_rounds", "purpose", sortedStrings(runrecord.Purposes())},
	}
	sets := map[string]map[string][]string{}
	for _, tc := range cases {
		if sets[tc.table] == nil {
			sets[tc.table] = checkSets(t, s, tc.table)
		}
		check, ok := sets[tc.table][tc.column]
		if !ok {
			t.Errorf("%s.%s has no CHECK (… IN (…)) set", tc.table, tc.column)
			continue
		}
		if !slices.Equal(check, tc.words) {
			t.Errorf("%s.%s CHECK = %q, runrecord = %q", tc.table, tc.column, check, tc.words)
		}
	}
}

package runstore

import (
	"context"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/goconst"
	"github.com/superbiz/superbiz/internal/harness"
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

// The store's CHECK sets, its constants and the run vocabulary the engine
// uses (internal/harness) name the same values: a status, outcome, lifecycle,
// intent, invocation kind, control, guard or model-round purpose added or
// renamed in one place and not the others fails here, not as a CHECK
// violation when a run ends.
func TestStoreVocabularyAgrees(t *testing.T) {
	s, _ := openTemp(t)
	own, err := goconst.Read(".")
	if err != nil {
		t.Fatal(err)
	}
	engine, err := goconst.Read("../harness")
	if err != nil {
		t.Fatal(err)
	}
	var terminal []harness.Lifecycle
	for _, lc := range harness.Lifecycles() {
		if lc != harness.Running {
			terminal = append(terminal, lc)
		}
	}
	cases := []struct {
		table, column string
		store         []string // the runstore constants
		engine        []string // the engine's typed values; nil when it has none
	}{
		{"runs", "status", goconst.WithPrefix(own, "Status"), sortedStrings(harness.RunStatuses())},
		{"runs", "release_outcome", goconst.WithPrefix(own, "Outcome"), sortedStrings(harness.Outcomes())},
		{"runs", "lifecycle", goconst.WithPrefix(own, "Lifecycle"), sortedStrings(terminal)},
		{"runs", "intent", append([]string{""}, goconst.WithPrefix(own, "Intent")...), nil},
		{"tool_invocations", "kind", goconst.WithPrefix(own, "Kind"), goconst.OfType(engine, "InvocationKind")},
		{"tool_invocations", "control", nil, goconst.WithPrefix(engine, "Control")},
		{"guard_reviews", "guard", goconst.WithPrefix(own, "Guard"), nil},
		{"model_rounds", "purpose", nil, goconst.OfType(engine, "Purpose")},
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
		if tc.store != nil && !slices.Equal(check, tc.store) {
			t.Errorf("%s.%s CHECK = %q, runstore constants = %q", tc.table, tc.column, check, tc.store)
		}
		if tc.engine != nil && !slices.Equal(check, tc.engine) {
			t.Errorf("%s.%s CHECK = %q, engine values = %q", tc.table, tc.column, check, tc.engine)
		}
		if tc.store == nil && tc.engine == nil {
			t.Errorf("%s.%s is compared with nothing", tc.table, tc.column)
		}
	}
	// Stop reasons are free text in the store (INTERRUPTED is the store's
	// own, set by recovery), so only that one must not collide.
	if slices.Contains(harness.StopReasons(), harness.StopReason(Interrupted)) {
		t.Errorf("%s is both the store's recovery reason and an engine stop reason", Interrupted)
	}
}

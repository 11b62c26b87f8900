package cmd

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// The fitted listing keeps every line within the terminal's width down to
// 80 columns: the short time, calls as model/tool, the query cut with …,
// a replay marked ↻, and more columns only where they leave the query room.
func TestRunsFitTable(t *testing.T) {
	created := time.Date(2026, 12, 2, 5, 59, 0, 0, time.Local)
	runs := []runstore.RunSummary{
		{ID: "r_06h4496ehj8g955dcg", CreatedAt: created, Query: "payment timeouts on order-service since 14:00, many 504s at checkout",
			Number: 12, Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess,
			StopReason: runrecord.StopCompleted, Usage: runrecord.Usage{ModelCalls: 8, ToolCalls: 4, DurationMS: 2500},
			FinishedAt: created.Add(time.Second), ReplayOf: "r_06h442bex9pdtjsn3c"},
		{ID: "r_06h442bex9pdtjsn3c", Number: 9, CreatedAt: created, Query: "调用 query_logs", Intent: runrecord.IntentToolCall,
			Status: runrecord.RunStatusFailed, StopReason: runrecord.StopTokenBudget},
	}
	for _, tc := range []struct {
		width int
		want  []string // the header's columns
	}{
		{80, []string{"#", "RUN", "CREATED", "OUTCOME", "CALLS", "QUERY"}},
		// TOKEN_BUDGET_EXHAUSTED leaves no room for STOP, nor INTENT (9
		// wide) beside the number: the narrower STATUS fits.
		{100, []string{"#", "RUN", "CREATED", "STATUS", "OUTCOME", "CALLS", "DURATION", "QUERY"}},
		{140, []string{"#", "RUN", "CREATED", "INTENT", "STATUS", "OUTCOME", "STOP", "CALLS", "DURATION", "QUERY"}},
	} {
		var b strings.Builder
		if err := (pageRuns{page: textPage{}, width: tc.width}).list(egress.NewWriter(&b), runs, ""); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if got := strings.Fields(lines[0]); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%d columns: header %q, want %q", tc.width, got, tc.want)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > tc.width {
				t.Errorf("%d columns: a line of %d: %q", tc.width, w, l)
			}
		}
		if !regexp.MustCompile(`^12  ↻ r_06h4496ehj8g955dcg  12-02 05:59  .*SUCCESS  .*8/4 .*payment timeouts on .*…$`).MatchString(lines[1]) {
			t.Errorf("%d columns: the replay's row %q", tc.width, lines[1])
		}
		if tc.width == 80 && !strings.Contains(lines[2], " FAILED ") {
			t.Errorf("a run with no release outcome shows its status in OUTCOME: %q", lines[2])
		}
	}
	var piped strings.Builder
	if err := (pageRuns{page: textPage{}}).list(egress.NewWriter(&piped), runs, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(piped.String(), "2026-12-02 05:59") || !strings.Contains(piped.String(), "many 504s at checkout\n") ||
		!strings.Contains(piped.String(), "REPLAY OF") || !strings.Contains(piped.String(), "r_06h442bex9pdtjsn3c  payment") {
		t.Errorf("piped: every column, whole:\n%s", piped.String())
	}
}

// -o wide is a layout of `runs` only: any other command refuses it before
// doing anything.
func TestOutputWideRunsOnly(t *testing.T) {
	env := map[string]string{"SUPERBIZ_DB": t.TempDir() + "/superbiz.db", "XDG_CONFIG_HOME": t.TempDir()}
	for _, args := range [][]string{{"version", "-o", "wide"}, {"replay", "-o", "wide", "r_x"}, {"skills", "list", "-o", "wide"}} {
		if code, _, errOut := cli(t, env, args...); code != ExitUsage || !strings.Contains(errOut, "-o wide is for `superbiz runs` and `runs show` only") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming runs", args, code, errOut)
		}
	}
	emptyStore(t, env)
	for _, args := range [][]string{{"runs", "-o", "wide"}, {"runs", "list", "-o", "wide"}} {
		if code, out, errOut := cli(t, env, args...); code != ExitOK || !strings.Contains(out, "No runs yet") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

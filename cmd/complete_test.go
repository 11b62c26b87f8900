package cmd

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// TestCompleteAlertNames: --alert completes the firing alerts' names from
// Alertmanager, newest first, each name once with its summary; -o its three
// values.
func TestCompleteAlertNames(t *testing.T) {
	env, _ := alertsEnv(t)
	code, out, errOut := cli(t, env, "__complete", "diagnose", "--alert", "")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	want := "HighLatency\torders p99 above 1s\nDiskFull\tdisk /var 95% full\n:36\n"
	if out != want {
		t.Errorf("--alert completion:\n%q\nwant\n%q", out, want)
	}
	code, out, _ = cli(t, env, "__complete", "alerts", "-o", "")
	if code != ExitOK || !strings.HasPrefix(out, "text\t") || !strings.Contains(out, "\nmarkdown\t") || !strings.Contains(out, "\njson\t") {
		t.Errorf("-o completion: exit %d\n%s", code, out)
	}
}

// TestCompleteAlertsUnreachable: an Alertmanager that does not answer
// completes nothing, quickly, with no error.
func TestCompleteAlertsUnreachable(t *testing.T) {
	env := diagnoseEnv(t)
	cfg := t.TempDir() + "/superbiz.toml"
	if err := os.WriteFile(cfg, []byte("[alerts]\nurl = \""+testenv.ClosedURL(t)+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["SUPERBIZ_CONFIG"] = cfg
	code, out, errOut := cli(t, env, "__complete", "diagnose", "--alert", "")
	if code != ExitOK || out != ":36\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want no candidates", code, out, errOut)
	}
}

// TestCompleteCleansStoredIDs: run and session IDs from a crafted store that
// hold a C1 control (CSI), a bidirectional override or non-graphic runes
// are not offered; clean ones are (issue 27 #20: they were printed raw).
func TestCompleteCleansStoredIDs(t *testing.T) {
	env := diagnoseEnv(t)
	ctx := context.Background()
	store, err := runstore.Open(ctx, env["SUPERBIZ_DB"])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ id, session string }{
		{"r_clean", "s_clean"},
		{"r_csi\u009b31mred", "s_csi\u009b2J"},
		{"r_bidi\u202etxt.exe", "s_bidi\u2066x"},
		{"r_zw\u200bx", "s_zw\u00adx"},
		{"r_nbsp\u00a0x", "s_ideo\u3000x"},
	} {
		if _, err := store.EnsureSession(ctx, r.session); err != nil {
			t.Fatal(err)
		}
		if err := store.CreateRun(ctx, runstore.NewRun{ID: r.id, SessionID: r.session, Query: "q " + r.id, Intent: runrecord.IntentDiagnosis}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	// A run is offered by its number whatever its ID holds; as an ID only
	// when that is printable as it is.
	code, out, _ := cli(t, env, "__complete", "runs", "show", "")
	if want := "last\tnewest, 5 · 0s ago · RUNNING · q r_nbsp x\n5\t0s ago · RUNNING · q r_nbsp x\n4\t"; code != ExitOK || !strings.HasPrefix(out, want) ||
		!strings.Contains(out, "\n1\t0s ago · RUNNING · q r_clean\n:36\n") || strings.ContainsAny(out, "\u009b\u202e\u200b\u00a0") {
		t.Errorf("runs show <Tab>: exit %d, candidates %q; want last and the numbers 5 to 1, printable", code, out)
	}
	for _, args := range [][]string{{"runs", "show", "r_"}, {"chat", "--session", ""}} {
		code, out, errOut := cli(t, env, append([]string{"__complete"}, args...)...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != ExitOK || len(lines) != 2 || !strings.HasPrefix(lines[0], "r_clean\t") && !strings.HasPrefix(lines[0], "s_clean\t") {
			t.Errorf("%q: exit %d, candidates %q (stderr %q): want only the clean ID", args, code, lines, errOut)
		}
	}
}

// TestCompleteBounded: a completer that heeds no context (a read stuck in
// the kernel) is given up at completeTimeout, offering nothing; one that
// answers in time is offered whole. A bounded that waited for it would hang
// here until the test binary's own timeout.
func TestCompleteBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	cmd := &cobra.Command{}
	stuck := func(context.Context, globalOptions) []string {
		<-release
		return []string{"late"}
	}
	if got := bounded(cmd, globalOptions{}, stuck); got != nil {
		t.Errorf("a stuck completer: %q, want nothing", got)
	}
	quick := func(ctx context.Context, _ globalOptions) []string {
		if _, ok := ctx.Deadline(); !ok {
			return []string{"no deadline"}
		}
		return []string{"a", "b"}
	}
	if got := bounded(cmd, globalOptions{}, quick); strings.Join(got, ",") != "a,b" {
		t.Errorf("a quick completer: %q, want a and b under a deadline", got)
	}
}

// runRefs offers last and the numbers until the word typed starts as an ID
// does; last only when the newest run is one the command takes; each
// described by age, outcome and query.
func TestRunRefs(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	runs := []runstore.RunSummary{
		{ID: "r_c", Number: 3, CreatedAt: now.Add(-90 * time.Second), Query: "replayed", Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeSuccess, ReplayOf: "r_b"},
		{ID: "r_b", Number: 2, CreatedAt: now.Add(-3 * time.Hour), Query: "why slow", Status: runrecord.RunStatusFailed},
		{ID: "r_a", Number: 1, CreatedAt: now.Add(-72 * time.Hour), Query: "first", Status: runrecord.RunStatusSuccess, ReleaseOutcome: runrecord.OutcomeFallback},
	}
	all := func(*runstore.RunSummary) bool { return true }
	notReplays := func(r *runstore.RunSummary) bool { return r.ReplayOf == "" }
	failed := func(r *runstore.RunSummary) bool { return r.Status == runrecord.RunStatusFailed }
	for _, tc := range []struct {
		typed        string
		keep, isLast func(*runstore.RunSummary) bool
		want         []string
	}{
		{"", all, all, []string{"last\tnewest, 3 · 1m ago · SUCCESS · replayed", "3\t1m ago · SUCCESS · replayed", "2\t3h ago · FAILED · why slow", "1\t3d ago · FALLBACK · first"}},
		{"la", all, all, []string{"last\tnewest, 3 · 1m ago · SUCCESS · replayed", "3\t1m ago · SUCCESS · replayed", "2\t3h ago · FAILED · why slow", "1\t3d ago · FALLBACK · first"}},
		{"2", all, all, []string{"last\tnewest, 3 · 1m ago · SUCCESS · replayed", "3\t1m ago · SUCCESS · replayed", "2\t3h ago · FAILED · why slow", "1\t3d ago · FALLBACK · first"}},
		{"r_", all, all, []string{"r_c\t1m ago · SUCCESS · replayed", "r_b\t3h ago · FAILED · why slow", "r_a\t3d ago · FALLBACK · first"}},
		// replay: last names the newest run that is no replay, and every
		// replayable run is offered by number.
		{"", all, notReplays, []string{"last\tnewest, 2 · 3h ago · FAILED · why slow", "3\t1m ago · SUCCESS · replayed", "2\t3h ago · FAILED · why slow", "1\t3d ago · FALLBACK · first"}},
		{"", failed, notReplays, []string{"last\tnewest, 2 · 3h ago · FAILED · why slow", "2\t3h ago · FAILED · why slow"}},
	} {
		if got := runRefs(runs, tc.typed, now, tc.keep, tc.isLast); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("typed %q:\n got %q\nwant %q", tc.typed, got, tc.want)
		}
	}
}

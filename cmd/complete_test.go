package cmd

import (
	"context"
	"os"
	"strings"
	"testing"

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
	for _, args := range [][]string{{"runs", "show", ""}, {"chat", "--session", ""}} {
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
	stuck := func(context.Context, *cobra.Command) []string {
		<-release
		return []string{"late"}
	}
	if got := bounded(cmd, stuck); got != nil {
		t.Errorf("a stuck completer: %q, want nothing", got)
	}
	quick := func(ctx context.Context, _ *cobra.Command) []string {
		if _, ok := ctx.Deadline(); !ok {
			return []string{"no deadline"}
		}
		return []string{"a", "b"}
	}
	if got := bounded(cmd, quick); strings.Join(got, ",") != "a,b" {
		t.Errorf("a quick completer: %q, want a and b under a deadline", got)
	}
}

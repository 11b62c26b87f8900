package cmd

import (
	"os"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
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

package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/config"
)

// config init writes the starter file where config path then finds it, and
// a second init leaves the edited file alone.
func TestConfigInitAndPath(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir + "/data"}
	want := filepath.Join(dir, "superbiz", "config.toml")

	code, out, errOut := cli(t, env, "config", "path")
	if code != ExitOK || out != want+"\n" || !strings.Contains(errOut, "config init") {
		t.Fatalf("config path before init: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = cli(t, env, "config", "init")
	if code != ExitOK || out != "wrote "+want+"\n" {
		t.Fatalf("config init: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	got, err := os.ReadFile(want)
	if err != nil || string(got) != config.Starter() {
		t.Fatalf("written file differs from the starter (%v)", err)
	}
	code, out, errOut = cli(t, env, "config", "path")
	if code != ExitOK || out != want+"\n" || errOut != "" {
		t.Fatalf("config path after init: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.WriteFile(want, []byte("[model]\nname = \"mine\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = cli(t, env, "config", "init")
	if code != ExitFailed || !strings.Contains(errOut, "already exists; not overwritten") {
		t.Fatalf("second config init: exit %d, stderr %q", code, errOut)
	}
	if got, _ := os.ReadFile(want); string(got) != "[model]\nname = \"mine\"\n" {
		t.Errorf("second config init changed the file: %q", got)
	}
	// --config names the file both use.
	other := filepath.Join(dir, "other", "sb.toml")
	if code, out, errOut := cli(t, env, "--config", other, "config", "init"); code != ExitOK || out != "wrote "+other+"\n" {
		t.Fatalf("config init --config: exit %d, %q %q", code, out, errOut)
	}
	if code, out, _ := cli(t, env, "--config", other, "config", "path"); code != ExitOK || out != other+"\n" {
		t.Errorf("config path --config: exit %d, %q", code, out)
	}
	if code, _, errOut := cli(t, env, "--config", filepath.Join(dir, "missing.toml"), "config", "path"); code != ExitUsage || !strings.Contains(errOut, "does not exist") {
		t.Errorf("config path with a missing --config: exit %d, %q", code, errOut)
	}
}

// --version prints what `superbiz version` prints, in both formats.
func TestVersionFlag(t *testing.T) {
	for _, o := range []string{"text", "json"} {
		_, want, _ := cli(t, nil, "-o", o, "version")
		code, got, errOut := cli(t, nil, "-o", o, "--version")
		if code != ExitOK || got != want || errOut != "" || !strings.Contains(got, "superbiz") && o == "text" {
			t.Errorf("-o %s --version: exit %d, %q (stderr %q), want %q", o, code, got, errOut, want)
		}
	}
}

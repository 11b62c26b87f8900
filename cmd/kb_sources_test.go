//go:build unix

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
)

// kb index and doctor name the files the index leaves out: a link leading
// out of the knowledge paths, a dangling link, an oversized runbook, a file
// in an encoding that cannot be read, a document that is not Markdown.
func TestKBIndexReportsExclusions(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "credentials.md")
	fixture.WriteFile(t, secret, "# creds\nZq7NeverIndexed\n")
	rb := filepath.Join(dir, "runbooks")
	fixture.WriteFile(t, filepath.Join(rb, "a.md"), "# Alpha\nfirst\n")
	fixture.WriteFile(t, filepath.Join(rb, "huge.md"), "# Huge\n"+strings.Repeat("x", knowledge.MaxFileBytes))
	fixture.WriteFile(t, filepath.Join(rb, "latin1.md"), "# Caf\xe9\nR\xe9sum\xe9\n")
	fixture.WriteFile(t, filepath.Join(rb, "notes.txt"), "not a runbook\n")
	for name, target := range map[string]string{"creds.md": secret, "gone.md": filepath.Join(rb, "nope.md")} {
		if err := os.Symlink(target, filepath.Join(rb, name)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "superbiz.toml")
	fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\"./runbooks\"]\n")
	env := diagnoseEnv(t)

	code, out, errOut := cli(t, env, "--config", cfg, "kb", "index")
	if code != ExitOK || !strings.HasPrefix(out, "indexed 1 files (") {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
	for _, want := range []string{
		"not indexed (5):\n",
		filepath.Join(rb, "creds.md") + ": " + knowledge.ReasonOutside,
		filepath.Join(rb, "gone.md") + ": " + knowledge.ReasonDangling,
		filepath.Join(rb, "huge.md") + ": " + knowledge.ReasonTooLarge,
		filepath.Join(rb, "latin1.md") + ": " + knowledge.ReasonEncoding + ": ",
		filepath.Join(rb, "notes.txt") + ": " + knowledge.ReasonNotMarkdown,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kb index output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = cli(t, env, "--config", cfg, "kb", "index", "-o", "json")
	var st kbIndexOutput
	if err := json.Unmarshal([]byte(out), &st); code != ExitOK || err != nil || st.ExcludedTotal != 5 || len(st.Excluded) != 5 {
		t.Errorf("-o json: exit %d, %v: %s", code, err, out)
	}
	reasons := map[string]string{}
	for _, e := range st.Excluded {
		reasons[filepath.Base(e.Path)] = e.Reason
	}
	if !strings.HasPrefix(reasons["latin1.md"], knowledge.ReasonEncoding+": ") || reasons["notes.txt"] != knowledge.ReasonNotMarkdown {
		t.Errorf("-o json reasons %v", reasons)
	}
	code, out, _ = cli(t, env, "--config", cfg, "kb", "search", "Zq7NeverIndexed", "-o", "json")
	if code != ExitOK || !strings.Contains(out, `"NO_EVIDENCE"`) {
		t.Errorf("search: exit %d: %s", code, out)
	}

	srv := ollamatest.New(t)
	denv, _ := doctorEnv(t, srv.URL())
	_, out, _ = cli(t, denv, "--config", cfg, "doctor")
	l := line(t, out, "warn", "knowledge")
	if !strings.Contains(l, rb+": 1 Markdown file(s); 5 not indexed: ") || !strings.Contains(l, knowledge.ReasonOutside) {
		t.Errorf("doctor knowledge line %q", l)
	}
}

// A knowledge path that is a FIFO, a device or /proc is exit 2 naming it,
// for kb index and kb search, and a FAIL line in doctor.
func TestKBIndexRefusesSpecialPaths(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	paths := []string{fifo, "/dev/zero"}
	if _, err := os.Stat("/proc/self"); err == nil {
		paths = append(paths, "/proc")
	}
	env := diagnoseEnv(t)
	for _, p := range paths {
		cfg := filepath.Join(dir, "superbiz.toml")
		fixture.WriteFile(t, cfg, "[knowledge]\npaths = [\""+p+"\"]\n")
		for _, args := range [][]string{{"kb", "index"}, {"kb", "search", "alpha"}} {
			code, out, errOut := cli(t, env, append([]string{"--config", cfg}, args...)...)
			if code != ExitUsage || out != "" || !strings.Contains(errOut, p+" is ") {
				t.Errorf("%s %q: exit %d, stdout %q, stderr %q", p, args, code, out, errOut)
			}
		}
		srv := ollamatest.New(t)
		denv, _ := doctorEnv(t, srv.URL())
		_, out, _ := cli(t, denv, "--config", cfg, "doctor")
		if l := line(t, out, "FAIL", "knowledge"); !strings.Contains(l, p+" is ") {
			t.Errorf("doctor knowledge line %q", l)
		}
	}
}

//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// TestSkillsFIFOAndOutsideLink: a FIFO named SKILL.md in a [skills] path no
// longer hangs `skills list` or `tools call read_skill`, and a playbook
// linked from outside the paths is not served (issue 17, finding 2).
func TestSkillsFIFOAndOutsideLink(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	root, outside := filepath.Join(e.dir, "skills"), filepath.Join(e.dir, "elsewhere")
	for _, d := range []string{filepath.Join(root, "check-fifo"), filepath.Join(outside, "check-outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "check-fifo", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: check-outside\ndescription: Served from outside.\n---\nOUTSIDE-SECRET-BODY\n"
	if err := os.WriteFile(filepath.Join(outside, "check-outside", "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "check-outside"), filepath.Join(root, "check-outside")); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	if err := os.WriteFile(cfg, []byte("[skills]\npaths = [\""+root+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "--config", cfg, "skills", "list")
	if r.code != 0 || strings.Contains(r.stdout, "check-outside") || !strings.Contains(r.stderr, "named pipe (FIFO)") || !strings.Contains(r.stderr, "outside the [skills] paths") {
		t.Fatalf("skills list:\n%s", r)
	}
	r = e.run(t, "--config", cfg, "-o", "json", "tools", "call", "read_skill", `{"name":"check-outside"}`)
	if r.code != 2 || strings.Contains(r.stdout+r.stderr, "OUTSIDE-SECRET-BODY") {
		t.Fatalf("read_skill through the link:\n%s", r)
	}
}

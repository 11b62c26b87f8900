package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// repoRoot is the clone this test runs in (e2e's parent).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// readme is the README's text.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeInstallFromClone runs the README's install line from the clone
// (`go install .`, into a private GOBIN): it must give a working `superbiz`,
// and the binary `go build .` leaves in the clone must be ignored by git.
func TestReadmeInstallFromClone(t *testing.T) {
	testenv.SkipShort(t, "builds the binary with go install")
	root := repoRoot(t)
	const line = "git clone https://github.com/superbiz/superbiz && cd superbiz && go install ."
	if !strings.Contains(readme(t), "\n"+line+"\n") {
		t.Fatalf("the README's install section lacks the line %q", line)
	}
	gobin := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "go", "install", ".")
	install.Dir = root
	install.Env = append(testenv.BuildEnv(), "GOBIN="+gobin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install .: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, filepath.Join(gobin, "superbiz"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "superbiz ") {
		t.Fatalf("the installed superbiz version: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git not installed", "install git")
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skipf("not a git checkout (%v): nothing to ignore against", err)
	}
	check := exec.CommandContext(ctx, "git", "check-ignore", "-q", "superbiz")
	check.Dir = root
	if err := check.Run(); err != nil {
		t.Errorf("git does not ignore ./superbiz, the binary `go build .` writes: %v", err)
	}
	for _, kept := range []string{"cmd/superbiz", "superbiz.toml"} {
		c := exec.CommandContext(ctx, "git", "check-ignore", "-q", kept)
		c.Dir = root
		if c.Run() == nil {
			t.Errorf("git ignores %s: the rule must name only the binary at the top", kept)
		}
	}
}

// TestCompletionInstallSaidTwice: `completion --help` names the
// bash-completion package and the error seen without it, and each install
// command it gives is in the README's Completion section, verbatim. That
// the lines work in a real shell, and that error, is e2e/tmux's
// TestBashCompletionInTmux and TestZshCompletionInTmux.
func TestCompletionInstallSaidTwice(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	r := e.run(t, "completion", "--help")
	if r.code != 0 {
		t.Fatalf("completion --help: %s", r)
	}
	md := readme(t)
	start := strings.Index(md, "\n## Completion\n")
	if start < 0 {
		t.Fatal("the README has no Completion section")
	}
	section := md[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	for _, want := range []string{"bash-completion package", "apt install bash-completion", "_get_comp_words_by_ref: command not found", "zsh", "fish", "compinit"} {
		if !strings.Contains(r.stdout, want) || !strings.Contains(section, want) {
			t.Errorf("completion --help and the README's Completion section must both say %q", want)
		}
	}
	long, _, _ := strings.Cut(r.stdout, "\nUsage:")
	commands := regexp.MustCompile(`(?m)^  (\S.*)$`).FindAllStringSubmatch(long, -1)
	n := 0
	for _, m := range commands {
		if !strings.Contains(m[1], "superbiz") && !strings.HasPrefix(m[1], "mkdir") && !strings.HasPrefix(m[1], "echo") {
			continue
		}
		n++
		if !strings.Contains(section, m[1]) {
			t.Errorf("the README's Completion section lacks completion --help's line %q", m[1])
		}
	}
	if n < 5 {
		t.Errorf("completion --help gives %d install lines, want those of bash, zsh, fish and PowerShell:\n%s", n, r.stdout)
	}
}

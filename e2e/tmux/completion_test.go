package tmux

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// bashCompletion is the bash-completion package's entry script on Debian.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// completionShell starts an interactive bash (no startup files, a plain
// prompt) whose PATH finds the built superbiz first, whose home is home and
// whose store is dir's, and types the setup lines in it. XDG_DATA_HOME is
// left unset, so bash-completion looks for completions in
// ~/.local/share/bash-completion/completions, where the README installs
// them.
func completionShell(t *testing.T, tmux, bin, dir, home string, setup ...string) pane {
	t.Helper()
	p := session(t, tmux, shellEnv(t, bin, dir, home)+" bash --norc --noprofile -i")
	p.waitFor(`(?m)^\$\s*$`, 20*time.Second) // capture-pane drops trailing spaces
	for _, line := range setup {
		p.typeLine(line)
	}
	p.typeLine("echo READY")
	p.waitFor(`(?m)^READY$`, 20*time.Second)
	p.run("send-keys", "-t", p.name, "C-l")
	return p
}

// shellEnv starts a command line with a clean environment for a shell whose
// PATH finds the built superbiz first, whose home is home, whose store and
// directories are dir's (XDG_DATA_HOME unset, see completionShell), with
// no model and the prompt "$ ".
func shellEnv(t *testing.T, bin, dir, home string) string {
	return "env -i PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH") + " HOME=" + home + " TERM=xterm-256color NO_COLOR=1" +
		" XDG_CONFIG_HOME=" + dir + " XDG_CACHE_HOME=" + dir +
		" SUPERBIZ_DB=" + filepath.Join(dir, "superbiz.db") + " OLLAMA_HOST=" + testenv.ClosedURL(t) + " PS1='$ '"
}

// readmeSays fails unless the README holds each line, verbatim.
func readmeSays(t *testing.T, lines ...string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range lines {
		if !strings.Contains(string(readme), line) {
			t.Fatalf("the README's Completion section lacks the install line %q", line)
		}
	}
}

// typeLine types text and Enter.
func (p pane) typeLine(text string) {
	p.run("send-keys", "-t", p.name, "-l", text)
	p.run("send-keys", "-t", p.name, "Enter")
}

// tab types text (without Enter) and presses Tab once.
func (p pane) tab(text string) {
	p.run("send-keys", "-t", p.name, "-l", text)
	p.run("send-keys", "-t", p.name, "Tab")
}

// tabUntil types text and presses Tab until the screen matches re: the
// first Tab inserts what the candidates share, a later one lists them
// (readline lists on the Tab after one that inserted nothing).
func (p pane) tabUntil(text, re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	p.run("send-keys", "-t", p.name, "-l", text)
	var s string
	for range 3 {
		p.run("send-keys", "-t", p.name, "Tab")
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if s = p.screen(); rx.MatchString(s) {
				return s
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	p.t.Fatalf("Tab after %q never showed %q; last screen:\n%s", text, re, s)
	return ""
}

// clearLine drops what was typed and clears the screen.
func (p pane) clearLine() {
	p.run("send-keys", "-t", p.name, "C-u")
	p.run("send-keys", "-t", p.name, "C-l")
	p.waitFor(`^\$\s*$`, 5*time.Second)
}

// demoRuns stores n demo diagnoses in dir's store and returns their IDs.
func demoRuns(t *testing.T, bin, dir string, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		cmd := exec.Command(bin, "diagnose", "--demo", "-o", "json")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir,
			"XDG_CACHE_HOME=" + dir, "SUPERBIZ_DB=" + filepath.Join(dir, "superbiz.db"), "OLLAMA_HOST=" + testenv.ClosedURL(t)}
		out, err := cmd.Output()
		var res struct {
			RunID string `json:"run_id"`
		}
		if err != nil || json.Unmarshal(out, &res) != nil || !strings.HasPrefix(res.RunID, "r_") {
			t.Fatalf("diagnose --demo: %v\n%s", err, out)
		}
		ids = append(ids, res.RunID)
	}
	return ids
}

// offersNumbers reports whether a screen offers last and the runs numbered
// 2 and 1 with their description (the query). zsh lists candidates whose
// descriptions are equal on one line ("1  2  -- 15s ago · SUCCESS · …"), as
// two demo runs stored in the same second are.
func offersNumbers(screen string) bool {
	number := func(n string) string { return `(?m)^(?:\d+[ \t]+)*` + n + `(?:[ \t]+\d+)*\s+\S.*payment timeouts` }
	for _, re := range []string{`(?m)^last\s+\S.*newest, 2`, number("2"), number("1")} {
		if !regexp.MustCompile(re).MatchString(screen) {
			return false
		}
	}
	return true
}

// bothIDs matches a screen showing the two run IDs, in either order.
func bothIDs(ids []string) string {
	a, b := regexp.QuoteMeta(ids[0]), regexp.QuoteMeta(ids[1])
	return a + `(.|\n)*` + b + `|` + b + `(.|\n)*` + a
}

// Completion in a real bash with the bash-completion package, sourced and
// installed as the README says: Tab completes a command name and offers the
// stored run IDs with their queries. Without the package, Tab prints the
// error the README and `completion --help` describe.
func TestBashCompletionInTmux(t *testing.T) {
	tmux := needTmux(t)
	if _, err := exec.LookPath("bash"); err != nil {
		testenv.Missing(t, "bash not installed", "install bash")
	}
	if _, err := os.Stat(bashCompletion); err != nil {
		testenv.Missing(t, "the bash-completion package is not installed", ".ci/run installs bash-completion (apt-get install -y bash-completion)")
	}
	bin := build(t)
	dir := t.TempDir()
	ids := demoRuns(t, bin, dir, 2)

	// The README's bash install lines, which bash-completion loads at the
	// first Tab on superbiz.
	readmeLines := []string{
		"mkdir -p ~/.local/share/bash-completion/completions",
		"superbiz completion bash > ~/.local/share/bash-completion/completions/superbiz",
	}
	readmeSays(t, readmeLines...)

	// Every shell starts before any ends: the tmux server stops with its
	// last session, and a session started as it stops is refused.
	with := completionShell(t, tmux, bin, dir, t.TempDir(), "source "+bashCompletion, "source <(superbiz completion bash)")
	installed := completionShell(t, tmux, bin, dir, t.TempDir(), append([]string{"source " + bashCompletion}, readmeLines...)...)
	without := completionShell(t, tmux, bin, dir, t.TempDir(), "source <(superbiz completion bash)")

	installed.tab("superbiz ru")
	installed.waitFor(`(?m)^\$ superbiz runs\s*$`, 10*time.Second)
	installed.clearLine()
	if screen := installed.tabUntil("superbiz runs show ", `(?m)^last\s`); !offersNumbers(screen) {
		t.Errorf("installed as the README says, runs show⇥⇥ does not offer last and the run numbers with their queries:\n%s", screen)
	}
	installed.clearLine()
	if screen := installed.tabUntil("superbiz runs show r_", bothIDs(ids)); !strings.Contains(screen, "payment timeouts on order-service") {
		t.Errorf("installed as the README says, runs show r_⇥⇥ offers the run IDs without their queries:\n%s", screen)
	}

	with.tab("superbiz rep")
	with.waitFor(`(?m)^\$ superbiz replay\s*$`, 10*time.Second)
	with.clearLine()
	// --suite takes builtin or a folder of packs (issue 40 #16)
	with.tab("superbiz eval --suite bu")
	with.waitFor(`(?m)^\$ superbiz eval --suite builtin\s*$`, 10*time.Second)
	with.clearLine()
	for _, cmd := range []string{"superbiz runs show ", "superbiz replay "} {
		screen := with.tabUntil(cmd, `(?m)^last\s`)
		t.Logf("%s⇥⇥:\n%s", cmd, screen)
		if !offersNumbers(screen) || strings.Contains(screen, "command not found") {
			t.Errorf("%s⇥⇥ does not offer last and the run numbers with their queries, or fails:\n%s", cmd, screen)
		}
		with.clearLine()
	}

	without.tab("superbiz runs show ")
	screen := without.waitFor(`_get_comp_words_by_ref: command not found`, 10*time.Second)
	t.Logf("without the package:\n%s", screen)
	if strings.Contains(screen, ids[0]) || strings.Contains(screen, ids[1]) {
		t.Errorf("runs offered without bash-completion: the README says Tab fails there\n%s", screen)
	}
}

// zsh installed by pasting the README's two zsh lines, verbatim, into a
// shell, over the ~/.zshrc files users have: none at all, and the stock one
// zsh-newuser-install writes, which runs compinit itself. Each then offers
// the stored runs on Tab, with their queries. (The lines once appended the
// fpath line after the stock file's compinit, so nothing ever completed.)
func TestZshCompletionInTmux(t *testing.T) {
	tmux := needTmux(t)
	if _, err := exec.LookPath("zsh"); err != nil {
		testenv.Missing(t, "zsh not installed", ".ci/run installs zsh (apt-get install -y zsh)")
	}
	bin := build(t)
	dir := t.TempDir()
	ids := demoRuns(t, bin, dir, 2)
	readmeLines := readmeBlock(t, "- zsh")
	if len(readmeLines) != 2 || !strings.Contains(readmeLines[0], "superbiz completion zsh") {
		t.Fatalf("the README's zsh block is not the two install lines: %q", readmeLines)
	}
	stock := map[string]string{
		"no ~/.zshrc": "",
		// what zsh-newuser-install writes when asked for the recommended completion
		"stock ~/.zshrc with compinit": "# The following lines were added by compinstall\nzstyle :compinstall filename '~/.zshrc'\n\nautoload -Uz compinit\ncompinit\n# End of lines added by compinstall\n",
	}
	// Every shell starts before any ends: the tmux server stops with its
	// last session, and a session started as it stops is refused.
	panes := map[string]pane{}
	for name, zshrc := range stock {
		home := t.TempDir()
		if zshrc != "" {
			if err := os.WriteFile(filepath.Join(home, ".zshrc"), []byte(zshrc), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		setup := exec.Command("sh", "-c", strings.Join(readmeLines, "\n"))
		setup.Env = []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + home}
		if out, err := setup.CombinedOutput(); err != nil {
			t.Fatalf("%s: the README's zsh lines: %v\n%s", name, err, out)
		}
		p := session(t, tmux, shellEnv(t, bin, dir, home)+" LANG=C.UTF-8 zsh -i")
		p.waitFor(`(?m)^\$\s*$`, 20*time.Second)
		panes[name] = p
	}
	for name, p := range panes {
		p.tab("superbiz rep")
		p.waitFor(`(?m)^\$ superbiz replay\s*$`, 10*time.Second)
		p.clearLine()
		screen := p.tabUntil("superbiz runs show ", `(?m)^last\s`)
		t.Logf("%s: runs show⇥:\n%s", name, screen)
		if !offersNumbers(screen) {
			t.Errorf("%s: runs show⇥ does not offer last and the run numbers with their queries:\n%s", name, screen)
		}
		p.clearLine()
		if screen := p.tabUntil("superbiz runs show r_", bothIDs(ids)); !strings.Contains(screen, "payment timeouts on order-service") {
			t.Errorf("%s: runs show r_⇥ offers the run IDs without their queries:\n%s", name, screen)
		}
	}
}

// readmeBlock returns the lines of the README's first fenced block after the
// line that starts with marker.
func readmeBlock(t *testing.T, marker string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	i := strings.Index(text, "\n"+marker)
	if i < 0 {
		t.Fatalf("the README has no line starting %q", marker)
	}
	_, block, ok := strings.Cut(text[i:], "```sh\n")
	if !ok {
		t.Fatalf("the README has no code block after %q", marker)
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// offersNumbers reads both of zsh's listings: one line per run, and runs
// whose descriptions are equal grouped on one line; a run not offered fails.
func TestOffersNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, screen string
		want         bool
	}{
		{"one per line", "last  -- newest, 2 · 8s ago · SUCCESS · payment timeouts on ord…\n2     -- 8s ago · SUCCESS · payment timeouts on order-service si…\n1     -- 9s ago · SUCCESS · payment timeouts on order-service si…\n", true},
		{"grouped", "1     2  -- 15s ago · SUCCESS · payment timeouts on order-service s…\nlast     -- newest, 2 · 15s ago · SUCCESS · payment timeouts on or…\n", true},
		{"run 1 missing", "last  -- newest, 2 · 8s ago · SUCCESS · payment timeouts on ord…\n2     -- 8s ago · SUCCESS · payment timeouts on order-service si…\n", false},
		{"12 is not 1 or 2", "last  -- newest, 2 · 8s ago · SUCCESS · payment timeouts\n12    -- 8s ago · SUCCESS · payment timeouts on order-service si…\n", false},
		{"no description", "last  -- newest, 2 · 8s ago · SUCCESS · payment timeouts\n1  2\n", false},
	} {
		if got := offersNumbers(tc.screen); got != tc.want {
			t.Errorf("%s: offersNumbers = %v, want %v\n%s", tc.name, got, tc.want, tc.screen)
		}
	}
}

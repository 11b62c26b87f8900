package e2e

import (
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/testenv"
)

// A subcommand's help points at `superbiz --help` for the global flags in
// one line instead of repeating their 9-line block; `superbiz --help`
// still describes each (issue 40 #17).
func TestSubcommandHelpPointsAtGlobalFlags(t *testing.T) {
	e := newEnv(t, testenv.ClosedURL(t))
	for _, args := range [][]string{{"doctor"}, {"runs", "show"}, {"eval", "compare"}, {"version"}, {"completion", "bash"}, {"mcp"}} {
		r := e.run(t, append(args, "--help")...)
		if r.code != 0 || strings.Contains(r.stdout, "Global Flags:") || strings.Contains(r.stdout, "--config string") ||
			!strings.Contains(r.stdout, `Global flags (--config, --db, --demo, --model, -o, …): see "superbiz --help".`) {
			t.Errorf("%s --help repeats the global flags or lacks the pointer:\n%s", strings.Join(args, " "), r)
		}
	}
	r := e.run(t, "--help")
	for _, flag := range []string{"--config string", "--db string", "--demo", "--model string", "-o, --output format", "--url string"} {
		if !strings.Contains(r.stdout, flag) {
			t.Errorf("superbiz --help lacks %s:\n%s", flag, r)
		}
	}
}

package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/pkg/egress"
)

// The commands in gh's options-plus-runF shape hand their flags and
// arguments to runF as options, without opening anything: `mcp` its HTTP,
// token, slot and session settings (defaults included), `tools call` the
// tool and its input, read from stdin for "-"; `alerts` and `tools list`
// their flags; each with the global output format.
func TestCommandOptions(t *testing.T) {
	a := &app{io: &IOStreams{In: strings.NewReader(` {"q":1} `), Out: egress.NewWriter(&bytes.Buffer{}), ErrOut: egress.NewWriter(&bytes.Buffer{})}, getenv: func(string) string { return "" }}

	var mo *mcpOptions
	c := a.newMCPCmd(func(_ *cobra.Command, o *mcpOptions) error { mo = o; return nil })
	c.SetArgs([]string{"--http", "127.0.0.1:0", "--token-env", "T", "--max-calls", "3"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := mcpOptions{HTTP: "127.0.0.1:0", TokenEnv: "T", MaxCalls: 3, MaxDiagnose: 1, SessionTimeout: mcpserver.DefaultSessionTimeout}
	if mo == nil || *mo != want {
		t.Errorf("mcp options %+v, want %+v", mo, want)
	}
	c = a.newMCPCmd(func(_ *cobra.Command, o *mcpOptions) error { mo = o; return nil })
	c.SetArgs([]string{"--session-timeout", "90s"})
	if err := c.Execute(); err != nil || mo.SessionTimeout != 90*time.Second || mo.HTTP != "" {
		t.Errorf("mcp --session-timeout 90s: %+v, %v", mo, err)
	}

	var to *toolsCallOptions
	tc := a.newToolsCallCmd(func(_ *cobra.Command, o *toolsCallOptions) error { to = o; return nil })
	tc.SetArgs([]string{"query_logs", "-"})
	if err := tc.Execute(); err != nil || to == nil || to.Name != "query_logs" || string(to.Input) != `{"q":1}` {
		t.Errorf("tools call query_logs -: %+v, %v", to, err)
	}

	// The global -o reaches the run function in the options, read once at
	// the top: nothing below it reads the global flags.
	a.flags.output = outputJSON
	var ao *alertsOptions
	ac := a.newAlertsCmd(func(_ *cobra.Command, o *alertsOptions) error { ao = o; return nil })
	ac.SetArgs([]string{"--limit", "7"})
	if err := ac.Execute(); err != nil || ao == nil || *ao != (alertsOptions{Limit: 7, Output: outputJSON}) {
		t.Errorf("alerts --limit 7 -o json: %+v, %v", ao, err)
	}
	var lo *toolsListOptions
	lc := a.newToolsListCmd(func(_ *cobra.Command, o *toolsListOptions) error { lo = o; return nil })
	lc.SetArgs([]string{}) // not nil: cobra would read os.Args
	if err := lc.Execute(); err != nil || lo == nil || lo.Output != outputJSON {
		t.Errorf("tools list -o json: %+v, %v", lo, err)
	}
	tc = a.newToolsCallCmd(func(_ *cobra.Command, o *toolsCallOptions) error { to = o; return nil })
	tc.SetArgs([]string{"query_logs", "{}"})
	if err := tc.Execute(); err != nil || to.Output != outputJSON {
		t.Errorf("tools call -o json: %+v, %v", to, err)
	}
}

// A --token-env variable holding only white space is refused like an
// empty one: no client can send a blank bearer token.
func TestMCPTokenBlank(t *testing.T) {
	for _, v := range []string{"", " ", "\t \n"} {
		a := &app{getenv: func(string) string { return v }}
		_, err := a.mcpToken(&mcpOptions{HTTP: "127.0.0.1:0", TokenEnv: "T"})
		if code, _ := exitCode(err); err == nil || code != ExitUsage {
			t.Errorf("token %q: %v (exit %d), want a configuration error (exit 2)", v, err, code)
		}
	}
	a := &app{getenv: func(string) string { return " tok " }}
	if tok, err := a.mcpToken(&mcpOptions{HTTP: "127.0.0.1:0", TokenEnv: "T"}); err != nil || tok != " tok " {
		t.Errorf("a token with spaces around: %q, %v", tok, err)
	}
}

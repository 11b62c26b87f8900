package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// The commands in gh's options-plus-runF shape hand their flags and
// arguments to runF as options, without opening anything: `mcp` its HTTP,
// token, slot and session settings (defaults included), `tools call` the
// tool and its input, read from stdin for "-"; `alerts` and `tools list`
// their flags; each with the global output format.
func TestCommandOptions(t *testing.T) {
	a := &app{io: &IOStreams{In: strings.NewReader(` {"q":1} `), Out: egress.NewWriter(&bytes.Buffer{}), ErrOut: egress.NewWriter(&bytes.Buffer{})}, getenv: func(string) string { return "" }}

	var mo *mcpOptions
	c := a.newMCPCmd(func(_ context.Context, o *mcpOptions) error { mo = o; return nil })
	c.SetArgs([]string{"--http", "127.0.0.1:0", "--token-env", "T", "--max-calls", "3"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := mcpOptions{HTTP: "127.0.0.1:0", TokenEnv: "T", MaxCalls: 3, MaxDiagnose: 1, SessionTimeout: mcpserver.DefaultSessionTimeout}
	if mo == nil || *mo != want {
		t.Errorf("mcp options %+v, want %+v", mo, want)
	}
	c = a.newMCPCmd(func(_ context.Context, o *mcpOptions) error { mo = o; return nil })
	c.SetArgs([]string{"--session-timeout", "90s"})
	if err := c.Execute(); err != nil || mo.SessionTimeout != 90*time.Second || mo.HTTP != "" {
		t.Errorf("mcp --session-timeout 90s: %+v, %v", mo, err)
	}

	var to *toolsCallOptions
	tc := a.newToolsCallCmd(func(_ context.Context, o *toolsCallOptions) error { to = o; return nil })
	tc.SetArgs([]string{"query_logs", "-"})
	if err := tc.Execute(); err != nil || to == nil || to.Name != "query_logs" || string(to.Input) != `{"q":1}` {
		t.Errorf("tools call query_logs -: %+v, %v", to, err)
	}

	// The global -o reaches the run function in the options, read once at
	// the top: nothing below it reads the global flags.
	a.flags.output = outputJSON
	var ao *alertsOptions
	ac := a.newAlertsCmd(func(_ context.Context, o *alertsOptions) error { ao = o; return nil })
	ac.SetArgs([]string{"--limit", "7"})
	if err := ac.Execute(); err != nil || ao == nil || *ao != (alertsOptions{Limit: 7, globalOptions: globalOptions{Output: outputJSON}}) {
		t.Errorf("alerts --limit 7 -o json: %+v, %v", ao, err)
	}
	var lo *toolsListOptions
	lc := a.newToolsListCmd(func(_ context.Context, o *toolsListOptions) error { lo = o; return nil })
	lc.SetArgs([]string{}) // not nil: cobra would read os.Args
	if err := lc.Execute(); err != nil || lo == nil || lo.Output != outputJSON {
		t.Errorf("tools list -o json: %+v, %v", lo, err)
	}
	tc = a.newToolsCallCmd(func(_ context.Context, o *toolsCallOptions) error { to = o; return nil })
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

// The global flags reach a command's run function in its options, copied
// when the command runs: --config, -o, --demo, --no-tui, and each of --db,
// --model, --host, --provider and --url only when given (so "--model ”"
// overrides the configured model and no --model does not).
func TestGlobalOptions(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		want      runsShowOptions
		db, model *string
	}{{
		args: []string{"runs", "show", "3", "--offset", "5", "--config", "c.toml", "--db", "x.db", "--model", "", "--demo", "--no-tui", "-o", "json"},
		want: runsShowOptions{ID: "3", Page: runstore.InvocationPage{Offset: 5, Limit: runstore.DefaultInvocationPage},
			globalOptions: globalOptions{ConfigPath: "c.toml", Output: outputJSON, Demo: true, NoTUI: true}},
		db: ptr("x.db"), model: ptr(""),
	}, {
		args: []string{"runs", "show", "last"},
		want: runsShowOptions{ID: "last", Page: runstore.InvocationPage{Limit: runstore.DefaultInvocationPage},
			globalOptions: globalOptions{Output: outputText}},
	}} {
		a := &app{io: &IOStreams{In: strings.NewReader(""), Out: egress.NewWriter(&bytes.Buffer{}), ErrOut: egress.NewWriter(&bytes.Buffer{})},
			getenv: func(string) string { return "" }, flags: globalFlags{output: outputText}}
		root := a.newRootCmd()
		runs, _, err := root.Find([]string{"runs", "show"})
		if err != nil {
			t.Fatal(err)
		}
		var got *runsShowOptions
		parent := runs.Parent()
		parent.RemoveCommand(runs)
		parent.AddCommand(a.newRunsShowCmd(func(_ context.Context, o *runsShowOptions) error { got = o; return nil }))
		root.SetArgs(tt.args)
		if err := root.Execute(); err != nil || got == nil {
			t.Fatalf("%q: %v, run function not called", tt.args, err)
		}
		ov := got.Overrides
		if !sameString(ov.DBPath, tt.db) || !sameString(ov.Model, tt.model) || ov.Host != nil || ov.Provider != nil || ov.URL != nil {
			t.Errorf("%q: overrides %+v, want --db %v and --model %v only", tt.args, ov, tt.db, tt.model)
		}
		got.Overrides = config.Overrides{}
		if *got != tt.want {
			t.Errorf("%q: options %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func ptr(s string) *string { return &s }

// sameString says whether two optional strings are both absent or equal.
func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

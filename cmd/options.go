package cmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
)

// One command pattern (gh's): a command's constructor (newXCmd) binds its
// flags to an options struct, fills in the global flags at the top of its
// RunE (globalFlags.options) and calls its run function, a.runX(ctx, opts),
// or the runF a test gives in its place (runWith). The run function and every helper
// below it take what they need as parameters and never read a.flags
// (TestCommandPattern).

// globalOptions are the global flags (docs/SPEC.md#superbiz-global-flags)
// as one command was given them, copied into its options at the top.
type globalOptions struct {
	// ConfigPath is --config: "" is the lookup order.
	ConfigPath string
	// Overrides are --db, --model, --host, --provider and --url, each set
	// only when given (so "--model ''" differs from no flag), plus a
	// command's own (the diagnose budget flags).
	Overrides config.Overrides
	Output    outputFormat
	NoTUI     bool
	// Demo is --demo: the built-in demo workspace.
	Demo bool
}

// options copies the global flags cmd was given (cobra's Changed says
// which overrides were) into the options its run function takes.
func (f globalFlags) options(cmd *cobra.Command) globalOptions {
	g := globalOptions{ConfigPath: f.configPath, Output: f.output, NoTUI: f.noTUI, Demo: f.demo}
	given := func(name string) bool {
		fl := cmd.Flags().Lookup(name)
		return fl != nil && fl.Changed
	}
	for _, o := range []struct {
		flag string
		dst  **string
		v    string
	}{
		{"db", &g.Overrides.DBPath, f.dbPath},
		{"model", &g.Overrides.Model, f.model},
		{"host", &g.Overrides.Host, f.host},
		{"provider", &g.Overrides.Provider, f.provider},
		{"url", &g.Overrides.URL, f.url},
	} {
		if given(o.flag) {
			*o.dst = &o.v
		}
	}
	return g
}

// overriding is g with a command's own overrides (the diagnose budget
// flags) under the global ones: a global flag given wins over ov.
func (g globalOptions) overriding(ov config.Overrides) globalOptions {
	for _, o := range []struct{ dst, flag **string }{
		{&ov.DBPath, &g.Overrides.DBPath},
		{&ov.Model, &g.Overrides.Model},
		{&ov.Host, &g.Overrides.Host},
		{&ov.Provider, &g.Overrides.Provider},
		{&ov.URL, &g.Overrides.URL},
	} {
		if *o.flag != nil {
			*o.dst = *o.flag
		}
	}
	g.Overrides = ov
	return g
}

// runWith ends a command's RunE: it calls runF, the run function a test
// gave in place of the command's own, or else run.
func runWith[O any](ctx context.Context, opts *O, runF, run func(context.Context, *O) error) error {
	if runF != nil {
		return runF(ctx, opts)
	}
	return run(ctx, opts)
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/evalpack"
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// evalPackOptions are what `superbiz eval pack` was given, the global
// flags included.
type evalPackOptions struct {
	globalOptions
	// Ref names the run: an ID, its number, last, last~N or a prefix.
	Ref        string
	Dir        string
	ID         string
	RootCauses []string
	Outcome    string
	Force      bool
}

// newEvalPackCmd is `superbiz eval pack`; runF replaces runEvalPack
// (tests), nil runs it.
func (a *app) newEvalPackCmd(runF func(context.Context, *evalPackOptions) error) *cobra.Command {
	f := &evalPackOptions{}
	c := &cobra.Command{
		Use:   "pack RUN_ID --dir DIR",
		Short: "Freeze a stored diagnosis into a regression pack: its question, clock and the evidence it read",
		Long: `eval pack writes DIR/<id>/scenario.toml and the pack's data from a stored
diagnosis run (an ID, its number, last, last~N or a unique prefix): the run's question or
alert and clock, the expected outcome (--outcome, else the run's own) and root
cause (--root-cause, one group of comma-separated alternatives each), the
evidence the run read, and that evidence frozen: log lines around the windows
it queried, the runbooks, the samples of its metrics queries, its SQLite files,
and its MySQL and PostgreSQL statements with their answers. Everything is
redacted as the run store redacts it; the pack holds no path of the workspace.
The sources are found by name in the configuration in use: freeze with the one
the run was made with.
Exit codes: 0 written, 2 refused (not a diagnosis, the demo workspace,
DIR/<id> exists without --force, no outcome or root cause to expect, a source
the run read that the configuration no longer names) or a usage error, 4 a metrics server the run read cannot be reached (nothing is
written), 1 any other failure.`,
		Example: `  superbiz eval pack last --dir ./packs --root-cause "certificate,x509,tls" --root-cause "expired,expiry"
  superbiz eval pack r_01jf3k --dir ./packs --id checkout-502 --outcome FALLBACK
  superbiz eval --suite ./packs --filter frozen`,
		Args: exactArgs(1, "one RUN_ID (an ID, its number, last, last~N or a unique prefix)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.globalOptions, f.Ref = a.flags.options(cmd), args[0]
			return runWith(cmd.Context(), f, runF, a.runEvalPack)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.Dir, "dir", "", "the suite directory the pack is written into, as DIR/<id> (required)")
	fl.StringVar(&f.ID, "id", "", "the pack's id (default: from the run's ID)")
	fl.StringArrayVar(&f.RootCauses, "root-cause", nil, "words a correct root cause contains: comma-separated alternatives; repeat for each idea (required for SUCCESS)")
	fl.StringVar(&f.Outcome, "outcome", "", "the expected outcome, SUCCESS or FALLBACK (default: the run's)")
	fl.BoolVar(&f.Force, "force", false, "replace DIR/<id> when it exists")
	return c
}

// packOutcomes are the outcomes --outcome takes.
var packOutcomes = []runrecord.Outcome{runrecord.OutcomeSuccess, runrecord.OutcomeFallback}

// packOutcomeNames are packOutcomes for the completion of --outcome.
func packOutcomeNames(context.Context, globalOptions) []string {
	return []string{string(packOutcomes[0]), string(packOutcomes[1])}
}

// runEvalPack freezes one stored diagnosis into a regression pack.
func (a *app) runEvalPack(ctx context.Context, f *evalPackOptions) (err error) {
	if strings.TrimSpace(f.Dir) == "" {
		return usageErrorf("eval pack needs --dir DIR: the suite directory the pack is written into")
	}
	out := runrecord.Outcome(strings.ToUpper(f.Outcome))
	if f.Outcome != "" && out != runrecord.OutcomeSuccess && out != runrecord.OutcomeFallback {
		return usageErrorf("--outcome %q: give %s or %s", f.Outcome, packOutcomes[0], packOutcomes[1])
	}
	if f.Demo {
		return &ExitError{Code: ExitUsage, Err: errors.New("eval pack freezes your own incidents: the built-in demo workspace (--demo) is none")}
	}
	cfg, err := a.loadConfigOf(ctx, f.globalOptions)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cfg.DBPath); errors.Is(err, fs.ErrNotExist) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no run store at %s: there is no run to freeze", cfg.DBPath)}
	}
	store, err := openRunStore(ctx, cfg.DBPath)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	d, err := runview.Run(ctx, store, f.Ref)
	if err != nil {
		return err
	}
	rep, err := evalpack.Freeze(ctx, evalpack.Options{Run: d, Config: cfg, Dir: f.Dir, ID: f.ID, RootCauses: f.RootCauses, Outcome: out, Force: f.Force, Getenv: a.getenv, Store: store})
	var unavailable *evalpack.UnavailableError
	switch {
	case ctx.Err() != nil:
		return cancelled("")
	case errors.Is(err, evalpack.ErrRefused):
		return &ExitError{Code: ExitUsage, Err: err}
	case errors.As(err, &unavailable):
		return &ExitError{Code: ExitUnavailable, Err: err}
	case err != nil:
		return err
	}
	if f.Output == outputJSON {
		return writeJSON(a.io.Out, rep)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pack %s written to %s\n", rep.ID, rep.Dir)
	for _, l := range rep.Frozen {
		fmt.Fprintf(&b, "  %s\n", cell(l))
	}
	fmt.Fprintf(&b, "run it: superbiz eval --suite %s --filter %s\n", f.Dir, rep.ID)
	return printPage(a.io.Out, b.String())
}

package cmd

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/superbiz/superbiz/internal/config"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// runsFlags are the flags of `superbiz runs` and `superbiz runs list`.
type runsFlags struct {
	session string
	limit   int
}

func (a *app) newRunsCmd() *cobra.Command {
	var f runsFlags
	addFlags := func(c *cobra.Command) {
		c.Flags().StringVar(&f.session, "session", "", "only the runs of this session")
		c.Flags().IntVar(&f.limit, "limit", runstore.DefaultListLimit, "at most this many runs")
	}
	c := &cobra.Command{
		Use:   "runs [list]",
		Short: "List stored runs, newest first",
		Long: `runs lists the runs stored in the run store, newest first: status, release
outcome, stop reason, calls and duration, each with its number (#), which
names it wherever a run ID is taken. "runs show RUN_ID" prints one run in
full with its audit (tool invocations, model rounds, guard reviews).`,
		Example: `  superbiz runs
  superbiz runs --session s_01jd2k --limit 5
  superbiz runs -o json
  superbiz runs show r_01jd2k9x`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRunsList(cmd, f)
		},
	}
	addFlags(c)
	list := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first (the default)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runRunsList(cmd, f)
		},
	}
	addFlags(list)
	var page runstore.InvocationPage
	show := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Print one run in full: answer, result, checks, tool invocations, model rounds",
		Long: `runs show prints one stored run: its identifiers, query, outcome, usage and
answer, the published result, the checks, its tool invocations in order (with
their Tool Call ID, and playbook reads as guidance steps; at most --limit of
them from --offset, and how many there are), the model rounds and the guard
reviews. Guard reasons are local audit data and are never published.`,
		Example: `  superbiz runs show 12
  superbiz runs show last
  superbiz runs show r_01jd2k9x --offset 50 -o json`,
		Args: exactArgs(1, "one RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runRunsShow(cmd, args[0], page)
		},
	}
	show.Flags().IntVar(&page.Offset, "offset", 0, "skip this many tool invocations first")
	show.Flags().IntVar(&page.Limit, "limit", runstore.DefaultInvocationPage, fmt.Sprintf("show at most this many tool invocations (1 to %d)", runstore.MaxInvocationPage))
	c.AddCommand(list, show)
	return c
}

// errNoStoreYet is the default run store not created yet: no run so far.
var errNoStoreYet = errors.New("no run store yet")

// openStore resolves the configuration and opens only the run store, for
// reading: `runs` needs neither the model client nor the tools, must stay
// fast, and must work on a store it cannot write. It never creates one: the
// default store missing is errNoStoreYet (nothing was run yet), one named
// by --db, $SUPERBIZ_DB or the config file missing is an error (a typo
// would otherwise list an empty new store).
func (a *app) openStore(cmd *cobra.Command) (*runstore.Store, error) {
	cfg, err := a.loadConfig(cmd)
	if err != nil {
		return nil, err
	}
	// Read-only: an archived copy or a read-only mount can be listed. Only
	// an older schema opens it writable, to migrate it.
	store, err := runstore.OpenReadOnly(cmd.Context(), cfg.DBPath)
	if errors.Is(err, fs.ErrNotExist) {
		if cfg.DBPath == config.DefaultDBPath(a.getenv) {
			return nil, errNoStoreYet
		}
		named := cfg.From("db")
		if named == "" {
			named = " (from " + cfg.File + ")"
		}
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("the run store %s%s does not exist: check the path (reading runs never creates a store)", cfg.DBPath, named)}
	}
	if errors.Is(err, runstore.ErrSchemaBehind) {
		store, err = openRunStore(cmd.Context(), cfg.DBPath)
	}
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	return store, nil
}

func (a *app) runRunsList(cmd *cobra.Command, f runsFlags) (err error) {
	if f.limit < 1 {
		return usageErrorf("--limit must be at least 1, got %d", f.limit)
	}
	ctx := cmd.Context()
	store, err := a.openStore(cmd)
	if errors.Is(err, errNoStoreYet) {
		if f.session != "" {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown session %q: no run was stored yet", f.session)}
		}
		return runsRendererFor(a.flags.output, a.io.OutColumns()).list(a.io.Out, nil, noRunsLine(""))
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	if f.session != "" {
		if f.session, err = runview.ResolveSession(ctx, store, f.session, false); err != nil {
			return err
		}
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: f.session, Limit: f.limit})
	if err != nil {
		return err
	}
	return runsRendererFor(a.flags.output, a.io.OutColumns()).list(a.io.Out, runs, noRunsLine(f.session))
}

// noRunsLine is what an empty listing says instead of an empty table.
func noRunsLine(session string) string {
	if session != "" {
		return "No runs yet in session " + session + "."
	}
	return "No runs yet: try `superbiz diagnose --demo`."
}

func (a *app) runRunsShow(cmd *cobra.Command, id string, page runstore.InvocationPage) (err error) {
	if err := page.Check(); err != nil {
		return usageErrorf("--%s", err)
	}
	store, err := a.openStore(cmd)
	if errors.Is(err, errNoStoreYet) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown run %q: no run was stored yet\nhint: `superbiz diagnose --demo` stores a first run", id)}
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	d, err := runview.RunPage(cmd.Context(), store, id, page)
	if err != nil {
		return err
	}
	return runsRendererFor(a.flags.output, a.io.OutColumns()).show(a.io.Out, d)
}

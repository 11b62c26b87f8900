package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/superbiz/superbiz/internal/config"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// runsListOptions are what `superbiz runs` (`runs list`) was given, the
// global flags included.
type runsListOptions struct {
	globalOptions
	Session string
	Limit   int
}

// newRunsCmd is `superbiz runs` and its `list`; runF replaces runRunsList
// (tests), nil runs it.
func (a *app) newRunsCmd(runF func(context.Context, *runsListOptions) error) *cobra.Command {
	opts := &runsListOptions{}
	addFlags := func(c *cobra.Command) {
		c.Flags().StringVar(&opts.Session, "session", "", "only the runs of this session")
		c.Flags().IntVar(&opts.Limit, "limit", runstore.DefaultListLimit, "at most this many runs")
	}
	runE := func(cmd *cobra.Command, _ []string) error {
		opts.globalOptions = a.flags.options(cmd)
		return runWith(cmd.Context(), opts, runF, a.runRunsList)
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
		RunE: runE,
	}
	addFlags(c)
	list := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first (the default)",
		Args:  noArgs,
		RunE:  runE,
	}
	addFlags(list)
	c.AddCommand(list, a.newRunsShowCmd(nil))
	return c
}

// runsShowOptions are what `superbiz runs show` was given, the global
// flags included.
type runsShowOptions struct {
	globalOptions
	ID   string
	Page runstore.InvocationPage
}

// newRunsShowCmd is `superbiz runs show`; runF replaces runRunsShow
// (tests), nil runs it.
func (a *app) newRunsShowCmd(runF func(context.Context, *runsShowOptions) error) *cobra.Command {
	opts := &runsShowOptions{}
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
			opts.globalOptions, opts.ID = a.flags.options(cmd), args[0]
			return runWith(cmd.Context(), opts, runF, a.runRunsShow)
		},
	}
	show.Flags().IntVar(&opts.Page.Offset, "offset", 0, "skip this many tool invocations first")
	show.Flags().IntVar(&opts.Page.Limit, "limit", runstore.DefaultInvocationPage, fmt.Sprintf("show at most this many tool invocations (1 to %d)", runstore.MaxInvocationPage))
	return show
}

// errNoStoreYet is the default run store not created yet: no run so far.
var errNoStoreYet = errors.New("no run store yet")

// openStore resolves the configuration and opens only the run store, for
// reading: `runs` needs neither the model client nor the tools, must stay
// fast, and must work on a store it cannot write. It never creates one: the
// default store missing is errNoStoreYet (nothing was run yet), one named
// by --db, $SUPERBIZ_DB or the config file missing is an error (a typo
// would otherwise list an empty new store). out is where the stored runs
// are printed: the door with every credential the configuration holds, so
// text stored before one was configured is masked as well.
func (a *app) openStore(ctx context.Context, g globalOptions) (store *runstore.Store, out egress.Writer, err error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return nil, out, err
	}
	out = a.io.Out.WithPolicy(cfg.Policy(a.getenv))
	store, err = a.readStore(ctx, cfg)
	return store, out, err
}

// readStore opens cfg's run store for reading (openStore).
func (a *app) readStore(ctx context.Context, cfg *config.Config) (*runstore.Store, error) {
	// Read-only: an archived copy or a read-only mount can be listed. Only
	// an older schema opens it writable, to migrate it.
	store, err := runstore.OpenReadOnly(ctx, cfg.DBPath)
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
		store, err = openRunStore(ctx, cfg.DBPath)
	}
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	return store, nil
}

// runRunsList lists the stored runs, newest first.
func (a *app) runRunsList(ctx context.Context, opts *runsListOptions) (err error) {
	if opts.Limit < 1 {
		return usageErrorf("--limit must be at least 1, got %d", opts.Limit)
	}
	session := opts.Session
	store, out, err := a.openStore(ctx, opts.globalOptions)
	if errors.Is(err, errNoStoreYet) {
		if session != "" {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown session %q: no run was stored yet", session)}
		}
		return runsRendererFor(opts.Output, a.io.OutColumns()).list(out, nil, noRunsLine(""))
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	if session != "" {
		if session, err = runview.ResolveSession(ctx, store, session, false); err != nil {
			return err
		}
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: session, Limit: opts.Limit})
	if err != nil {
		return err
	}
	return runsRendererFor(opts.Output, a.io.OutColumns()).list(out, runs, noRunsLine(session))
}

// noRunsLine is what an empty listing says instead of an empty table.
func noRunsLine(session string) string {
	if session != "" {
		return "No runs yet in session " + session + "."
	}
	return "No runs yet: try `superbiz diagnose --demo`."
}

// runRunsShow prints one stored run in full.
func (a *app) runRunsShow(ctx context.Context, opts *runsShowOptions) (err error) {
	if err := opts.Page.Check(); err != nil {
		return usageErrorf("--%s", err)
	}
	store, out, err := a.openStore(ctx, opts.globalOptions)
	if errors.Is(err, errNoStoreYet) {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("unknown run %q: no run was stored yet\nhint: `superbiz diagnose --demo` stores a first run", opts.ID)}
	}
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	d, err := runview.RunPage(ctx, store, opts.ID, opts.Page)
	if err != nil {
		return err
	}
	return runsRendererFor(opts.Output, a.io.OutColumns()).show(out, d)
}

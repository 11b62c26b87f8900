package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// workspace is everything a run needs, wired from the configuration: the
// store, the model client, the evidence tools and the playbooks.
type workspace struct {
	cfg       *config.Config
	store     *runstore.Store
	model     modelClient
	adapters  []tools.Adapter
	playbooks *skills.Catalog
	toolset   *harness.Toolset
	index     *knowledge.Index
	closers   []func() error
	demo      bool // the tools read the built-in demo workspace (--demo)
}

// Close releases the store and the database connections.
func (w *workspace) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	return errors.Join(errs...)
}

// applyDemo points the runbook, log and database tools (and no metrics source) at the built-in demo workspace in dir
// (per user: demo.DefaultDir), verified or rebuilt by demo.Materialize, and
// fixes the clock to the demo's unless SUPERBIZ_NOW says otherwise.
func applyDemo(ctx context.Context, cfg *config.Config, dir string) (*demo.Workspace, error) {
	ws, err := demo.Materialize(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("prepare the demo workspace: %w", err)
	}
	return ws, useDemo(cfg, ws)
}

// useDemo points the configuration's runbook, log and database tools (and
// no metrics source) at the demo workspace ws, whether built or not (the
// shell completion names its sources without building it).
func useDemo(cfg *config.Config, ws *demo.Workspace) error {
	cfg.Knowledge.Paths = []string{ws.RunbooksDir}
	cfg.Logs = append([]config.LogSource(nil), ws.LogSources...)
	dsn, err := config.NewDSN(config.DriverSQLite, ws.DBPath)
	if err != nil {
		return fmt.Errorf("demo database: %w", err)
	}
	db := config.NewDatabase()
	db.Name, db.Driver, db.DSN = ws.DBName, config.DriverSQLite, dsn
	cfg.Databases = []config.Database{db}
	cfg.Skills.Paths = nil
	cfg.Metrics = nil // the demo has no metrics server; its report lists metrics as missing
	if cfg.Now.IsZero() {
		cfg.Now = demo.Now()
	}
	return nil
}

// openWorkspace resolves the configuration (with a command's own overrides),
// opens the store and builds the tools and the model client.
func (a *app) openWorkspace(cmd *cobra.Command, ov config.Overrides) (*workspace, error) {
	cfg, err := a.loadConfigWith(cmd, ov)
	if err != nil {
		return nil, err
	}
	return a.buildWorkspace(cmd.Context(), cfg)
}

// buildWorkspace opens the store of a resolved configuration and builds,
// over the registry, its tools and its model client: every command's
// wiring, eval's packs too. No command builds a tool or a client itself.
func (a *app) buildWorkspace(ctx context.Context, cfg *config.Config) (*workspace, error) {
	w := &workspace{cfg: cfg, demo: a.flags.demo}
	store, err := openRunStore(ctx, cfg.DBPath)
	if err != nil {
		if full := storeFailure(cfg.DBPath, err); full != err {
			return nil, full
		}
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	w.store = store
	w.closers = append(w.closers, store.Close)
	parts, err := registry.Build(ctx, cfg, integration.Env{
		Store: store, Getenv: a.getenv,
		Warn: a.warn,
	})
	if err != nil {
		return nil, errors.Join(err, w.Close())
	}
	w.adapters, w.playbooks, w.index = parts.Adapters, parts.Playbooks, parts.Index
	w.closers = append(w.closers, func() error { return registry.Close(parts) })
	if w.toolset, err = harness.NewToolset(w.adapters, w.playbooks); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	if w.model, err = registry.ModelClient(cfg); err != nil {
		return nil, errors.Join(configError(err), w.Close())
	}
	return w, nil
}

// warn tells the person, on stderr, of a problem that does not stop the
// command (a playbook skipped).
func (a *app) warn(msg string) { fmt.Fprintf(a.io.ErrOut, "superbiz: %s\n", msg) }

// deps wires the use case over the workspace: store, model, tools, the
// configured budget, limits and language, and the fixed clock if any.
func (w *workspace) deps() *usecase.Deps {
	cfg := w.cfg
	d := &usecase.Deps{
		Store: w.store, Model: w.model, ModelName: cfg.Model.Name, Host: cfg.Model.Endpoint(), Provider: cfg.Model.Provider, Tools: w.toolset,
		Budget: cfg.Budget, Limits: cfg.Limits, Language: string(cfg.Model.Language), Demo: w.demo,
	}
	if !cfg.Now.IsZero() {
		d.Clock = harness.FixedClock{T: cfg.Now}
	}
	return d
}

// storeFailure reports a run store that ran out of space as exactly that:
// exit 1, the path named, what to do; no answer is printed, since the run
// could not be stored whole. Any other error is returned unchanged.
func storeFailure(path string, err error) error {
	if err == nil || !runstore.IsFull(err) {
		return err
	}
	return &ExitError{Code: ExitFailed, Err: fmt.Errorf("the run store %s is full (no space left on its disk): %w\nhint: free space on that disk, or point --db / SUPERBIZ_DB at another one; nothing was printed because the run could not be stored whole", path, err)}
}

// openRunStore opens the run store the registry's way: with the tables of
// the sources that keep theirs in it (the runbook index), so every command
// migrates the whole file.
func openRunStore(ctx context.Context, path string) (*runstore.Store, error) {
	return registry.OpenStore(ctx, path)
}

package cmd

import (
	"context"
	"fmt"

	"github.com/superbiz/superbiz/internal/integration/databases"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	metricsource "github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/integration/runbooks"

	"github.com/superbiz/superbiz/internal/exitcode"
	wsp "github.com/superbiz/superbiz/internal/workspace"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// workspace is the open workspace every command runs on (internal/workspace).
type workspace = wsp.Workspace

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
	runbooks.SetPaths(cfg, []string{ws.RunbooksDir})
	logsource.SetEntries(cfg, ws.LogSources...)
	db, err := databases.SQLite(ws.DBName, ws.DBPath)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	databases.SetEntries(cfg, db)
	playbooks.SetPaths(cfg, nil)
	metricsource.SetEntries(cfg) // the demo has no metrics server; its report lists metrics as missing
	if cfg.Now.IsZero() {
		cfg.Now = demo.Now()
	}
	return nil
}

// openWorkspaceOf resolves the configuration of g, opens the store and
// builds the tools and the model client.
func (a *app) openWorkspaceOf(ctx context.Context, g globalOptions) (*workspace, error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return nil, err
	}
	return a.buildWorkspace(ctx, cfg, g.Demo)
}

// openEvidenceWorkspaceOf is openWorkspaceOf for a command that never asks
// the model (tools, timeline): no model client is built, so a model
// configuration it would not use cannot stop it.
func (a *app) openEvidenceWorkspaceOf(ctx context.Context, g globalOptions) (*workspace, error) {
	cfg, err := a.loadConfigOf(ctx, g)
	if err != nil {
		return nil, err
	}
	return a.buildEvidenceWorkspace(ctx, cfg, g.Demo)
}

// buildEvidenceWorkspace is buildWorkspace without a model client (see
// openEvidenceWorkspaceOf).
func (a *app) buildEvidenceWorkspace(ctx context.Context, cfg *config.Config, isDemo bool) (*workspace, error) {
	return wsp.Open(ctx, cfg, wsp.Env{Getenv: a.getenv, Warn: a.warn, Demo: isDemo, IndexDB: a.demoIndex(isDemo), NoModel: true})
}

// demoIndex is the runbook index file of --demo (demo.IndexDB), "" (the
// run store's) without it.
func (a *app) demoIndex(isDemo bool) string {
	if !isDemo {
		return ""
	}
	return demo.IndexDB(a.getenv)
}

// buildWorkspace opens the workspace of a resolved configuration
// (workspace.Open), isDemo for --demo: every command's wiring, eval's packs
// too.
func (a *app) buildWorkspace(ctx context.Context, cfg *config.Config, isDemo bool) (*workspace, error) {
	return wsp.Open(ctx, cfg, wsp.Env{Getenv: a.getenv, Warn: a.warn, Demo: isDemo, IndexDB: a.demoIndex(isDemo)})
}

// warn tells the person, on stderr, of a problem that does not stop the
// command (a playbook skipped).
func (a *app) warn(msg string) { _ = a.io.ErrOut.Printf("superbiz: %s\n", msg) }

// storeFailure reports a run store that ran out of space as exactly that
// (exitcode.StoreFailure); any other error is returned unchanged.
func storeFailure(path string, err error) error { return exitcode.StoreFailure(path, err) }

// openRunStore opens the run store the registry's way: with the tables of
// the sources that keep theirs in it (the runbook index), so every command
// migrates the whole file.
func openRunStore(ctx context.Context, path string) (*runstore.Store, error) {
	return registry.OpenStore(ctx, path)
}

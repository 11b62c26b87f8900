// Package workspace is one open workspace (the run store, the model
// client, the evidence tools and the playbooks wired from a resolved
// configuration) and what every front end does with it: a direct tool call
// and its verdict, a diagnosis prepared and its verdict, the firing
// alerts. The commands and the MCP service call it alike; cmd only parses
// flags and formats what it returns.
package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// Env is what a workspace takes from the process that opens it.
type Env struct {
	// Getenv reads the environment (credential variables).
	Getenv func(string) string
	// Warn tells the person of a problem that does not stop the work (a
	// playbook skipped, the alert a reference picked), one line on stderr.
	Warn func(string)
	// Demo says the tools read the built-in demo workspace (--demo).
	Demo bool
	// IndexDB is the SQLite file the runbook index lives in, "" for the run
	// store: --demo keeps its runbooks in an index of its own, never in the
	// person's.
	IndexDB string
	// NoModel says the command never asks the model (tools, timeline): no
	// client is built, so a model configuration it would not use cannot
	// stop it. Model is then nil.
	NoModel bool
}

// Workspace is everything a run needs, wired from the configuration.
type Workspace struct {
	Config    *config.Config
	Store     *runstore.Store
	Model     integration.Client
	Adapters  []tools.Adapter
	Playbooks *skills.Catalog
	// Tools are the evidence tools and read_skill as the harness runs them.
	Tools *harness.Toolset
	// Index holds the runbooks; nil without [knowledge] paths.
	Index *knowledge.Index
	// Demo: the tools read the built-in demo workspace (--demo).
	Demo    bool
	env     Env
	closers []func() error
}

// Open opens the store of a resolved configuration and builds, over the
// registry, its tools and its model client: every command's wiring, eval's
// packs and the MCP server's too. Nothing else builds a tool or a client.
func Open(ctx context.Context, cfg *config.Config, env Env) (*Workspace, error) {
	w := &Workspace{Config: cfg, Demo: env.Demo, env: env}
	store, err := registry.OpenStore(ctx, cfg.DBPath)
	if err != nil {
		if full := exitcode.StoreFailure(cfg.DBPath, err); full != err {
			return nil, full
		}
		return nil, &exitcode.Error{Code: exitcode.Usage, Err: fmt.Errorf("open the run store %s: %w", cfg.DBPath, err)}
	}
	w.Store = store
	w.closers = append(w.closers, store.Close)
	indexStore := store
	if env.IndexDB != "" {
		if indexStore, err = registry.OpenStore(ctx, env.IndexDB); err != nil {
			return nil, errors.Join(fmt.Errorf("open the runbook index %s: %w", env.IndexDB, err), w.Close())
		}
		w.closers = append(w.closers, indexStore.Close)
	}
	parts, err := registry.Build(ctx, cfg, integration.Env{Store: indexStore, Getenv: env.Getenv, Warn: env.Warn})
	if err != nil {
		return nil, errors.Join(err, w.Close())
	}
	w.Adapters, w.Playbooks, w.Index = parts.Adapters, parts.Playbooks, parts.Index
	w.closers = append(w.closers, func() error { return registry.Close(parts) })
	if w.Tools, err = harness.NewToolset(w.Adapters, w.Playbooks); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	if env.NoModel {
		return w, nil
	}
	if w.Model, err = registry.ModelClient(cfg); err != nil {
		return nil, errors.Join(exitcode.Config(err), w.Close())
	}
	return w, nil
}

// Close releases the store and the database connections.
func (w *Workspace) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	return errors.Join(errs...)
}

// Deps wires the use case over the workspace: store, model, tools, the
// configured budget, limits and language, the fixed clock if any, and the
// firing alerts of [alerts] with the series their rules compare.
func (w *Workspace) Deps() *usecase.Deps {
	cfg := w.Config
	d := &usecase.Deps{
		Store: w.Store, Model: w.Model, ModelName: cfg.Model.Name, Host: cfg.Model.Endpoint(), Provider: cfg.Model.Provider, Tools: w.Tools,
		Budget: cfg.Budget, Limits: cfg.Limits, Language: string(cfg.Model.Language), ToolGuide: registry.ToolGuide(), Demo: w.Demo,
	}
	if !cfg.Now.IsZero() {
		d.Clock = harness.FixedClock{T: cfg.Now}
	}
	d.FindAlert, d.WatchAlert = FindAlert(cfg, w.env.Getenv), WatchAlert(cfg)
	return d
}

// StoreFailure is err as the commands report a failure of this
// workspace's run store (exitcode.StoreFailure).
func (w *Workspace) StoreFailure(err error) error {
	return exitcode.StoreFailure(w.Config.DBPath, err)
}

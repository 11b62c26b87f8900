package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/metrics"
	"github.com/superbiz/superbiz/pkg/tools/skills"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// workspace is everything a run needs, wired from the configuration: the
// store, the model client, the evidence tools and the playbooks.
type workspace struct {
	cfg       *config.Config
	store     *runstore.Store
	model     modelClient
	adapters  []tools.Adapter
	playbooks *skills.Catalog
	registry  *harness.Registry
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
	cfg.Knowledge.Paths = []string{ws.RunbooksDir}
	cfg.Logs = append([]config.LogSource(nil), ws.LogSources...)
	dsn, err := config.NewDSN(config.DriverSQLite, ws.DBPath)
	if err != nil {
		return nil, fmt.Errorf("demo database: %w", err)
	}
	db := config.NewDatabase()
	db.Name, db.Driver, db.DSN = ws.DBName, config.DriverSQLite, dsn
	cfg.Databases = []config.Database{db}
	cfg.Skills.Paths = nil
	cfg.Metrics = nil // the demo has no metrics server; its report lists metrics as missing
	if cfg.Now.IsZero() {
		cfg.Now = demo.Now()
	}
	return ws, nil
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

// buildWorkspace opens the store of a resolved configuration and builds
// its tools and model client: every command's wiring, eval's packs too.
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
	cat, err := skills.Load(cfg.Skills.Paths)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("load playbooks: %w", err)
	}
	for _, p := range cat.Problems() {
		fmt.Fprintf(a.io.ErrOut, "superbiz: skipped playbook: %v\n", p)
	}
	w.playbooks = cat
	if len(cfg.Knowledge.Paths) > 0 {
		tables, err := store.Tables(knowledge.SchemaName)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.index = knowledge.NewIndex(tables, cfg.Knowledge.Paths)
		if name := cfg.Knowledge.EmbedModel; name != "" {
			emb, err := embedClient(cfg)
			if err != nil {
				w.Close()
				return nil, configError(err)
			}
			w.index.WithEmbedder(name, emb)
		}
		w.adapters = append(w.adapters, knowledge.New(w.index))
	}
	if len(cfg.Logs) > 0 {
		lt, err := logs.New(cfg.Logs)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, lt)
	}
	mysqlDBs, postgresDBs := sqlquery.Split(cfg.Databases)
	if len(mysqlDBs) > 0 {
		st, err := sqlquery.New(mysqlDBs)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, st)
		w.closers = append(w.closers, st.Close)
	}
	if len(postgresDBs) > 0 {
		pt, err := sqlquery.NewPostgres(postgresDBs)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, pt)
		w.closers = append(w.closers, pt.Close)
	}
	if len(cfg.Metrics) > 0 {
		if err := metricsSecretsSet(cfg); err != nil {
			w.Close()
			return nil, configError(err)
		}
		mt, err := metrics.New(cfg.Metrics)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, mt)
	}
	if w.registry, err = harness.NewRegistry(w.adapters, cat); err != nil {
		w.Close()
		return nil, err
	}
	w.model, err = newModelClient(cfg, cfg.Model.Name, cfg.Model.RequestTimeout)
	if err != nil {
		w.Close()
		return nil, configError(err)
	}
	return w, nil
}

// embedTimeout bounds one /api/embed call, at index and at search time, so
// a hung server delays a search by at most this much before BM25 answers.
const embedTimeout = 30 * time.Second

// embedClient is the client of [knowledge] embed_model, on the chosen
// provider's server.
func embedClient(cfg *config.Config) (modelClient, error) {
	return newModelClient(cfg, cfg.Knowledge.EmbedModel, min(cfg.Model.RequestTimeout, embedTimeout))
}

// deps wires the use case over the workspace: store, model, tools, the
// configured budget, limits and language, and the fixed clock if any.
func (w *workspace) deps() *usecase.Deps {
	cfg := w.cfg
	d := &usecase.Deps{
		Store: w.store, Model: w.model, ModelName: cfg.Model.Name, Host: cfg.Model.Endpoint(), Provider: cfg.Model.Provider, Registry: w.registry,
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

// openRunStore opens the run store with the tables of the components that
// keep theirs in it (the knowledge index) registered, so every command
// migrates the whole file.
func openRunStore(ctx context.Context, path string) (*runstore.Store, error) {
	return runstore.Open(ctx, path, runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()})
}

package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/superbiz/superbiz/pkg/agent"
	usecase "github.com/superbiz/superbiz/pkg/app"
	"github.com/superbiz/superbiz/pkg/config"
	"github.com/superbiz/superbiz/pkg/demo"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model/ollama"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/logs"
	"github.com/superbiz/superbiz/pkg/tools/skills"
	"github.com/superbiz/superbiz/pkg/tools/sqlquery"
)

// workspace is everything a run needs, wired from the configuration: the
// store, the model client, the evidence tools and the playbooks.
type workspace struct {
	cfg       *config.Config
	store     *runstore.Store
	model     *ollama.Client
	adapters  []tools.Adapter
	playbooks *skills.Catalog
	registry  *harness.Registry
	index     *knowledge.Index
	closers   []func() error
}

// Close releases the store and the database connections.
func (w *workspace) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	return errors.Join(errs...)
}

// applyDemo points the three tools at the built-in demo workspace in dir
// (per user: demo.DefaultDir), verified or rebuilt by demo.Materialize, and
// fixes the clock to the demo's unless SUPERBIZ_NOW says otherwise.
func applyDemo(ctx context.Context, cfg *config.Config, dir string) (*demo.Workspace, error) {
	ws, err := demo.Materialize(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("prepare the demo workspace: %w", err)
	}
	cfg.Knowledge.Paths = []string{ws.RunbooksDir}
	cfg.Logs = nil
	for _, s := range ws.LogSources {
		loc, err := time.LoadLocation(s.Timezone)
		if err != nil {
			return nil, fmt.Errorf("demo log source %s: %w", s.Name, err)
		}
		cfg.Logs = append(cfg.Logs, config.LogSource{Name: s.Name, Paths: s.Globs, Format: config.LogFormat(s.Format), Timezone: s.Timezone, Location: loc, MaxWindow: config.DefaultLogMaxWindow})
	}
	dsn, err := config.NewDSN(config.DriverSQLite, ws.DBPath)
	if err != nil {
		return nil, fmt.Errorf("demo database: %w", err)
	}
	cfg.Databases = []config.Database{{Name: ws.DBName, Driver: config.DriverSQLite, DSN: dsn, MaxRows: config.DefaultDBMaxRows, Timeout: config.DefaultDBTimeout}}
	cfg.Skills.Paths = nil
	if cfg.Now.IsZero() {
		cfg.Now = demo.Now()
	}
	return ws, nil
}

// openWorkspace resolves the configuration (with a command's own overrides),
// opens the store and builds the tools and the model client.
func (a *app) openWorkspace(cmd *cobra.Command, ov config.Overrides) (*workspace, error) {
	ctx := cmd.Context()
	cfg, err := a.loadConfigWith(cmd, ov)
	if err != nil {
		return nil, err
	}
	w := &workspace{cfg: cfg}
	store, err := runstore.Open(ctx, cfg.DBPath)
	if err != nil {
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
		w.index = knowledge.NewIndex(store.DB(), cfg.Knowledge.Paths)
		w.adapters = append(w.adapters, knowledge.New(w.index))
	}
	if len(cfg.Logs) > 0 {
		var srcs []logs.Source
		for _, s := range cfg.Logs {
			srcs = append(srcs, logs.Source{Name: s.Name, Paths: s.Paths, Format: string(s.Format), Location: s.Location, MaxWindow: s.MaxWindow})
		}
		lt, err := logs.New(srcs)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, lt)
	}
	if len(cfg.Databases) > 0 {
		var dbs []sqlquery.Database
		for _, d := range cfg.Databases {
			dbs = append(dbs, sqlquery.Database{Name: d.Name, Driver: string(d.Driver), DSN: d.DSN.Reveal(), MaxRows: d.MaxRows, Timeout: d.Timeout})
		}
		st, err := sqlquery.New(dbs)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		w.adapters = append(w.adapters, st)
		w.closers = append(w.closers, st.Close)
	}
	if w.registry, err = harness.NewRegistry(w.adapters, cat); err != nil {
		w.Close()
		return nil, err
	}
	w.model, err = ollama.New(ollama.Options{
		Host: cfg.Model.Host.Reveal(), Model: cfg.Model.Name, NumCtx: cfg.Model.NumCtx,
		Temperature: cfg.Model.Temperature, Think: cfg.Model.Think, RequestTimeout: cfg.Model.RequestTimeout,
	})
	if err != nil {
		w.Close()
		return nil, configError(err)
	}
	return w, nil
}

// deps wires the use case over the workspace: store, model, tools, the
// configured budget, limits and language, and the fixed clock if any.
func (w *workspace) deps() *usecase.Deps {
	cfg := w.cfg
	d := &usecase.Deps{
		Store: w.store, Model: w.model, ModelName: cfg.Model.Name, Host: cfg.Model.Host.Redacted(), Registry: w.registry,
		Budget: budget(cfg.Budget), Limits: limits(cfg.Limits), Language: string(cfg.Model.Language),
	}
	if !cfg.Now.IsZero() {
		d.Clock = harness.FixedClock{T: cfg.Now}
	}
	return d
}

// ollamaHint tells a person how to get a model to answer.
func ollamaHint(cfg *config.Config) string {
	return fmt.Sprintf("hint: start Ollama with `ollama serve` (and `ollama pull %s`), or point --host / OLLAMA_HOST at a running server (tried %s)", cfg.Model.Name, cfg.Model.Host.Redacted())
}

// budget converts the configured budget to the harness's.
func budget(b config.Budget) harness.Budget {
	return harness.Budget{MaxModelCalls: b.MaxModelCalls, MaxToolCalls: b.MaxToolCalls, MaxTokens: b.MaxTokens, MaxRunBytes: b.MaxRunBytes, Deadline: b.Deadline, MaxNoGain: b.MaxNoGain}
}

// limits converts the configured byte limits to the agent's.
func limits(l config.Limits) agent.Limits {
	return agent.Limits{Query: l.Query, PreviousTurn: l.PreviousTurn, Input: l.Input, Draft: l.Draft, Observation: l.Observation}
}

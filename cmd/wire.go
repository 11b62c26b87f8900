package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/harness"
	"github.com/superbiz/superbiz/internal/model"
	"github.com/superbiz/superbiz/internal/model/ollama"
	"github.com/superbiz/superbiz/internal/runstore"
	"github.com/superbiz/superbiz/internal/tools"
	"github.com/superbiz/superbiz/internal/tools/knowledge"
	"github.com/superbiz/superbiz/internal/tools/logs"
	"github.com/superbiz/superbiz/internal/tools/metrics"
	"github.com/superbiz/superbiz/internal/tools/skills"
	"github.com/superbiz/superbiz/internal/tools/sqlquery"
	"github.com/superbiz/superbiz/internal/usecase"
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
	cfg.Logs = nil
	for _, s := range ws.LogSources {
		loc, err := time.LoadLocation(s.Timezone)
		if err != nil {
			return nil, fmt.Errorf("demo log source %s: %w", s.Name, err)
		}
		src := config.NewLogSource()
		src.Name, src.Paths, src.Format, src.Timezone, src.Location = s.Name, s.Globs, config.LogFormat(s.Format), s.Timezone, loc
		cfg.Logs = append(cfg.Logs, src)
	}
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
	ctx := cmd.Context()
	cfg, err := a.loadConfigWith(cmd, ov)
	if err != nil {
		return nil, err
	}
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
		var srcs []logs.Source
		for _, s := range cfg.Logs {
			srcs = append(srcs, logSource(s))
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
	if len(cfg.Metrics) > 0 {
		srcs, err := metricsSources(cfg)
		if err != nil {
			w.Close()
			return nil, configError(err)
		}
		mt, err := metrics.New(srcs)
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

// embedTimeout bounds one /api/embed call, at index and at search time, so
// a hung server delays a search by at most this much before BM25 answers.
const embedTimeout = 30 * time.Second

// embedClient is the Ollama client of [knowledge] embed_model, on the
// model's host.
func embedClient(cfg *config.Config) (*ollama.Client, error) {
	return ollama.New(ollama.Options{
		Host: cfg.Model.Host.Reveal(), Model: cfg.Knowledge.EmbedModel, NumCtx: cfg.Model.NumCtx,
		RequestTimeout: min(cfg.Model.RequestTimeout, embedTimeout),
	})
}

// deps wires the use case over the workspace: store, model, tools, the
// configured budget, limits and language, and the fixed clock if any.
func (w *workspace) deps() *usecase.Deps {
	cfg := w.cfg
	d := &usecase.Deps{
		Store: w.store, Model: w.model, ModelName: cfg.Model.Name, Host: cfg.Model.Host.Redacted(), Registry: w.registry,
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

// ollamaHint tells a person how to get a model to answer.
func ollamaHint(cfg *config.Config) string {
	return fmt.Sprintf("hint: start Ollama with `ollama serve` (and `ollama pull %s`), or point --host / OLLAMA_HOST at a running server (tried %s)", cfg.Model.Name, cfg.Model.Host.Redacted())
}

// modelHint tells a person what to do about the model failure me that
// ended a run: by its kind and HTTP status (nil: the server was not reached).
func modelHint(cfg *config.Config, me *model.Error) string {
	host, name := cfg.Model.Host.Redacted(), cfg.Model.Name
	if me == nil {
		return ollamaHint(cfg)
	}
	switch {
	case me.Kind == model.ErrUnreachable:
		return ollamaHint(cfg)
	case me.Kind == model.ErrModelNotFound:
		return fmt.Sprintf("hint: pull the model on the server (`ollama pull %s`) or choose a pulled one with --model (tried %s)", name, host)
	case me.Kind == model.ErrToolsNotSupported:
		return fmt.Sprintf("hint: %s has no native tool calling; choose a model that has (e.g. qwen3:8b) with --model; `superbiz doctor` checks it", name)
	case me.Status == 401 || me.Status == 403:
		return fmt.Sprintf("hint: %s (or a proxy in front of it) refused the credentials (HTTP %d): check the key or the user:password in --host / OLLAMA_HOST, and the proxy's authentication", host, me.Status)
	case me.Kind == model.ErrServer:
		return fmt.Sprintf("hint: the model server failed while answering: check `ollama ps` and the Ollama server log (out of memory, a crashed runner); if a proxy stands in front of %s, check that it reaches Ollama", host)
	case me.Kind == model.ErrProtocol:
		return fmt.Sprintf("hint: %s did not answer like the Ollama API (a cut stream, an HTML page or a malformed line): check that --host points at Ollama itself and that no proxy cuts, buffers or rewrites the stream; `ollama ps` shows whether the model is still loaded", host)
	case me.Kind == model.ErrTimeout:
		return fmt.Sprintf("hint: the model did not answer within model.request_timeout: check `ollama ps` (still loading? too large for this machine?) or raise model.request_timeout (tried %s)", host)
	}
	return fmt.Sprintf("hint: the server at %s rejected the request: `superbiz doctor` checks the server version, the model and its tool support", host)
}

// openRunStore opens the run store with the tables of the components that
// keep theirs in it (the knowledge index) registered, so every command
// migrates the whole file.
func openRunStore(ctx context.Context, path string) (*runstore.Store, error) {
	return runstore.Open(ctx, path, runstore.Component{Name: knowledge.SchemaName, Migrations: knowledge.Migrations()})
}

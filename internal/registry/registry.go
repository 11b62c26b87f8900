// Package registry is the one list of superbiz's integrations, and the
// loops every command runs over it: load the configuration with each
// integration's share of it, build the model client and the tools of
// a workspace, run doctor's checks, name what an evidence call read. Adding
// an integration is one line in Sources or Providers (docs/ARCHITECTURE.md).
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/integration"
	"github.com/superbiz/superbiz/internal/integration/alerts"
	"github.com/superbiz/superbiz/internal/integration/databases"
	"github.com/superbiz/superbiz/internal/integration/kubernetes"
	"github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/integration/metrics"
	"github.com/superbiz/superbiz/internal/integration/ollama"
	"github.com/superbiz/superbiz/internal/integration/openai"
	"github.com/superbiz/superbiz/internal/integration/playbooks"
	"github.com/superbiz/superbiz/internal/integration/redis"
	"github.com/superbiz/superbiz/internal/integration/runbooks"
	"github.com/superbiz/superbiz/internal/integration/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Sources are the evidence integrations, one line each, in the order
// their tools are offered to the model and doctor checks them.
func Sources() []integration.Source {
	return []integration.Source{
		runbooks.Source{},    // [knowledge]: lookup_knowledge
		logs.Source{},        // [[logs]]: query_logs
		databases.Source{},   // [[databases]] mysql, sqlite: query_mysql
		databases.Postgres{}, // [[databases]] postgres: query_postgres
		metrics.Source{},     // [[metrics]]: query_metrics
		kubernetes.Source{},  // [[kubernetes]]: query_kubernetes
		redis.Source{},       // [[redis]]: query_redis
		alerts.Source{},      // [alerts]: alerts, diagnose --alert
		timeline.Source{},    // [[logs]], [alerts], [[timeline.metrics]]: build_timeline (after the tools it reads)
		playbooks.Source{},   // [skills]: read_skill
	}
}

// Providers are the model providers, one line each; model.provider names one.
func Providers() []integration.Provider {
	return []integration.Provider{
		ollama.Provider{}, // model.provider = "ollama"
		openai.Provider{}, // model.provider = "openai"
	}
}

// Parts are the integrations' shares of the configuration (their rules,
// summary lines and credentials), providers first, in registry order.
func Parts() []config.Part {
	var out []config.Part
	for _, p := range Providers() {
		if c, ok := p.(integration.Configured); ok {
			out = append(out, c.Config())
		}
	}
	for _, s := range Sources() {
		if c, ok := s.(integration.Configured); ok {
			out = append(out, c.Config())
		}
	}
	return out
}

// Example is the TOML of every source's example table (config.Part's
// Example), in registry order: a configuration in which every source is
// configured, which the registry's tests and docs/SPEC.md load.
func Example() string {
	var out []string
	for _, s := range Sources() {
		if c, ok := s.(integration.Configured); ok && c.Config().Example != "" {
			out = append(out, c.Config().Example)
		}
	}
	return strings.Join(out, "\n")
}

// Load is config.Load with every integration's share of the configuration:
// the one way a command loads it (flag > environment > file > default,
// then each table's rules).
func Load(opts config.LoadOptions) (*config.Config, error) {
	opts.Parts = Parts()
	return config.Load(opts)
}

// Defaults is config.Defaults with every integration's share, for a
// configuration built in Go that Validate and Summary then check and show
// as Load would.
func Defaults() config.Config { return config.Defaults(Parts()...) }

// ToolGuide is the diagnosis prompt's list of evidence tools by prompt
// language ("en", "zh"): the line of every Guided source, in registry
// order, as agent.SystemPrompt puts it in place of {{TOOLS}}.
func ToolGuide() map[string]string {
	var en, zh []string
	for _, s := range Sources() {
		if g, ok := s.(integration.Guided); ok {
			en = append(en, "  - "+g.Guide().EN)
			zh = append(zh, "  - "+g.Guide().ZH)
		}
	}
	return map[string]string{"en": strings.Join(en, "\n"), "zh": strings.Join(zh, "\n")}
}

// Provider is the provider model.provider names. Config validates the
// name, so an unknown one here is a programming error reported as such.
func Provider(cfg *config.Config) (integration.Provider, error) {
	for _, p := range Providers() {
		if p.Name() == cfg.Model.Provider {
			return p, nil
		}
	}
	return nil, fmt.Errorf("model.provider %q: no such provider is registered", cfg.Model.Provider)
}

// ModelClient builds the client of the configured model (model.name,
// bounded by model.request_timeout) on the configured provider: the one
// builder diagnose, chat, eval, mcp, replay and doctor share, from a
// configuration config.Load resolved by flag > environment > file.
func ModelClient(cfg *config.Config) (integration.Client, error) {
	return ModelClientFor(cfg, cfg.Model.Name, cfg.Model.RequestTimeout)
}

// ModelClientFor is ModelClient for another model name and bound (an
// embedding model).
func ModelClientFor(cfg *config.Config, name string, timeout time.Duration) (integration.Client, error) {
	p, err := Provider(cfg)
	if err != nil {
		return nil, err
	}
	c, err := p.Client(cfg.Model, name, timeout)
	if err != nil {
		// Say what chose the provider: a variable set long ago is easy to forget.
		return nil, fmt.Errorf("model.provider = %q%s: %w", p.Name(), cfg.From("model.provider"), err)
	}
	return c, nil
}

// Build builds what every source of the configuration contributes to a
// workspace, in registry order. On an error, what was built is closed.
func Build(ctx context.Context, cfg *config.Config, env integration.Env) (*integration.Parts, error) {
	if env.Provider == nil {
		p, err := Provider(cfg)
		if err != nil {
			return nil, err
		}
		env.Provider = p
	}
	parts := &integration.Parts{}
	for _, s := range Sources() {
		if err := s.Build(ctx, cfg, env, parts); err != nil {
			return nil, errors.Join(err, Close(parts))
		}
	}
	return parts, nil
}

// Declared are the definitions of the tools Build would give the
// configuration, in registry order, read_skill last when playbooks load,
// with nothing opened: a Declarer declares its tools without the run store,
// every other source builds them as for a run (which validates, and
// connects to nothing) and they are closed before returning. A source that
// cannot build is left out, its error joined in the result. The shell
// completion names the tools this way: it may create, migrate or wait for
// no store.
func Declared(ctx context.Context, cfg *config.Config, env integration.Env) ([]model.Tool, error) {
	env.Store = nil
	parts := &integration.Parts{}
	var (
		defs []model.Tool
		errs []error
	)
	for _, s := range Sources() {
		if d, ok := s.(integration.Declarer); ok {
			defs = append(defs, d.Declare(cfg)...)
			continue
		}
		n := len(parts.Adapters)
		if err := s.Build(ctx, cfg, env, parts); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, a := range parts.Adapters[n:] {
			defs = append(defs, a.Definition())
		}
	}
	if parts.Playbooks != nil {
		r, err := harness.NewToolset(nil, parts.Playbooks)
		if err != nil {
			errs = append(errs, err)
		} else {
			defs = append(defs, r.Definitions()...)
		}
	}
	errs = append(errs, Close(parts))
	return defs, errors.Join(errs...)
}

// OpenStore opens (and migrates) the run store at path with the tables of
// every source that keeps some in it: the one way every command opens it.
func OpenStore(ctx context.Context, path string) (*runstore.Store, error) {
	return runstore.Open(ctx, path, components()...)
}

// components are the run-store tables of the sources that keep some.
func components() []runstore.Component {
	var out []runstore.Component
	for _, s := range Sources() {
		if st, ok := s.(integration.Stored); ok {
			out = append(out, st.Components()...)
		}
	}
	return out
}

// Close runs the parts' closers, the last added first.
func Close(parts *integration.Parts) error {
	var errs []error
	for i := len(parts.Closers) - 1; i >= 0; i-- {
		errs = append(errs, parts.Closers[i]())
	}
	parts.Closers = nil
	return errors.Join(errs...)
}

// Doctor runs every check in order on a loaded configuration: the
// configuration, the run store, the provider's checks, then each source's.
func Doctor(ctx context.Context, cfg *config.Config, getenv func(string) string) []doctor.Result {
	p, err := Provider(cfg)
	if err != nil {
		return []doctor.Result{doctor.ConfigNotLoaded(err)}
	}
	results := []doctor.Result{doctor.Config(cfg), doctor.RunStore(ctx, cfg.DBPath, components()...)}
	results = append(results, p.Doctor(ctx, cfg)...)
	env := integration.Env{Provider: p, Getenv: getenv, Warn: func(string) {}}
	for _, s := range Sources() {
		results = append(results, s.Doctor(ctx, cfg, env)...)
	}
	return results
}

// SourcesOf names what one evidence call read, for eval's evidence grader:
// the tool, and tool:source for each source its integration says it read.
func SourcesOf(tool string, input, observation json.RawMessage) []string {
	out := []string{tool}
	if s := owner(tool); s != nil {
		out = append(out, s.Reads(input, observation)...)
	}
	return out
}

// Setup says how to configure the source of tool when a person names it but
// the configuration has none; "" for a tool no source owns.
func Setup(tool string) string {
	if s := owner(tool); s != nil {
		return s.Setup()
	}
	return ""
}

// owner is the source that adds tool, nil for none.
func owner(tool string) integration.Source {
	for _, s := range Sources() {
		if tool != "" && s.Tool() == tool {
			return s
		}
	}
	return nil
}

// Freezers are the sources whose evidence eval pack freezes, in registry
// order: the pack is written by each in turn.
func Freezers() []integration.Freezer {
	var out []integration.Freezer
	for _, s := range Sources() {
		if f, ok := s.(integration.Freezer); ok {
			out = append(out, f)
		}
	}
	return out
}

// PackTable is a table a pack's superbiz.toml may hold because a Packed
// source writes it: its key, and how a file writes it ("[[statuspage]]").
type PackTable struct{ Key, Shown string }

// PackTables are the tables of every Packed source, in registry order.
func PackTables() []PackTable {
	var out []PackTable
	for _, s := range Sources() {
		p, ok := s.(integration.Packed)
		if !ok {
			continue
		}
		shown := "[" + p.PackTable() + "]"
		if c, ok := s.(integration.Configured); ok && c.Config().Schema != nil && reflect.TypeOf(c.Config().Schema).Kind() == reflect.Slice {
			shown = "[" + shown + "]"
		}
		out = append(out, PackTable{Key: p.PackTable(), Shown: shown})
	}
	return out
}

// PackPaths are the paths every Packed source's table names in cfg.
func PackPaths(cfg *config.Config) []integration.PackPath {
	var out []integration.PackPath
	for _, s := range Sources() {
		if p, ok := s.(integration.Packed); ok {
			out = append(out, p.PackPaths(cfg)...)
		}
	}
	return out
}

// Composites are the sources whose tool reads other tools inside one
// call, in registry order: eval pack freezes their reads too.
func Composites() []integration.Composite {
	var out []integration.Composite
	for _, s := range Sources() {
		if c, ok := s.(integration.Composite); ok {
			out = append(out, c)
		}
	}
	return out
}

// Unfrozen is the first evidence tool of calls that no Freezer freezes, ""
// when every one has its Freezer: eval pack refuses to write a pack that
// would silently leave a source's evidence out.
func Unfrozen(calls []runrecord.Invocation) string {
	var tools []string
	for _, f := range Freezers() {
		tools = append(tools, f.Freezes()...)
	}
	for _, inv := range calls {
		if inv.Kind == runrecord.KindEvidence && frozen.Evidence(inv) && !slices.Contains(tools, inv.Tool) {
			return inv.Tool
		}
	}
	return ""
}

// Replayers are the sources eval serves from a pack's own files, in
// registry order.
func Replayers() []integration.Replayer {
	var out []integration.Replayer
	for _, s := range Sources() {
		if r, ok := s.(integration.Replayer); ok {
			out = append(out, r)
		}
	}
	return out
}

// Package integration is the contract every integration folder under
// internal/integration/ fulfils: an evidence source (runbooks, logs,
// databases, metrics, alerts, playbooks) or a model provider (ollama,
// openai). A folder owns its constructor and closer, its credential
// resolution, its doctor check, its error hints and what eval reads of its
// results; internal/registry lists the folders once and every command loops
// over that list. See docs/ARCHITECTURE.md.
package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/doctor"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/pkg/tools/skills"
)

// Source is one evidence integration.
type Source interface {
	// Name is the integration's folder name, for messages and the registry.
	Name() string
	// Build adds to parts what the configuration asks of this source (its
	// tool and closer, nothing when it is not configured). A configuration
	// the source cannot work with is an error naming the key.
	Build(ctx context.Context, cfg *config.Config, env Env, parts *Parts) error
	// Doctor checks the configured source the way a run reaches it, one
	// result per entry (none when the source is not configured).
	Doctor(ctx context.Context, cfg *config.Config, env Env) []doctor.Result
	// Tool is the name of the evidence tool the source adds, "" for none.
	Tool() string
	// Setup says how to configure the tool when a person names it but the
	// configuration has none.
	Setup() string
	// Reads names, for eval's evidence grader, the sources one call of
	// Tool read, as tool:source.
	Reads(input, observation json.RawMessage) []string
}

// Stored is a Source that keeps tables of its own in the run store (the
// runbook index): every command opens the store with them registered, so
// each migrates the whole file.
type Stored interface {
	Components() []runstore.Component
}

// Declarer is a Source whose Build needs what naming its tools must not
// open (the run store, for a Stored source): Declare gives the definitions
// of the tools Build would add for the configuration, opening, creating and
// locking nothing, so the shell completion can name them (registry.Declared).
type Declarer interface {
	Declare(cfg *config.Config) []model.Tool
}

// Freezer is a Source whose evidence `eval pack` freezes into a pack
// (internal/evalpack loops over every registered one). A run's call that
// holds evidence from a tool no Freezer names fails eval pack: a source
// without a Freezer is never silently left out of a pack.
type Freezer interface {
	// Freezes are the tools whose calls Freeze freezes.
	Freezes() []string
	// Freeze writes into p what the run read through this source: its files,
	// its superbiz.toml tables, its scenario.toml keys and its report line;
	// nothing when the run did not read it. It reads the calls through
	// p.Calls and frozen.Result (the tool's own result type), never by a
	// JSON shape of its own.
	Freeze(ctx context.Context, p *frozen.Pack) error
}

// Packed is a Freezer whose frozen evidence is a table of the pack's own
// superbiz.toml naming files inside the pack (a file-backed source: its
// Freeze appends its entry with frozen.Pack.Append). A pack's superbiz.toml
// may hold only such tables, and every path they name must lie inside the
// pack: internal/eval's pack guard asks every registered Packed source, so
// a new file-backed source needs no line there.
type Packed interface {
	// PackTable is the key of the table Freeze writes: its own table.
	PackTable() string
	// PackPaths are the files and folders the table names in a loaded
	// configuration, each with its key ("statuspage[0].path").
	PackPaths(cfg *config.Config) []PackPath
}

// PackPath is one path a pack's table names, and the key naming it.
type PackPath struct{ Key, Path string }

// PathList is the PackPaths of the list of paths at key ("skills.paths"),
// each named by its index ("skills.paths[0]").
func PathList(key string, paths []string) []PackPath {
	out := make([]PackPath, 0, len(paths))
	for i, p := range paths {
		out = append(out, PackPath{Key: fmt.Sprintf("%s[%d]", key, i), Path: p})
	}
	return out
}

// Composite is a Freezer whose tool reads other tools inside one call
// (build_timeline reads query_logs and query_metrics): Inner gives the
// reads the run's calls of it made, as calls of the tools they went to, so
// that those tools' Freezers freeze their evidence too. eval pack asks
// every Composite before any Freezer freezes.
type Composite interface {
	Inner(p *frozen.Pack) ([]runrecord.Invocation, error)
}

// Replayer is a Source whose frozen evidence eval serves back to a pack's
// runs (a metrics server for metrics.om, the recorded answers of a SQL
// server): what the pack's superbiz.toml cannot say by itself.
type Replayer interface {
	// Owns names the pack files and scenario.toml keys the source reads.
	Owns() frozen.Owned
	// Replay reads, when eval loads a pack, what it holds of the source:
	// nil when nothing; an error names the file and the key.
	Replay(r frozen.Replay) (frozen.Served, error)
}

// Guided is a Source whose tool the diagnosis prompt describes: its line
// in the prompt's list of evidence tools (registry.ToolGuide), kept in the
// folder with the tool, so adding a source touches no prompt file. A line
// may name several tools (query_mysql and query_postgres share one).
type Guided interface {
	Guide() Guide
}

// Guide is a Guided source's line in each prompt language, without the
// list's "- " (each names its tools in backquotes first).
type Guide struct{ EN, ZH string }

// InputDocumented is a Source whose tool's input table in docs/SPEC.md
// internal/specref generates: the members, their order, types and
// "required" come from the tool's input schema, the rest of each row from
// InputDocs, keyed by member ("start, end" for one row of two members).
// Each bound, default and fixed enum value the schema states must appear
// in its member's text.
type InputDocumented interface {
	InputDocs() map[string]string
}

// Configured is an integration with a share of the configuration: its
// table's rules, its summary lines and the credentials it reads at load
// (config.Part). registry.Load hands every share to config.Load, so
// internal/config names no integration.
type Configured interface {
	Config() config.Part
}

// Provider is one model provider: how model.provider = Name() builds its
// client from [model], checks it and explains its failures.
type Provider interface {
	// Name is model.provider's value for this provider.
	Name() string
	// Client builds the client of model name from the resolved [model]
	// table, each request bounded by timeout: the one place the
	// provider's options are filled in, for every command and doctor.
	Client(m config.Model, name string, timeout time.Duration) (Client, error)
	// Doctor checks, in order, the server, the model and its abilities with
	// the same client a run uses.
	Doctor(ctx context.Context, cfg *config.Config) []doctor.Result
	// ServerHint tells a person how to get this provider's server to answer.
	ServerHint(cfg *config.Config) string
	// Hint tells a person what to do about a model failure that ended a
	// run (never nil; an unreachable server is ServerHint's).
	Hint(cfg *config.Config, me *model.Error) string
	// EmbedHint is the fix when embedModel (knowledge.embed_model) could
	// not embed on the server at host.
	EmbedHint(embedModel, host string, err error) string
}

// Client is what a command needs of a provider's adapter: the model port
// and the embedder, the server it talks to (masked) and whether that server
// serves the configured model.
type Client interface {
	model.ChatModel
	model.Embedder
	Host() string
	HasModel(ctx context.Context) (bool, error)
}

// Env is what a source may use beside its configuration table.
type Env struct {
	// Store is the run store; the runbook index keeps its tables in it
	// (nil in doctor, which opens no workspace).
	Store *runstore.Store
	// Provider is the configured model provider (model.provider), whose
	// client serves the embedding model too.
	Provider Provider
	// Getenv reads the environment, for credentials named by the file.
	Getenv func(string) string
	// Warn reports a problem that does not stop a run (a skipped playbook).
	Warn func(msg string)
}

// Parts is what the sources built for one workspace.
type Parts struct {
	// Adapters are the evidence tools, in registry order.
	Adapters []tools.Adapter
	// Playbooks are the diagnosis playbooks read_skill serves.
	Playbooks *skills.Catalog
	// Index is the runbook index (nil without knowledge paths).
	Index *knowledge.Index
	// Closers release what the parts hold, in the order they were added.
	Closers []func() error
}

// Add adds the tool a constructor made and, when it holds connections,
// its closer; the constructor's error is the configuration's
// (*ConfigError), for a tool is made from its table alone.
func (p *Parts) Add(t tools.Adapter, err error) error {
	if err != nil {
		return &ConfigError{Err: err}
	}
	p.Adapters = append(p.Adapters, t)
	if c, ok := t.(interface{ Close() error }); ok {
		p.Closers = append(p.Closers, c.Close)
	}
	return nil
}

// Named reads the sources a call of tool named under key, in its input and
// in its result (e.g. "source" for query_logs, "database" for query_mysql),
// as tool:name; what most sources' Reads return.
func Named(tool, key string, input, observation json.RawMessage) []string {
	var in map[string]json.RawMessage
	var obs struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(input, &in)        // not every input has the member
	_ = json.Unmarshal(observation, &obs) // nor every observation
	var out []string
	for _, raw := range []json.RawMessage{in[key], obs.Result[key]} {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			out = append(out, tool+":"+s)
		}
	}
	return out
}

// ConfigError is a Build failure caused by the configuration (a bad
// entry, an unset credential variable), not by the machine: the command
// exits with the configuration error's code.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }

// Unwrap gives the cause.
func (e *ConfigError) Unwrap() error { return e.Err }

// Configf is a ConfigError with a formatted message.
func Configf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// Canaried is an optional hook of a Source for the canary suite
// (e2e/canary_test.go, over every source of the registry): it plants lines
// (the corpus of internal/canary) in fixtures of its kind under dir, where
// its system would hold them (a log file, a runbook, database cells), and
// says how to read them back. A new source joins the suite by implementing it.
type Canaried interface {
	PlantCanaries(dir string, lines []string) (Planted, error)
}

// Planted is what a Canaried source planted: the configuration (TOML) that
// points it at the fixtures, the tool that reads them ("" for the source's
// Tool()) and its calls (the tool's input, no envelope) that read every
// planted line back. A source that adds no tool (alerts) reads them back
// through its commands instead: Commands (arguments of the binary),
// MCPCalls (tools only the MCP server has) and Diagnose (the arguments
// that start a diagnosis from the fixtures, such as --alert NAME). A
// server-backed source plants into a server it starts (Stop stops it, nil
// when none); one whose server is not installed returns an error wrapping
// localserver.ErrMissing.
type Planted struct {
	Config   string
	Tool     string
	Calls    []json.RawMessage
	Commands [][]string
	MCPCalls []MCPCall
	Diagnose []string
	Stop     func() error
}

// MCPCall is one call of an MCP tool: its name and arguments.
type MCPCall struct {
	Tool string
	Args json.RawMessage
}

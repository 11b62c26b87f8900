// Package config loads superbiz's strict TOML configuration (docs/SPEC.md#configuration):
// it finds the file (--config, $SUPERBIZ_CONFIG, ./superbiz.toml,
// $XDG_CONFIG_HOME/superbiz/config.toml), rejects unknown keys, validates every
// duration, enum and limit with a message naming the key and the file, applies
// the precedence flag > environment > file > default, and resolves relative
// paths against the file's directory. Secrets (DSN and URL passwords) live in
// dedicated types that redact themselves everywhere they can be printed.
package config

import (
	"github.com/superbiz/superbiz/pkg/runrecord"
	"strconv"
	"time"
)

// Language selects the prompts' language; auto picks it from the query's script.
type Language string

// The languages the prompts exist in.
const (
	LanguageAuto Language = "auto"
	LanguageZH   Language = "zh"
	LanguageEN   Language = "en"
)

// LogFormat tells the log tool how to parse a source's lines; auto sniffs it.
type LogFormat string

// The log line formats query_logs understands.
const (
	FormatJSON   LogFormat = "json"
	FormatLogfmt LogFormat = "logfmt"
	FormatText   LogFormat = "text"
	FormatAuto   LogFormat = "auto"
	// FormatCustom reads lines with the source's own pattern and time_layout.
	FormatCustom LogFormat = "custom"
)

// Driver names the database engine behind a [[databases]] entry: mysql and
// sqlite are read by query_mysql, postgres by query_postgres.
type Driver string

// The database engines the SQL tools can read.
const (
	DriverMySQL    Driver = "mysql"
	DriverPostgres Driver = "postgres"
	DriverSQLite   Driver = "sqlite"
)

// Config is the whole resolved configuration one superbiz process runs with:
// defaults, then the file, then the environment, then flags, already validated.
// Its fields and those of its tables are the schema (see schema.go): each key
// is declared once, with its default and bounds, in its struct tags.
type Config struct {
	// File is the configuration file that was read, "" when none was (defaults).
	File string `json:"file"`
	// DBPath is the run store's SQLite file (absolute).
	DBPath    string          `toml:"db" json:"db_path"`
	Model     Model           `toml:"model" json:"model"`
	Budget    Budget          `toml:"budget" json:"budget"`
	Limits    Limits          `toml:"limits" json:"limits"`
	Knowledge Knowledge       `toml:"knowledge" json:"knowledge"`
	Logs      []LogSource     `toml:"logs" json:"logs"`
	Databases []Database      `toml:"databases" json:"databases"`
	Metrics   []MetricsSource `toml:"metrics" json:"metrics"`
	Skills    Skills          `toml:"skills" json:"skills"`
	Alerts    Alerts          `toml:"alerts" json:"alerts"`
	// Now, when not zero, fixes the clock for reproducible runs ($SUPERBIZ_NOW).
	Now time.Time `json:"now,omitzero"`

	// fileKeys are the dotted keys the file set ("model.url"), so a key
	// that means nothing for the chosen provider can be reported.
	fileKeys map[string]bool

	// origins records where a value that did not come from the file or the
	// defaults came from ("--model", "$SUPERBIZ_MODEL"), for messages and Summary.
	origins map[string]string
}

// The model providers of model.provider.
const (
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// Model is how superbiz reaches and drives the model: an Ollama server, or
// any server that speaks OpenAI's Chat Completions wire.
type Model struct {
	// Provider picks the adapter: ollama (model.host) or openai (model.url).
	Provider string `toml:"provider" json:"provider" default:"ollama" enum:"ollama,openai"`
	// Host is the normalised Ollama URL (scheme and port always present).
	Host HostURL `toml:"host" json:"host" default:"http://127.0.0.1:11434"`
	// URL is the openai provider's base URL, to which /chat/completions,
	// /models and /embeddings are appended.
	URL            HostURL       `toml:"url" json:"url,omitzero"`
	Name           string        `toml:"name" json:"name" default:"qwen3:8b"`
	NumCtx         int           `toml:"num_ctx" json:"num_ctx" default:"16384" min:"512" max:"1048576"`
	Temperature    float64       `toml:"temperature" json:"temperature" default:"0" min:"0" max:"2" why:"0 gives reproducible diagnoses"`
	RequestTimeout time.Duration `toml:"request_timeout" json:"request_timeout" default:"180s" min:"1s" max:"1h"`
	Language       Language      `toml:"language" json:"language" default:"auto" enum:"auto,zh,en"`
	// Think is sent explicitly on every request (nil would enable thinking).
	Think bool `toml:"think" json:"think" default:"false"`
	// APIKeyEnv names the variable holding the openai provider's key.
	APIKeyEnv string `toml:"api_key_env" json:"api_key_env" default:"OPENAI_API_KEY"`
	// Stream selects SSE streaming for the openai provider.
	Stream bool `toml:"stream" json:"stream" default:"true"`
	// Structured is how the openai provider asks for JSON answers.
	Structured string `toml:"structured" json:"structured" default:"json_schema" enum:"json_schema,json_object,none"`
	// APIKey is the key read from $APIKeyEnv at load ("" when unset); it prints redacted.
	APIKey Secret `json:"-"`
}

// Endpoint is the chosen provider's server URL as messages show it
// (password masked): model.url for openai, model.host for ollama.
func (m Model) Endpoint() string {
	if m.Provider == ProviderOpenAI {
		return m.URL.Redacted()
	}
	return m.Host.Redacted()
}

// Budget bounds one run; the harness enforces it. Declared in
// pkg/runrecord, the public vocabulary, so the Go API names no internal type.
type Budget = runrecord.Budget

// Limits are the UTF-8 byte bounds of the texts that enter or leave a run
// (agent.Limits); declared in pkg/runrecord for the same reason.
type Limits = runrecord.Limits

// Knowledge lists the runbook directories lookup_knowledge indexes.
type Knowledge struct {
	// Paths are absolute directories (relative ones resolved at load).
	Paths []string `toml:"paths" json:"paths" default:"./runbooks"`
	// EmbedModel is the Ollama embedding model (on model.host) that makes
	// runbook search semantic; empty leaves search BM25 only.
	EmbedModel string `toml:"embed_model" json:"embed_model,omitempty" default:""`
}

// LogSource is one [[logs]] entry: files query_logs may read under one name.
type LogSource struct {
	Name string `toml:"name" json:"name"`
	// Paths are absolute glob patterns.
	Paths  []string  `toml:"paths" json:"paths"`
	Format LogFormat `toml:"format" json:"format" default:"auto" enum:"json,logfmt,text,auto,custom"`
	// Pattern is format custom's regular expression (internal/loglayout): named
	// groups ts and msg, optionally level and service, others become fields.
	Pattern string `toml:"pattern" json:"pattern,omitempty"`
	// TimeLayout reads the ts group: a Go layout, strftime (holds '%') or
	// unix, unix_ms, unix_us, unix_ns.
	TimeLayout string `toml:"time_layout" json:"time_layout,omitempty"`
	// Sample is a line the layout must parse, checked at load.
	Sample string `toml:"sample" json:"sample,omitempty"`
	// Timezone is the zone name as written ("Local", "Asia/Shanghai").
	Timezone string `toml:"timezone" json:"timezone" default:"Local"`
	// Location is Timezone loaded; it interprets timestamps without an offset.
	Location  *time.Location `json:"-"`
	MaxWindow time.Duration  `toml:"max_window" json:"max_window" default:"6h" min:"1m" max:"744h"`
}

// Database is one [[databases]] entry query_mysql or query_postgres may read.
type Database struct {
	Name   string `toml:"name" json:"name"`
	Driver Driver `toml:"driver" json:"driver" enum:"mysql,postgres,sqlite" required:"true"`
	// DSN redacts its password when printed; Reveal gives the real value.
	DSN     DSN           `toml:"dsn" json:"dsn"`
	MaxRows int           `toml:"max_rows" json:"max_rows" default:"50" min:"1" max:"100"`
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"5s" min:"100ms" max:"10m"`
}

// MetricsSource is one [[metrics]] entry: a Prometheus-compatible server
// (Prometheus, VictoriaMetrics, Thanos, Mimir) query_metrics may query. Its
// secret is named by an environment variable, never written in the file.
type MetricsSource struct {
	Name string `toml:"name" json:"name"`
	// URL is the HTTP API base: scheme, host, port and an optional path
	// prefix; /api/v1/... is appended.
	URL     string        `toml:"url" json:"url"`
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"100ms" max:"5m"`
	HTTPAuth
	MaxSeries int           `toml:"max_series" json:"max_series" default:"10" min:"1" max:"100"`
	MaxPoints int           `toml:"max_points" json:"max_points" default:"240" min:"10" max:"11000"`
	MaxWindow time.Duration `toml:"max_window" json:"max_window" default:"24h" min:"1m" max:"744h"`
	// Secret is the token or password read from the environment at load
	// ("" when the variable is unset); it prints redacted.
	Secret Secret `json:"-"`
}

// Secret is a credential read from the environment: every printed or
// encoded form is redacted; Reveal gives the value to the one place that sends it.
type Secret struct{ v string }

// NewSecret wraps a credential.
func NewSecret(v string) Secret { return Secret{v: v} }

// Reveal returns the credential, for the request that carries it.
func (s Secret) Reveal() string { return s.v }

// IsZero reports an unset credential.
func (s Secret) IsZero() bool { return s.v == "" }

// String shows the redacted mark, never the value.
func (s Secret) String() string {
	if s.v == "" {
		return ""
	}
	return redactedMark
}

// GoString keeps %#v from showing the value.
func (s Secret) GoString() string { return "config.Secret(" + strconv.Quote(s.String()) + ")" }

// MarshalJSON encodes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// Skills lists extra playbook directories (<name>/SKILL.md) beside the built-in ones.
type Skills struct {
	Paths []string `toml:"paths" json:"paths"`
}

// Alerts is the [alerts] table: the Alertmanager (API v2) whose firing
// alerts `superbiz alerts` lists and `diagnose --alert` starts from. No URL,
// no alerts. Secrets are never in the file: the keys name the environment
// variables that hold them.
type Alerts struct {
	// URL is Alertmanager's base URL, e.g. "http://127.0.0.1:9093" (no credentials in it).
	URL string `toml:"url" json:"url"`
	HTTPAuth
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"100ms" max:"5m"`
}

// HTTPAuth is the credentials of an HTTP source ([alerts], [[metrics]]),
// declared, checked and described once: at most one of a bearer token or
// basic authentication, each secret named by an environment variable, never
// written in the file. Its keys sit in the embedding table.
type HTTPAuth struct {
	// BearerTokenEnv names the variable holding a bearer token.
	BearerTokenEnv string `toml:"bearer_token_env" json:"bearer_token_env"`
	// Username and PasswordEnv (the variable holding the password) are basic authentication.
	Username    string `toml:"username" json:"username"`
	PasswordEnv string `toml:"password_env" json:"password_env"`
}

// Origin reports where the value of key (e.g. "model.name") came from when a
// flag or the environment set it ("--model", "$SUPERBIZ_MODEL"); "" otherwise.
func (c *Config) Origin(key string) string {
	return c.origins[key]
}

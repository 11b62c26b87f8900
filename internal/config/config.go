// Package config loads superbiz's strict TOML configuration (docs/SPEC.md#configuration):
// it finds the file (--config, $SUPERBIZ_CONFIG, ./superbiz.toml,
// $XDG_CONFIG_HOME/superbiz/config.toml), rejects unknown keys, validates every
// duration, enum and limit with a message naming the key and the file, applies
// the precedence flag > environment > file > default, and resolves relative
// paths against the file's directory. Secrets (DSN and URL passwords) live in
// dedicated types that redact themselves everywhere they can be printed.
package config

import (
	"reflect"
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Language selects the prompts' language; auto picks it from the query's script.
type Language string

// The languages the prompts exist in.
const (
	LanguageAuto Language = "auto"
	LanguageZH   Language = "zh"
	LanguageEN   Language = "en"
)

// Config is the whole resolved configuration one superbiz process runs with:
// defaults, then the file, then the environment, then flags, already validated.
// Its fields and those of its tables are the schema (see schema.go): each key
// is declared once, with its default and bounds, in its struct tags.
type Config struct {
	// File is the configuration file that was read, "" when none was (defaults).
	File string `json:"file"`
	// DBPath is the run store's SQLite file (absolute).
	DBPath string `toml:"db" json:"db_path"`
	Model  Model  `toml:"model" json:"model"`
	Budget Budget `toml:"budget" json:"budget"`
	Limits Limits `toml:"limits" json:"limits"`
	// Now, when not zero, fixes the clock for reproducible runs ($SUPERBIZ_NOW).
	Now time.Time `json:"now,omitzero"`

	// fileKeys are the dotted keys the file set ("model.url"), so a key
	// that means nothing for the chosen provider can be reported.
	fileKeys map[string]bool

	// origins records where a value that did not come from the file or the
	// defaults came from ("--model", "$SUPERBIZ_MODEL"), for messages and Summary.
	origins map[string]string

	// parts are the integrations' shares of the configuration (LoadOptions.Parts),
	// which Validate and Summary run after config's own.
	parts []Part

	// tables hold the tables the parts declare (Part.Schema), by key, each
	// a value of its declared type; copied on write (SetTable), so a copy
	// of a Config never changes another's.
	tables map[string]any
}

// The model providers of model.provider.
const (
	ProviderOllama = "ollama"
	ProviderOpenAI = "openai"
)

// Model is how superbiz reaches and drives the model: an Ollama server, or
// any server that speaks OpenAI's Chat Completions wire. A key tagged
// provider:"x" means something for provider x only: Validate refuses it set
// for another, and the provider's URL key is the HostURL tagged with it.
type Model struct {
	// Provider picks the adapter: ollama (model.host) or openai (model.url).
	Provider string `toml:"provider" json:"provider" default:"ollama" enum:"ollama,openai"`
	// Host is the normalised Ollama URL (scheme and port always present).
	Host HostURL `toml:"host" json:"host" default:"http://127.0.0.1:11434" provider:"ollama"`
	// URL is the openai provider's base URL, to which /chat/completions,
	// /models and /embeddings are appended.
	URL            HostURL       `toml:"url" json:"url,omitzero" provider:"openai"`
	Name           string        `toml:"name" json:"name" default:"qwen3:8b"`
	NumCtx         int           `toml:"num_ctx" json:"num_ctx" default:"16384" min:"512" max:"1048576" provider:"ollama"`
	Temperature    float64       `toml:"temperature" json:"temperature" default:"0" min:"0" max:"2" why:"0 gives reproducible diagnoses"`
	RequestTimeout time.Duration `toml:"request_timeout" json:"request_timeout" default:"180s" min:"1s" max:"1h"`
	Language       Language      `toml:"language" json:"language" default:"auto" enum:"auto,zh,en"`
	// Think is sent explicitly on every request (nil would enable thinking).
	Think bool `toml:"think" json:"think" default:"false" provider:"ollama"`
	// APIKeyEnv names the variable holding the openai provider's key.
	APIKeyEnv string `toml:"api_key_env" json:"api_key_env" default:"OPENAI_API_KEY" provider:"openai"`
	// Stream selects SSE streaming for the openai provider.
	Stream bool `toml:"stream" json:"stream" default:"true" provider:"openai"`
	// Structured is how the openai provider asks for JSON answers.
	Structured string `toml:"structured" json:"structured" default:"json_schema" enum:"json_schema,json_object,none" provider:"openai"`
	// APIKey is the key the openai provider's part reads from $APIKeyEnv at
	// load ("" when unset); it prints redacted.
	APIKey Secret `json:"-"`
}

// Endpoint is the chosen provider's server URL as messages show it
// (password masked): the HostURL key tagged with the provider (model.url
// for openai, model.host for ollama).
func (m Model) Endpoint() string {
	url, _ := m.server()
	return url.Redacted()
}

// URLKey is the chosen provider's server URL key, "model.url" or
// "model.host", for messages naming where a URL came from.
func (m Model) URLKey() string {
	_, key := m.server()
	return "model." + key
}

// server is the HostURL tagged with the chosen provider and its key;
// model.host for a provider that tags none.
func (m Model) server() (HostURL, string) {
	v := reflect.ValueOf(m)
	for _, s := range specsOf(v.Type()) {
		if s.typ == hostType && s.provider == m.Provider {
			return v.FieldByIndex(s.index).Interface().(HostURL), s.key
		}
	}
	return m.Host, "host"
}

// Budget bounds one run; the harness enforces it. Declared in
// pkg/runrecord, the public vocabulary, so the Go API names no internal type.
type Budget = runrecord.Budget

// Limits are the UTF-8 byte bounds of the texts that enter or leave a run
// (agent.Limits); declared in pkg/runrecord for the same reason.
type Limits = runrecord.Limits

// Secret is a credential read from the environment that prints redacted,
// declared in pkg/redact.
type Secret = egress.Secret

// NewSecret wraps a credential (redact.NewSecret).
func NewSecret(v string) Secret { return egress.NewSecret(v) }

// HTTPAuth is the credentials of an HTTP source ([alerts], [[metrics]]),
// declared in pkg/tools with the other parts sources share.
type HTTPAuth = tools.HTTPAuth

// Origin reports where the value of key (e.g. "model.name") came from when a
// flag or the environment set it ("--model", "$SUPERBIZ_MODEL"); "" otherwise.
func (c *Config) Origin(key string) string {
	return c.origins[key]
}

// SetBy says what set key, by the precedence flag > environment > file:
// the flag or variable ("--host", "$OLLAMA_HOST"), the file's path when the
// file set it, or "" when the value is the default nobody chose. Doctor
// warns rather than fails about a default, and names who chose each value.
func (c *Config) SetBy(key string) string {
	if o := c.origins[key]; o != "" {
		return o
	}
	if c.fileKeys[key] {
		return c.File
	}
	return ""
}

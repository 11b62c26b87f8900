// Package config loads superbiz's strict TOML configuration (docs/SPEC.md#configuration):
// it finds the file (--config, $SUPERBIZ_CONFIG, ./superbiz.toml,
// $XDG_CONFIG_HOME/superbiz/config.toml), rejects unknown keys, validates every
// duration, enum and limit with a message naming the key and the file, applies
// the precedence flag > environment > file > default, and resolves relative
// paths against the file's directory. Secrets (DSN and URL passwords) live in
// dedicated types that redact themselves everywhere they can be printed.
package config

import (
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
)

// Driver names the database engine behind a query_mysql source.
type Driver string

// The database engines query_mysql can read.
const (
	DriverMySQL  Driver = "mysql"
	DriverSQLite Driver = "sqlite"
)

// Config is the whole resolved configuration one superbiz process runs with:
// defaults, then the file, then the environment, then flags, already validated.
type Config struct {
	// File is the configuration file that was read, "" when none was (defaults).
	File string `json:"file"`
	// DBPath is the run store's SQLite file (absolute).
	DBPath    string      `json:"db_path"`
	Model     Model       `json:"model"`
	Budget    Budget      `json:"budget"`
	Limits    Limits      `json:"limits"`
	Knowledge Knowledge   `json:"knowledge"`
	Logs      []LogSource `json:"logs"`
	Databases []Database  `json:"databases"`
	Skills    Skills      `json:"skills"`
	// Now, when not zero, fixes the clock for reproducible runs ($SUPERBIZ_NOW).
	Now time.Time `json:"now,omitzero"`

	// origins records where a value that did not come from the file or the
	// defaults came from ("--model", "$SUPERBIZ_MODEL"), for messages and Summary.
	origins map[string]string
}

// Model is how superbiz reaches and drives the Ollama model.
type Model struct {
	// Host is the normalised Ollama URL (scheme and port always present).
	Host           HostURL       `json:"host"`
	Name           string        `json:"name"`
	NumCtx         int           `json:"num_ctx"`
	Temperature    float64       `json:"temperature"`
	RequestTimeout time.Duration `json:"request_timeout"`
	Language       Language      `json:"language"`
	// Think is sent explicitly on every request (nil would enable thinking).
	Think bool `json:"think"`
}

// Budget bounds one run; the harness enforces it.
type Budget struct {
	MaxModelCalls int           `json:"max_model_calls"`
	MaxToolCalls  int           `json:"max_tool_calls"`
	MaxTokens     int           `json:"max_tokens"`
	MaxRunBytes   int           `json:"max_run_bytes"`
	Deadline      time.Duration `json:"deadline"`
	// MaxNoGain is how many consecutive NO_GAIN evaluations force STOP_REQUIRED.
	MaxNoGain int `json:"max_no_gain"`
}

// Limits are the UTF-8 byte bounds of the texts that enter or leave a run.
type Limits struct {
	Query        int `json:"query"`
	PreviousTurn int `json:"previous_turn"`
	Input        int `json:"input"`
	Draft        int `json:"draft"`
	Observation  int `json:"observation"`
}

// Knowledge lists the runbook directories lookup_knowledge indexes.
type Knowledge struct {
	// Paths are absolute directories (relative ones resolved at load).
	Paths []string `json:"paths"`
}

// LogSource is one [[logs]] entry: files query_logs may read under one name.
type LogSource struct {
	Name string `json:"name"`
	// Paths are absolute glob patterns.
	Paths  []string  `json:"paths"`
	Format LogFormat `json:"format"`
	// Timezone is the zone name as written ("Local", "Asia/Shanghai").
	Timezone string `json:"timezone"`
	// Location is Timezone loaded; it interprets timestamps without an offset.
	Location  *time.Location `json:"-"`
	MaxWindow time.Duration  `json:"max_window"`
}

// Database is one [[databases]] entry query_mysql may read.
type Database struct {
	Name   string `json:"name"`
	Driver Driver `json:"driver"`
	// DSN redacts its password when printed; Reveal gives the real value.
	DSN     DSN           `json:"dsn"`
	MaxRows int           `json:"max_rows"`
	Timeout time.Duration `json:"timeout"`
}

// Skills lists extra playbook directories (<name>/SKILL.md) beside the built-in ones.
type Skills struct {
	Paths []string `json:"paths"`
}

// Defaults of docs/SPEC.md#keys, named so tests, docs and Summary agree on them.
const (
	DefaultHost           = "http://127.0.0.1:11434"
	DefaultModel          = "qwen3:8b"
	DefaultNumCtx         = 16384
	DefaultRequestTimeout = 180 * time.Second
	DefaultMaxModelCalls  = 8
	DefaultMaxToolCalls   = 6
	DefaultMaxTokens      = 60000
	DefaultMaxRunBytes    = 262144
	DefaultDeadline       = 5 * time.Minute
	DefaultMaxNoGain      = 2
	DefaultLimitQuery     = 4096
	DefaultLimitPrevTurn  = 8192
	DefaultLimitInput     = 12288
	DefaultLimitDraft     = 16384
	DefaultLimitObs       = 8192
	DefaultKnowledgePath  = "./runbooks"
	DefaultLogTimezone    = "Local"
	DefaultLogMaxWindow   = 6 * time.Hour
	DefaultDBMaxRows      = 50
	DefaultDBTimeout      = 5 * time.Second
)

// Defaults returns the built-in configuration without the path-dependent parts
// (DBPath, Knowledge.Paths), so cmd can build a demo config from it.
func Defaults() Config {
	return Config{
		Model: Model{
			Host:           HostURL{raw: DefaultHost},
			Name:           DefaultModel,
			NumCtx:         DefaultNumCtx,
			Temperature:    0,
			RequestTimeout: DefaultRequestTimeout,
			Language:       LanguageAuto,
			Think:          false,
		},
		Budget: Budget{
			MaxModelCalls: DefaultMaxModelCalls,
			MaxToolCalls:  DefaultMaxToolCalls,
			MaxTokens:     DefaultMaxTokens,
			MaxRunBytes:   DefaultMaxRunBytes,
			Deadline:      DefaultDeadline,
			MaxNoGain:     DefaultMaxNoGain,
		},
		Limits: Limits{
			Query:        DefaultLimitQuery,
			PreviousTurn: DefaultLimitPrevTurn,
			Input:        DefaultLimitInput,
			Draft:        DefaultLimitDraft,
			Observation:  DefaultLimitObs,
		},
	}
}

// Origin reports where the value of key (e.g. "model.name") came from when a
// flag or the environment set it ("--model", "$SUPERBIZ_MODEL"); "" otherwise.
func (c *Config) Origin(key string) string {
	return c.origins[key]
}

package logs

import (
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Format tells the log tool how to parse a source's lines; auto sniffs it.
type Format string

// The log line formats query_logs understands.
const (
	FormatJSON   Format = "json"
	FormatLogfmt Format = "logfmt"
	FormatText   Format = "text"
	FormatAuto   Format = "auto"
	// FormatCustom reads lines with the source's own pattern and time_layout.
	FormatCustom Format = "custom"
)

// Backend is where a source's entries are read.
type Backend string

// The backends a [[logs]] source reads.
const (
	// BackendFiles reads log files on this machine (paths, format, ...).
	BackendFiles Backend = "files"
	// BackendVictoriaLogs reads a VictoriaLogs server or cluster over
	// LogsQL (url, tenant, credentials, filter, level_field, service_field).
	BackendVictoriaLogs Backend = "victorialogs"
)

// The field names a VictoriaLogs source reads level and service from when
// it names none; the message and time are VictoriaLogs' own _msg and _time.
const (
	DefaultLevelField   = "level"
	DefaultServiceField = "service"
)

// Source is one [[logs]] entry: files query_logs may read under one name,
// or a VictoriaLogs store (Backend).
// Its tags give the table's keys, defaults and bounds (internal/config reads
// them; defaults.Of[Source]() holds the defaults).
type Source struct {
	Name string `toml:"name" json:"name"`
	// Paths are absolute glob patterns.
	Paths  []string `toml:"paths" json:"paths"`
	Format Format   `toml:"format" json:"format" default:"auto" enum:"json,logfmt,text,auto,custom"`
	// Pattern is format custom's regular expression: named groups ts and
	// msg, optionally level and service, others become fields.
	Pattern string `toml:"pattern" json:"pattern,omitempty"`
	// TimeLayout reads the ts group: a Go layout, strftime (holds '%') or
	// unix, unix_ms, unix_us, unix_ns.
	TimeLayout string `toml:"time_layout" json:"time_layout,omitempty"`
	// Service is the service of the source's entries that name none.
	Service string `toml:"service" json:"service,omitempty"`
	// Sample is a line the layout must parse, checked at load.
	Sample string `toml:"sample" json:"sample,omitempty"`
	// Timezone is the zone name as written ("Local", "Asia/Shanghai").
	Timezone string `toml:"timezone" json:"timezone" default:"Local"`
	// Location is Timezone loaded; it interprets timestamps without an offset.
	Location  *time.Location `json:"-"`
	MaxWindow time.Duration  `toml:"max_window" json:"max_window" default:"6h" min:"1m" max:"744h"`
	// Backend is files (the keys above) or victorialogs (the keys below).
	Backend Backend `toml:"backend" json:"backend" default:"files" enum:"files,victorialogs"`
	// URL is a VictoriaLogs single node or a cluster's select front end.
	URL string `toml:"url" json:"url,omitempty"`
	// Tenant is "AccountID:ProjectID" ("" for VictoriaLogs' default 0:0).
	Tenant string `toml:"tenant" json:"tenant,omitempty"`
	tools.HTTPAuth
	// Filter is a LogsQL stream filter scoping the source ({namespace="shop"}).
	Filter string `toml:"filter" json:"filter,omitempty"`
	// LevelField and ServiceField name the fields holding the level and
	// the service ("": DefaultLevelField, DefaultServiceField).
	LevelField   string `toml:"level_field" json:"level_field,omitempty"`
	ServiceField string `toml:"service_field" json:"service_field,omitempty"`
	// Secret is the token or password read from the environment at load
	// ("" when the variable is unset); it prints redacted.
	Secret egress.Secret `json:"-"`
}

// Auth describes a VictoriaLogs source's credentials without their value:
// their kind and the variable they come from, and whether it is set.
func (s Source) Auth() string {
	return s.Describe(func(env string) string {
		if s.Secret.IsZero() {
			return "$" + env + ", NOT SET"
		}
		return "$" + env
	})
}

// Fields are the level and service field names of a VictoriaLogs source,
// defaulted.
func (s Source) Fields() (level, service string) {
	level, service = s.LevelField, s.ServiceField
	if level == "" {
		level = DefaultLevelField
	}
	if service == "" {
		service = DefaultServiceField
	}
	return level, service
}

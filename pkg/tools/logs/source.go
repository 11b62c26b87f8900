package logs

import "time"

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

// Source is one [[logs]] entry: files query_logs may read under one name.
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
}

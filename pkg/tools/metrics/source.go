package metrics

import (
	"time"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// Source is one [[metrics]] entry: a Prometheus-compatible server
// (Prometheus, VictoriaMetrics, Thanos, Mimir) query_metrics may query. Its
// secret is named by an environment variable, never written in the file.
// Its tags give the table's keys, defaults and bounds (internal/config reads
// them; defaults.Of[Source]() holds the defaults).
type Source struct {
	Name string `toml:"name" json:"name"`
	// URL is the HTTP API base: scheme, host, port and an optional path
	// prefix; /api/v1/... is appended.
	URL     string        `toml:"url" json:"url"`
	Timeout time.Duration `toml:"timeout" json:"timeout" default:"10s" min:"100ms" max:"5m"`
	tools.HTTPAuth
	MaxSeries int           `toml:"max_series" json:"max_series" default:"10" min:"1" max:"100"`
	MaxPoints int           `toml:"max_points" json:"max_points" default:"240" min:"10" max:"11000"`
	MaxWindow time.Duration `toml:"max_window" json:"max_window" default:"24h" min:"1m" max:"744h"`
	// Secret is the token or password read from the environment at load
	// ("" when the variable is unset); it prints redacted.
	Secret egress.Secret `json:"-"`
}

// Auth describes a metrics source's credentials without their value: their
// kind and the variable they come from, and whether it is set.
func (s Source) Auth() string {
	return s.Describe(func(env string) string {
		if s.Secret.IsZero() {
			return "$" + env + ", NOT SET"
		}
		return "$" + env
	})
}

package timeline

import (
	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/timeline"
)

// Config is the [timeline] share of the configuration: the table (Table,
// handed to config by Schema: config has no field for it). Its entries'
// rules are their tags' (internal/timeline's Metric); it has no summary
// line.
func (Source) Config() config.Part {
	return config.Part{Table: table, Schema: Table{}, Example: example, Docs: keyDocs()}
}

// table is the key of the [timeline] table.
const table = "timeline"

// Table is the [timeline] table: the metrics `superbiz timeline` watches
// for shifts and spikes, each a [[timeline.metrics]] entry with a name, a
// PromQL query, optionally the service it measures and the [[metrics]]
// source to ask.
type Table struct {
	Metrics []timeline.Metric `toml:"metrics" json:"metrics"`
}

// Metrics are the configuration's [[timeline.metrics]] entries, as loaded.
func Metrics(cfg *config.Config) []timeline.Metric { return config.TableOf[Table](cfg, table).Metrics }

// example is the [timeline] table of the registry's tests.
const example = `[timeline]

[[timeline.metrics]]
name = "checkout p99 latency"
query = 'histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{service="checkout"}[5m])))'
`

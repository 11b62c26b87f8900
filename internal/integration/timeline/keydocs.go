package timeline

import "github.com/superbiz/superbiz/internal/config"

// keyDocs describe the table's keys in docs/SPEC.md's generated Keys table.
func keyDocs() map[string]config.KeyDoc {
	return map[string]config.KeyDoc{
		"timeline.metrics[].name":    {Default: "required", Accepted: "what the series measures, as the timeline names it (`checkout p99 latency`)"},
		"timeline.metrics[].query":   {Default: "required", Accepted: "the PromQL query whose series [`superbiz timeline`](#superbiz-timeline) watches for shifts and spikes"},
		"timeline.metrics[].service": {Accepted: "the service the series measures; unset, a series' `service` (else `job`) label"},
		"timeline.metrics[].source":  {Accepted: "the `[[metrics]]` source to ask; optional when only one is configured"},
	}
}

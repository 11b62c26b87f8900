package metrics

// InputDocs are docs/SPEC.md's rules of query_metrics's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"source":     "a configured metrics source; optional when only one is configured",
		"query":      "a PromQL expression; trimmed; at most 2048 bytes, valid UTF-8",
		"start, end": "RFC 3339, or `2006-01-02 15:04:05` in the local time zone of the machine running superbiz; both or neither",
		"since":      "a duration from `1m` to the source's `max_window`, back from the run's clock; instead of `start`/`end`",
		"step":       "the grid step, a duration in whole seconds, at least `1s`; default: the smallest whole-second step that keeps a series within the source's `max_points`; a step giving more points is refused. The summaries are never coarser than it (see `resolution`)",
		"values":     "also list each series' values on the step grid (`values`, below)",
	}
}

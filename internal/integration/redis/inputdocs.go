package redis

// InputDocs are docs/SPEC.md's rules of query_redis's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"source": "a configured redis source; optional when only one is configured",
		"view":   "one of `info`, `slowlog`, `latency`, `clients`, `memory`, `cluster`",
	}
}

package timeline

// InputDocs are docs/SPEC.md's rules of build_timeline's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"since":   "the window back from the run's clock, `5m` to `24h`; or `start` and `end`",
		"start":   "window start: RFC 3339 or `2006-01-02 15:04:05` in local time; needs `end`",
		"end":     "window end, same formats; the window is 5m to 24h",
		"service": "at most 128 bytes; narrow the logs detectors to this service",
	}
}

package logs

// InputDocs are docs/SPEC.md's rules of query_logs's input members beyond
// what its schema generates (internal/specref writes the table).
func (Source) InputDocs() map[string]string {
	return map[string]string{
		"source":     "a configured log source; optional when only one is configured",
		"service":    "at most 128 bytes; exact service name, case-insensitive",
		"level":      "`ERROR`, `WARN`, `INFO` or `DEBUG` (case-insensitive)",
		"contains":   "at most 256 bytes and 8 words; every word must appear, case-insensitive, anywhere in the entry: its first line or any continuation line, however many lines or MiB the entry spans; a line is searched whole up to its first 16 MiB (a long line's tail too, not only its 64 KiB head), and an entry whose word may lie past that is counted in `contains_cut`, never a silent negative",
		"start, end": "RFC 3339, or `2006-01-02 15:04:05` in the source's time zone; both or neither",
		"since":      "a duration `5m` to `24h`, back from the run's clock; instead of `start`/`end`",
		"limit":      "1–50, default 20: newest entries to return",
		"stats":      "`{\"field\": F, \"by\": G}`, `by` optional, each at most 64 bytes: summarise the number in field `F` of the matched entries, per value of `G` (a field, or `service` / `level`)",
		"histogram":  "a bucket length in whole minutes, `1m` to `1h`, giving at most 360 buckets over the window: count the matched entries per bucket",
	}
}

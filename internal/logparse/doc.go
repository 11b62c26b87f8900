// Package logparse reads log lines into records: the built-in line layouts
// (JSON lines, OpenTelemetry Collector batches, logfmt, syslog and the other
// text layouts) and format custom's own (internal/loglayout), per-file
// layout detection, timestamps with and without zone or year, byte order
// marks and UTF-16, and the message templates matches are grouped by. It
// knows nothing of tools, observations or the harness: query_logs
// (pkg/tools/logs) scans files and windows with it.
package logparse

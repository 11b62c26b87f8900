package logparse

// NormLevel maps a level as a log store keeps it ("error", "Warning",
// "30") to ERROR, WARN, INFO or DEBUG as the layouts read it from files,
// "" when it is no level: query_logs over VictoriaLogs reads levels alike.
func NormLevel(s string) string { return normLevel([]byte(s)) }

package promtest

import (
	"testing"
	"time"
)

// HighLatencyRule is a rule file with one alerting rule, HighLatency
// (demo_latency_seconds{job="app"} > 1, severity page): the rule the alert
// tests read back from /api/v1/rules, declared once.
const HighLatencyRule = "groups:\n  - name: app\n    rules:\n      - alert: HighLatency\n        expr: demo_latency_seconds{job=\"app\"} > 1\n        labels: {severity: page}\n"

// FiringRuleAlert starts a Prometheus holding HighLatencyRule and an
// Alertmanager with one HighLatency alert (service checkout) firing since
// start, posted without a generatorURL as vmalert or a relay sends it, so
// the alert's rule can only be found in Prometheus' rules.
func FiringRuleAlert(t testing.TB, start time.Time) (*Server, *Alertmanager) {
	t.Helper()
	prom := LivePrometheus(t, LiveOptions{Rules: HighLatencyRule})
	am := StartAlertmanager(t)
	am.Post(t, Alert{Labels: map[string]string{"alertname": "HighLatency", "severity": "page", "service": "checkout"}, StartsAt: start})
	am.WaitFiring(t, 1)
	return prom, am
}

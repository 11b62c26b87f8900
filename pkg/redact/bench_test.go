package redact

import (
	"strings"
	"testing"
)

// benchInput builds about 8 KiB of log lines; withSecrets plants a few secrets.
func benchInput(withSecrets bool) string {
	var b strings.Builder
	for i := 0; b.Len() < 8<<10; i++ {
		b.WriteString(`{"ts":"2026-11-28T14:03:11Z","level":"INFO","service":"order-service","msg":"order created","order_id":"ORD-000042","trace_id":"a1b2c3d4e5f60718","duration_ms":12}` + "\n")
		if withSecrets && i%10 == 0 {
			b.WriteString("ts=2026-11-28T14:03:11Z level=warn msg=\"retry\" dsn=app:pw123@tcp(db:3306)/orders password=hunter2 Authorization: Bearer abcdef0123456789\n")
		}
	}
	return b.String()
}

func BenchmarkString8KiBClean(b *testing.B) {
	s := benchInput(false)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

func BenchmarkString8KiBSecrets(b *testing.B) {
	s := benchInput(true)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

// BenchmarkJSONModelRound redacts a recorded request of about 16 KiB: a
// conversation whose tool messages hold observations as JSON in strings.
func BenchmarkJSONModelRound(b *testing.B) {
	var msgs []string
	for i := 0; len(strings.Join(msgs, ",")) < 16<<10; i++ {
		obs := `{\"tool_call_id\":\"call_` + strings.Repeat("7", 8) + `\",\"evidence_status\":\"EVIDENCE_FOUND\",\"result\":{\"rows\":[[\"2026-11-28 14:03:11\",\"order-service\",\"pool exhausted, password=hunter2\"]]}}`
		msgs = append(msgs, `{"role":"assistant","content":"","tool_calls":[{"id":"call_1","name":"query_mysql","arguments":{"input":{"sql":"SELECT ts, msg FROM events WHERE ts >= '2026-11-28 14:00:00' LIMIT 5"}}}]}`,
			`{"role":"tool","content":"`+obs+`","tool_call_id":"call_1"}`)
	}
	doc := []byte(`{"messages":[` + strings.Join(msgs, ",") + `]}`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := JSON(doc); err != nil {
			b.Fatal(err)
		}
	}
}

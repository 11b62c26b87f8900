package logparse

import (
	"testing"
	"time"
)

// BenchmarkParseJSONLine: the JSON fast path on the lines of benchFile, the
// per-line cost every other layout must leave alone.
func BenchmarkParseJSONLine(b *testing.B) {
	lines := [][]byte{
		[]byte(`{"ts":"2026-03-14T13:00:00.123Z","level":"info","service":"order","msg":"request completed","path":"/api/orders/123457","trace_id":"1a2b3c4d5e","host":"app-3.prod.internal"}`),
		[]byte(`{"ts":"2026-03-14T13:00:00.125Z","level":"error","service":"order","msg":"Deadlock found when trying to get lock; try restarting transaction","order_id":4242,"trace_id":"1a2b3c4d5f","host":"app-4.prod.internal"}`),
	}
	tc := TimeCtx{Loc: time.UTC, Year: 2026}
	var r Record
	l := LayoutByName(LayoutJSON)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if l.ParseLine(lines[i&1], &tc, &r) != LineTimed {
			b.Fatal("not timed")
		}
	}
}

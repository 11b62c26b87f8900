package logparse

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOTLPBatchLines: what a batch line is to the entry structure, and
// the AnyValue spellings of its first record.
func TestOTLPBatchLines(t *testing.T) {
	at := base.Add(10 * time.Minute).UnixNano()
	ts := fmt.Sprint(at)
	cases := []struct {
		name, line string
		kind       LineKind
		ts         int64
		level, msg string
	}{
		{"observed time when time is 0", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"0","observedTimeUnixNano":"` + ts + `","severityText":"Warning","body":{"intValue":"42"}}]}]}]}`, LineTimed, at, "WARN", "42"},
		{"enum name", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":` + ts + `,"severityNumber":"SEVERITY_NUMBER_ERROR2","body":{"boolValue":true}}]}]}]}`, LineTimed, at, "ERROR", "true"},
		{"trace numbers", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","severityNumber":3,"body":{"stringValue":"a\"b"}}]}]}]}`, LineTimed, at, "DEBUG", `a"b`},
		{"no time", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":9,"body":{"stringValue":"x"}}]}]}]}`, LineUntimed, 0, "INFO", "x"},
		{"empty batch", `{"resourceLogs":[]}`, LineUntimed, 0, "", ""},
		{"deep kvlist", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","body":{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[]}}]}}]}}]}}]}}]}}]}}}]}]}]}`, LineTimed, at, "", `[[[[["…"]]]]]`},
		{"one record per line", `{"timeUnixNano":"` + ts + `","body":{"stringValue":"x"}}`, LineCont, 0, "", ""},
		{"truncated", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","body`, LineCont, 0, "", ""},
	}
	l := LayoutByName(LayoutOTLPBatch)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc := TimeCtx{Loc: time.UTC, Year: 2026}
			var r Record
			kind := l.ParseLine([]byte(c.line), &tc, &r)
			if kind != c.kind || r.TS != c.ts || r.Level != c.level || string(r.Msg) != c.msg {
				t.Fatalf("kind %d ts %d level %q msg %q, want %d %d %q %q", kind, r.TS, r.Level, r.Msg, c.kind, c.ts, c.level, c.msg)
			}
		})
	}
}

// BenchmarkOTLPBatchLine: the per-record cost of a collector batch line
// (the fixture's second line: two resources, three records, a kvlist body).
func BenchmarkOTLPBatchLine(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(formatsDir, "otlp_collector.json"))
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(strings.Split(string(data), "\n")[1])
	tc := TimeCtx{Loc: time.UTC, Year: 2026}
	var r Record
	n := 0
	count := func(LineKind, *Record, []byte, []byte) { n++ }
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	for range b.N {
		eachOTLPBatch(line, &tc, &r, count)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}

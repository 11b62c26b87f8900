package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/redact"
)

// TestOTLPBatchRecords: every record of a collector batch line is its own
// entry with its own time, level (severityText, else severityNumber),
// service (its resource's service.name), message (a kvlist body as JSON) and
// fields (attributes masked by secret key names, trace_id, span_id); contains
// is judged per record.
func TestOTLPBatchRecords(t *testing.T) {
	p := copyFixture(t, t.TempDir(), "otlp_collector.json")
	tool := newTool(t, config.LogSource{Name: "app", Paths: []string{p}})
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	_, res := run(t, tool, "{"+window+"}", now, 1<<20)
	byMsg := map[string]Entry{}
	for _, e := range res.Entries {
		byMsg[e.Message] = e
	}
	charge, ok := byMsg["charge failed: card declined"]
	if !ok || charge.Level != "ERROR" || charge.Service != "checkout" || charge.TS != "2026-03-14T14:11:07.123Z" {
		t.Fatalf("charge record: %+v in %+v", charge, res.Entries)
	}
	leaked := strings.Count(fmt.Sprint(res), "hunter2")
	reliability.Record(t, reliability.SectionSecrets, "query_logs: OTLP record attribute named like a secret", map[string]any{"planted": 1, "leaked": leaked})
	if charge.Fields["db.password"] != redact.Marker || leaked != 0 {
		t.Fatalf("secret attribute not masked: %+v", charge.Fields)
	}
	if charge.Fields["http.route"] != "/api/charge" || charge.Fields["retry.count"] != "0" ||
		charge.Fields["trace_id"] != "5b8efff798038103d269b633813fc60c" || charge.Fields["span_id"] != "eee19b7ec3c1b174" {
		t.Fatalf("fields: %+v", charge.Fields)
	}
	retry, ok := byMsg[`{"event":"retrying payment provider call","attempt":2,"backoff":[0.5,1.5]}`]
	if !ok || retry.Level != "WARN" || retry.Service != "checkout" {
		t.Fatalf("kvlist body record (severityNumber 13 only): %+v", res.Entries)
	}
	if e := byMsg["payment provider unreachable"]; e.Level != "ERROR" {
		t.Fatalf("severityNumber 21 only: %+v", e)
	}
	if e := byMsg["GET /api/cart 200"]; e.Service != "frontend" {
		t.Fatalf("second resource of the line: %+v", e)
	}
	// the word is in one record of a line of three: only that one matches
	_, res = run(t, tool, "{"+window+`,"contains":"declined"}`, now, 1<<20)
	if res.Matched != 1 || res.Entries[0].Message != "charge failed: card declined" {
		t.Fatalf("contains per record: %+v", res)
	}
	// a resource attribute matches every record of that resource
	_, res = run(t, tool, "{"+window+`,"contains":"frontend"}`, now, 1<<20)
	if res.Matched != 2 {
		t.Fatalf("contains on the resource: matched %d: %+v", res.Matched, res.Entries)
	}
}

// TestOTLPBatchCut: records past maxBatchRecords on one line are counted in
// cut_records, not searched, and the line's other records still are.
func TestOTLPBatchCut(t *testing.T) {
	const extra = 7
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bulk"}}]},"scopeLogs":[{"scope":{},"logRecords":[`)
	for i := range maxBatchRecords + extra {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"timeUnixNano":"%d","severityNumber":17,"body":{"stringValue":"r%d"}}`, base.Add(10*time.Minute).UnixNano()+int64(i), i)
	}
	b.WriteString("]}]}]}\n")
	p := filepath.Join(t.TempDir(), "bulk.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := newTool(t, config.LogSource{Name: "app", Paths: []string{p}})
	_, res := run(t, tool, `{"start":"2026-03-14T13:00:00Z","end":"2026-03-14T16:00:00Z","level":"ERROR","service":"bulk"}`, base.Add(3*time.Hour), 1<<20)
	if res.Matched != maxBatchRecords || res.CutRecords != extra {
		t.Fatalf("matched %d cut %d, want %d and %d", res.Matched, res.CutRecords, maxBatchRecords, extra)
	}
	reliability.Record(t, reliability.SectionBombs, "otlp_batch line of 10007 records", map[string]any{
		"line_bytes": b.Len(), "matched": res.Matched, "cut_records": res.CutRecords})
}

// TestOTLPBatchLines: what a batch line is to the entry structure, and
// the AnyValue spellings of its first record.
func TestOTLPBatchLines(t *testing.T) {
	at := base.Add(10 * time.Minute).UnixNano()
	ts := fmt.Sprint(at)
	cases := []struct {
		name, line string
		kind       lineKind
		ts         int64
		level, msg string
	}{
		{"observed time when time is 0", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"0","observedTimeUnixNano":"` + ts + `","severityText":"Warning","body":{"intValue":"42"}}]}]}]}`, lineTimed, at, "WARN", "42"},
		{"enum name", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":` + ts + `,"severityNumber":"SEVERITY_NUMBER_ERROR2","body":{"boolValue":true}}]}]}]}`, lineTimed, at, "ERROR", "true"},
		{"trace numbers", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","severityNumber":3,"body":{"stringValue":"a\"b"}}]}]}]}`, lineTimed, at, "DEBUG", `a"b`},
		{"no time", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":9,"body":{"stringValue":"x"}}]}]}]}`, lineUntimed, 0, "INFO", "x"},
		{"empty batch", `{"resourceLogs":[]}`, lineUntimed, 0, "", ""},
		{"deep kvlist", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","body":{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[{"arrayValue":{"values":[]}}]}}]}}]}}]}}]}}]}}}]}]}]}`, lineTimed, at, "", `[[[[["…"]]]]]`},
		{"one record per line", `{"timeUnixNano":"` + ts + `","body":{"stringValue":"x"}}`, lineCont, 0, "", ""},
		{"truncated", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"` + ts + `","body`, lineCont, 0, "", ""},
	}
	l := layoutByName(layoutOTLPBatch)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc := timeCtx{loc: time.UTC, year: 2026}
			var r record
			kind := l.parseLine([]byte(c.line), &tc, &r)
			if kind != c.kind || r.ts != c.ts || r.level != c.level || string(r.msg) != c.msg {
				t.Fatalf("kind %d ts %d level %q msg %q, want %d %d %q %q", kind, r.ts, r.level, r.msg, c.kind, c.ts, c.level, c.msg)
			}
		})
	}
}

// BenchmarkOTLPBatchLine: the per-record cost of a collector batch line
// (the fixture's second line: two resources, three records, a kvlist body).
func BenchmarkOTLPBatchLine(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "formats", "otlp_collector.json"))
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(strings.Split(string(data), "\n")[1])
	tc := timeCtx{loc: time.UTC, year: 2026}
	var r record
	n := 0
	count := func(lineKind, *record, []byte, []byte) { n++ }
	b.SetBytes(int64(len(line)))
	b.ResetTimer()
	for range b.N {
		eachOTLPBatch(line, &tc, &r, count)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/record")
}

// TestOTLPBatchInspect: logs inspect shows every record of a batch line as
// its own entry, as query_logs returns them, and the range spans them all.
func TestOTLPBatchInspect(t *testing.T) {
	p := copyFixture(t, t.TempDir(), "otlp_collector.json")
	in, err := Inspect(context.Background(), config.LogSource{Name: "app", Paths: []string{p}}, InspectOptions{Entries: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Reports) != 1 || in.Reports[0].Layout != layoutOTLPBatch || in.Reports[0].LastTS != "2026-03-14T15:00:00.123Z" {
		t.Fatalf("reports %+v", in.Reports)
	}
	var got []string
	for _, e := range in.Entries {
		got = append(got, e.Service+" "+e.Message)
	}
	want := []string{"checkout cart loaded", "checkout charge failed: card declined", "frontend GET /api/cart 200",
		`checkout {"event":"retrying payment provider call","attempt":2,"backoff":[0.5,1.5]}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("entries %q, want %q", got, want)
	}
}

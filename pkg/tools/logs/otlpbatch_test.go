package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/egress"
)

// TestOTLPBatchRecords: every record of a collector batch line is its own
// entry with its own time, level (severityText, else severityNumber),
// service (its resource's service.name), message (a kvlist body as JSON) and
// fields (attributes masked by secret key names, trace_id, span_id); contains
// is judged per record.
func TestOTLPBatchRecords(t *testing.T) {
	p := copyFixture(t, t.TempDir(), "otlp_collector.json")
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
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
	if charge.Fields["db.password"] != egress.Marker || leaked != 0 {
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

// TestOTLPBatchCut: records past MaxBatchRecords on one line are counted in
// cut_records, not searched, and the line's other records still are.
func TestOTLPBatchCut(t *testing.T) {
	const extra = 7
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bulk"}}]},"scopeLogs":[{"scope":{},"logRecords":[`)
	for i := range logparse.MaxBatchRecords + extra {
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
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
	_, res := run(t, tool, `{"start":"2026-03-14T13:00:00Z","end":"2026-03-14T16:00:00Z","level":"ERROR","service":"bulk"}`, base.Add(3*time.Hour), 1<<20)
	if res.Matched != logparse.MaxBatchRecords || res.CutRecords != extra {
		t.Fatalf("matched %d cut %d, want %d and %d", res.Matched, res.CutRecords, logparse.MaxBatchRecords, extra)
	}
	reliability.Record(t, reliability.SectionBombs, "otlp_batch line of 10007 records", map[string]any{
		"line_bytes": b.Len(), "matched": res.Matched, "cut_records": res.CutRecords})
}

// TestOTLPBatchInspect: logs inspect shows every record of a batch line as
// its own entry, as query_logs returns them, and the range spans them all.
func TestOTLPBatchInspect(t *testing.T) {
	p := copyFixture(t, t.TempDir(), "otlp_collector.json")
	in, err := Inspect(context.Background(), Source{Name: "app", Paths: []string{p}}, InspectOptions{Entries: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Reports) != 1 || in.Reports[0].Layout != logparse.LayoutOTLPBatch || in.Reports[0].LastTS != "2026-03-14T15:00:00.123Z" {
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

// TestOTLPBatchLongLine: a collector line longer than a batch line's head
// (10^5 records) is not skipped as untimed: its first MaxBatchRecords
// records are searched, the further records of its head counted in
// cut_records, and the line in long_lines.
func TestOTLPBatchLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"bulk"}}]},"scopeLogs":[{"scope":{},"logRecords":[`)
	const records = 120000
	for i := range records {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"timeUnixNano":"%d","severityNumber":17,"body":{"stringValue":"r%d padding padding padding padding padding padding padding padding padding padding padding"}}`, base.Add(10*time.Minute).UnixNano()+int64(i), i)
	}
	b.WriteString("]}]}]}\n")
	if b.Len() <= logparse.MaxBatchLineBytes {
		t.Fatalf("line of %d bytes is within the batch head", b.Len())
	}
	p := filepath.Join(t.TempDir(), "bulk.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
	_, res := run(t, tool, `{"start":"2026-03-14T13:00:00Z","end":"2026-03-14T16:00:00Z","level":"ERROR","service":"bulk"}`, base.Add(3*time.Hour), 1<<20)
	if res.Matched != logparse.MaxBatchRecords || res.LongLines != 1 || res.CutRecords <= 0 || res.CutRecords >= records-logparse.MaxBatchRecords {
		t.Fatalf("matched %d long_lines %d cut %d", res.Matched, res.LongLines, res.CutRecords)
	}
}

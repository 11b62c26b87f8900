package logs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// fixtureMtime is the last write of every fixture: stamps without a year
// (syslog, glog, logcat, Proxifier) take the year of the file's mtime.
var fixtureMtime = base.Add(26 * time.Hour)

// copyFixture copies the shared testdata/logs/formats/name (top level) into dir with the fixture mtime.
func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "logs", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fixtureMtime, fixtureMtime); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every fixture holds one line before the window 14:00-14:30, five entries
// in it (two of them ERROR in that layout's spelling, three of one service)
// and one after it; logcat has one more ERROR line in the window. The lines
// of a header before the first entry (glog's, a banner) are unparsed.
func TestLayoutFixtures(t *testing.T) {
	cases := []struct {
		file, layout string
		total, errs  int
		service      string // "" when the layout has no service
		svcCount     int
		unparsed     int // header lines
	}{
		{"syslog3164.log", logparse.LayoutSyslog, 5, 2, "sshd", 3, 0},
		{"syslog5424.log", logparse.LayoutSyslog, 5, 2, "sshd", 3, 0},
		{"journald.json", logparse.LayoutJSON, 5, 2, "nginx", 3, 0},
		{"otlp.json", logparse.LayoutJSON, 5, 2, "checkout", 3, 0},
		{"otlp_collector.json", logparse.LayoutOTLPBatch, 5, 2, "checkout", 3, 0},
		{"ecs.json", logparse.LayoutJSON, 5, 2, "cart", 3, 0},
		{"log4j2.json", logparse.LayoutJSON, 5, 2, "", 0, 0},
		{"epoch.json", logparse.LayoutJSON, 5, 2, "api", 3, 0},
		{"cloudflare.json", logparse.LayoutJSON, 5, 2, "", 0, 0},
		{"log4j_dash.log", logparse.LayoutText, 5, 2, "", 0, 0},
		{"python.log", logparse.LayoutText, 5, 2, "", 0, 0},
		{"logcat.log", logparse.LayoutLogcat, 6, 3, "", 0, 0},
		{"apache_error.log", logparse.LayoutApacheErr, 5, 2, "", 0, 0},
		{"nginx_error.log", logparse.LayoutText, 5, 2, "", 0, 0},
		{"access.log", logparse.LayoutAccess, 5, 2, "", 0, 0},
		{"access_common.log", logparse.LayoutAccess, 5, 2, "", 0, 0},
		{"glog.log", logparse.LayoutGlog, 5, 2, "", 0, 4},
		{"cbs.log", logparse.LayoutCBS, 5, 2, "", 0, 0},
		{"hdfs.log", logparse.LayoutHDFS, 5, 2, "", 0, 0},
		{"spark.log", logparse.LayoutSpark, 5, 2, "", 0, 0},
		{"healthapp.log", logparse.LayoutCompact, 5, 2, "", 0, 0},
		{"proxifier.log", logparse.LayoutMonthDay, 5, 2, "", 0, 0},
		{"bgl.log", logparse.LayoutRAS, 5, 2, "", 0, 0},
		{"thunderbird.log", logparse.LayoutRAS, 5, 2, "kernel", 3, 0},
		{"hpc.log", logparse.LayoutHPC, 5, 2, "", 0, 0},
		{"openstack.log", logparse.LayoutFileDated, 5, 2, "", 0, 0},
		{"header_bom_crlf.log", logparse.LayoutText, 5, 2, "", 0, 41},
	}
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := copyFixture(t, t.TempDir(), c.file)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			tc := logparse.TimeCtx{Loc: time.UTC}
			tc.SetRef(fixtureMtime.UnixNano())
			sc := &scanner{ctx: context.Background()}
			l, ok := logparse.DetectLayout(sc.sampleLines(bytes.TrimPrefix(data, logparse.UTF8BOM), 0), &tc, logparse.BuiltinLayouts(), nil)
			if !ok || l.Name != c.layout {
				t.Fatalf("detected %v (ok %v), want %s", l, ok, c.layout)
			}
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			_, res := run(t, tool, "{"+window+"}", now, 1<<20)
			if res.Matched != c.total || res.Unparsed != c.unparsed || res.SkippedCount != 0 {
				t.Fatalf("window: matched %d unparsed %d skipped %v, want %d and %d: %+v", res.Matched, res.Unparsed, res.SkippedFiles, c.total, c.unparsed, res.Entries)
			}
			_, res = run(t, tool, "{"+window+`,"level":"ERROR"}`, now, 1<<20)
			if res.Matched != c.errs {
				t.Fatalf("level=ERROR: matched %d, want %d: %+v", res.Matched, c.errs, res.Entries)
			}
			for _, e := range res.Entries {
				if e.Level != "ERROR" || e.TS >= "2026-03-14T14:30" {
					t.Fatalf("level=ERROR returned %+v", e)
				}
			}
			svc := c.service
			if svc == "" {
				// no entry names a service: a service filter is refused, never a silent 0
				refuseService(t, tool, "{"+window+`,"service":"nosuch"}`, now)
				return
			}
			_, res = run(t, tool, "{"+window+`,"service":"`+svc+`"}`, now, 1<<20)
			if res.Matched != c.svcCount {
				t.Fatalf("service=%s: matched %d, want %d: %+v", svc, res.Matched, c.svcCount, res.Entries)
			}
			for _, e := range res.Entries {
				if !strings.EqualFold(e.Service, svc) {
					t.Fatalf("service=%s returned %+v", svc, e)
				}
			}
		})
	}
}

// TestMultilineKeepsFrames: a stack trace stays one entry, and the message
// the model sees keeps its first frames even after a long first line; a
// Python traceback also keeps the exception line it ends with.
func TestMultilineKeepsFrames(t *testing.T) {
	long := strings.Repeat("x", 400)
	dir := t.TempDir()
	p := writeFile(t, dir, "a.log", "2026-03-14 14:01:00,000 - ERROR [main] - Request failed "+long+"\n"+
		"java.lang.IllegalStateException: pool closed\n"+
		"\tat com.shop.db.Pool.get(Pool.java:42)\n"+
		"\tat com.shop.orders.Repo.save(Repo.java:17)\n"+
		"\tat com.shop.orders.Service.place(Service.java:88)\n"+
		"2026-03-14 14:02:00,000:ERROR:billing:invoice failed\n"+
		"Traceback (most recent call last):\n"+
		"  File \"/srv/billing/worker.py\", line 88, in run\n"+
		"    self.charge(invoice)\n"+
		"  File \"/srv/billing/worker.py\", line 120, in charge "+long+"\n"+
		"    raise PaymentError(\"card declined\")\n"+
		"billing.errors.PaymentError: card declined\n"+
		"2026-03-14 14:03:00,000 - INFO [main] - next\n", false)
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
	_, res := run(t, tool, `{"since":"1h","level":"ERROR"}`, base.Add(30*time.Minute), 1<<20)
	if res.Matched != 2 {
		t.Fatalf("matched %d: %+v", res.Matched, res.Entries)
	}
	py, java := res.Entries[0].Message, res.Entries[1].Message
	for _, want := range []string{"Request failed", "java.lang.IllegalStateException: pool closed", "at com.shop.db.Pool.get(Pool.java:42)"} {
		if !strings.Contains(java, want) {
			t.Errorf("java message lacks %q: %q", want, java)
		}
	}
	for _, want := range []string{"invoice failed", "Traceback (most recent call last):", `File "/srv/billing/worker.py", line 88, in run`, "billing.errors.PaymentError: card declined"} {
		if !strings.Contains(py, want) {
			t.Errorf("python message lacks %q: %q", want, py)
		}
	}
	// a Go panic after a JSON line continues that entry
	p = writeFile(t, dir, "b.log", `{"ts":"2026-03-14T14:04:00Z","level":"error","msg":"handler crashed"}`+"\n"+
		"panic: runtime error: index out of range [3] with length 3\n\n"+
		"goroutine 1 [running]:\n"+
		"main.handle(...)\n\t/app/main.go:12 +0x1d\n", false)
	tool = newTool(t, Source{Name: "app", Paths: []string{p}})
	_, res = run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 1<<20)
	if res.Matched != 1 || res.Unparsed != 0 {
		t.Fatalf("go panic: %+v", res)
	}
	goMsg := res.Entries[0].Message
	for _, want := range []string{"handler crashed", "panic: runtime error: index out of range [3] with length 3", "goroutine 1 [running]:", "main.handle(...)", "/app/main.go:12 +0x1d"} {
		if !strings.Contains(goMsg, want) {
			t.Errorf("go message lacks %q: %q", want, goMsg)
		}
	}
	for _, m := range []string{java, py, goMsg} {
		if len(m) > maxChainMessage {
			t.Errorf("message of %d bytes exceeds %d", len(m), maxChainMessage)
		}
	}
}

// TestUTF16 reads a UTF-16 log (both byte orders, with BOM) like its UTF-8 text.
func TestUTF16(t *testing.T) {
	text := "\ufeff2026-03-14 14:01:00 ERROR [order] payment timeout é\r\n2026-03-14 14:02:00 INFO [pay] ok\r\n"
	for _, bigEndian := range []bool{false, true} {
		t.Run(fmt.Sprint("big endian ", bigEndian), func(t *testing.T) {
			var b bytes.Buffer
			for _, u := range utf16.Encode([]rune(text)) {
				if bigEndian {
					b.WriteByte(byte(u >> 8))
					b.WriteByte(byte(u))
				} else {
					b.WriteByte(byte(u))
					b.WriteByte(byte(u >> 8))
				}
			}
			p := writeFile(t, t.TempDir(), "w.log", b.String(), false)
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			_, res := run(t, tool, `{"since":"1h","level":"ERROR"}`, base.Add(30*time.Minute), 0)
			if res.Matched != 1 || res.Entries[0].Message != "payment timeout é" || res.Entries[0].Level != "ERROR" {
				t.Fatalf("%+v", res)
			}
		})
	}
}

// TestYearFromMtime: a syslog stamp without a year takes the year of the
// file's last write, or the year before when it would lie after it (a file
// written on 2 January holding 31 December lines).
func TestYearFromMtime(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "messages", "Dec 31 23:59:58 h cron[1]: error: last of the year\nJan  2 00:00:01 h cron[1]: error: first of the year\n", false)
	mtime := time.Date(2026, 1, 2, 0, 5, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	tool := newTool(t, Source{Name: "app", Paths: []string{p}, MaxWindow: 48 * time.Hour})
	// the window is in a later year than the file: the mtime decides
	_, res := run(t, tool, `{"start":"2025-12-31T23:00:00Z","end":"2026-01-02T01:00:00Z","service":"cron"}`, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), 0)
	if res.Matched != 2 || res.Entries[1].TS != "2025-12-31T23:59:58.000Z" || res.Entries[0].TS != "2026-01-02T00:00:01.000Z" {
		t.Fatalf("%+v", res)
	}
}

// TestLongHeader: more untimed lines than any head sample before the first
// timed one do not make the file unreadable; they are counted as unparsed,
// on the seek path and the linear path alike.
func TestLongHeader(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "banner line %d without a time\n", i)
	}
	b.WriteString("2026-03-14 14:01:00 ERROR [order] after the banner\n")
	p := writeFile(t, t.TempDir(), "a.log", b.String(), false)
	for _, noSeek := range []bool{false, true} {
		tool := newTool(t, Source{Name: "app", Paths: []string{p}})
		tool.noSeek = noSeek
		out, res := run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
		if out.Status != tools.EvidenceFound || res.Matched != 1 || res.SkippedCount != 0 || res.Unparsed != 5000 {
			t.Fatalf("noSeek %v: %s %+v", noSeek, out.Status, res)
		}
	}
}

// TestUTF8BOM: a UTF-8 byte order mark before the first (timed) line, plain
// (mapped) or gzip (streamed), does not hide that line.
func TestUTF8BOM(t *testing.T) {
	for _, gz := range []bool{false, true} {
		p := writeFile(t, t.TempDir(), "a.log", "\ufeff2026-03-14 14:01:00 ERROR [order] first line\r\n", gz)
		tool := newTool(t, Source{Name: "app", Paths: []string{p}})
		_, res := run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
		if res.Matched != 1 || res.Entries[0].Fields["component"] != "order" {
			t.Fatalf("gzip %v: %+v", gz, res)
		}
	}
}

// TestJSONSpellings: the members of journald, OTLP, ECS, log4j2 and
// Cloudflare records land in time, level, service and message.
func TestJSONSpellings(t *testing.T) {
	at := base.Add(90 * time.Second).UnixNano()
	cases := []struct {
		name, line      string
		ts              int64
		level, svc, msg string
	}{
		{"journald", `{"__REALTIME_TIMESTAMP":"1773496890000000","PRIORITY":"4","_SYSTEMD_UNIT":"nginx.service","SYSLOG_IDENTIFIER":"nginx","MESSAGE":"m"}`, at, "WARN", "nginx", "m"},
		{"journald unit only", `{"__REALTIME_TIMESTAMP":"1773496890000000","PRIORITY":"7","_SYSTEMD_UNIT":"cron.service","MESSAGE":"m"}`, at, "DEBUG", "cron.service", "m"},
		{"otlp", `{"timeUnixNano":"1773496890000000123","severityNumber":13,"body":{"stringValue":"b"},"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h"}},{"key":"service.name","value":{"stringValue":"cart"}}]}}`, at + 123, "WARN", "cart", "b"},
		{"otlp text wins", `{"timeUnixNano":"1773496890000000000","severityText":"Error","severityNumber":9,"body":"b"}`, at, "ERROR", "", "b"},
		{"ecs nested", `{"@timestamp":"2026-03-14T14:01:30Z","log":{"level":"ERROR"},"service":{"name":"cart"},"message":"m"}`, at, "ERROR", "cart", "m"},
		{"log4j2", `{"instant":{"epochSecond":1773496890,"nanoOfSecond":250000000},"level":"WARN","loggerName":"a.B","message":"m"}`, at + 250e6, "WARN", "", "m"},
		{"log4j2 millis", `{"timeMillis":1773496890000,"level":"INFO","loggerName":"a.B","message":"m"}`, at, "INFO", "", "m"},
		{"cloudflare", `{"EdgeStartTimestamp":1773496890000000000,"EdgeResponseStatus":404,"ClientRequestHost":"h.example","ClientRequestURI":"/x"}`, at, "WARN", "", "/x"},
		{"cloudflare rfc3339", `{"EdgeStartTimestamp":"2026-03-14T14:01:30Z","EdgeResponseStatus":200,"ClientRequestHost":"h.example","ClientRequestURI":"/"}`, at, "INFO", "", "/"},
	}
	l := logparse.LayoutByName(logparse.LayoutJSON)
	for _, c := range cases {
		tc := logparse.TimeCtx{Loc: time.UTC}
		var r logparse.Record
		if k := l.ParseLine([]byte(c.line), &tc, &r); k != logparse.LineTimed {
			t.Errorf("%s: kind %d", c.name, k)
			continue
		}
		if r.TS != c.ts || r.Level != c.level || string(r.Service) != c.svc || string(r.Msg) != c.msg {
			t.Errorf("%s: got ts %d level %q service %q msg %q, want %d %q %q %q", c.name, r.TS, r.Level, r.Service, r.Msg, c.ts, c.level, c.svc, c.msg)
		}
	}
}

// TestPerFileDetection: one source whose files are in different layouts
// reads each in its own.
func TestPerFileDetection(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"journald.json", "syslog3164.log", "access.log", "glog.log"} {
		copyFixture(t, dir, f)
	}
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "*")}})
	_, res := run(t, tool, `{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","level":"ERROR"}`, base.Add(time.Hour), 1<<20)
	if res.Matched != 8 || res.SkippedCount != 0 {
		t.Fatalf("matched %d skipped %v: %+v", res.Matched, res.SkippedFiles, res.Entries)
	}
}

// TestTextLines: one line of each text spelling, read by the layout that
// detection picks for it.
func TestTextLines(t *testing.T) {
	cases := []struct {
		line, layout, level, svc, msg string
	}{
		{"<11>Mar 14 14:01:30 web1 app[7]: disk full", logparse.LayoutSyslog, "ERROR", "app", "disk full"},
		{"2026-03-14T14:01:30.000000+00:00 web1 nginx[812]: error: upstream down", logparse.LayoutSyslog, "ERROR", "nginx", "upstream down"},
		{"Mar 14 14:01:30 web1 kernel: Out of memory: Killed process 42", logparse.LayoutSyslog, "", "kernel", "Out of memory: Killed process 42"},
		{"2026-03-14 14:01:30,000 [main] INFO  com.shop.Orders - placed", logparse.LayoutText, "INFO", "", "placed"},
		{"2026-03-14 14:01:30,000 ERROR com.shop.Orders - failed", logparse.LayoutText, "ERROR", "", "failed"},
		{"2026-03-14 14:01:30.000 7 ERROR ironic.common.policy [req-1] denied", logparse.LayoutText, "ERROR", "", "[req-1] denied"},
		{"2026-03-14 14:01:30,000 - billing - WARNING - slow", logparse.LayoutText, "WARN", "", "slow"},
		{"2026-03-14 14:01:30,000 - payment failed - retrying", logparse.LayoutText, "", "", "payment failed - retrying"},
		{"2026/03/14 14:01:30 [emerg] 1#1: bind() failed", logparse.LayoutText, "ERROR", "", "1#1: bind() failed"},
		{"E0314 14:01:30.000000 1 main.go:9] boom", logparse.LayoutGlog, "ERROR", "", "boom"},
	}
	for _, c := range cases {
		tc := logparse.TimeCtx{Loc: time.UTC}
		tc.SetRef(fixtureMtime.UnixNano())
		l, ok := logparse.DetectLayout([][]byte{[]byte(c.line)}, &tc, logparse.BuiltinLayouts(), nil)
		if !ok || l.Name != c.layout {
			t.Errorf("%q: layout %v, want %s", c.line, l, c.layout)
			continue
		}
		var r logparse.Record
		l.ParseLine([]byte(c.line), &tc, &r)
		if r.TS != base.Add(90*time.Second).UnixNano() || r.Level != c.level || string(r.Service) != c.svc || string(r.Msg) != c.msg {
			t.Errorf("%q: got %s %q %q %q", c.line, time.Unix(0, r.TS).UTC(), r.Level, r.Service, r.Msg)
		}
	}
}

// TestInspectReadsLikeQueryLogs: logs inspect and doctor sample a file as a
// query_logs call reads it: stamps without a year take the year of the
// file's last write, and UTF-16 is decoded, not taken for binary data.
func TestInspectReadsLikeQueryLogs(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "messages", "Mar 14 14:01:00 h sshd[1]: error: refused\nMar 14 14:02:00 h sshd[1]: accepted\n", false)
	mtime := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	must(t, os.Chtimes(p, mtime, mtime))
	var b bytes.Buffer
	for _, u := range utf16.Encode([]rune("\ufeff2026-03-14 14:01:00 ERROR [order] payment timeout\r\n2026-03-14 14:02:00 INFO [pay] ok\r\n")) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	writeFile(t, dir, "w.log", b.String(), false)
	for _, c := range []struct{ file, layout, first string }{
		{"messages", logparse.LayoutSyslog, "2024-03-14T14:01:00.000Z"},
		{"w.log", logparse.LayoutText, "2026-03-14T14:01:00.000Z"},
	} {
		in, err := Inspect(context.Background(), Source{Name: "app", Paths: []string{filepath.Join(dir, c.file)}}, InspectOptions{Entries: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(in.Skipped) != 0 || len(in.Reports) != 1 {
			t.Fatalf("%s: reports %+v skipped %+v", c.file, in.Reports, in.Skipped)
		}
		r := in.Reports[0]
		if r.Layout != c.layout || r.Lines != 2 || r.Placed != 2 || r.FirstTS != c.first || len(in.Entries) != 1 || in.Entries[0].TS != c.first {
			t.Errorf("%s: report %+v entries %+v, want layout %s from %s", c.file, r, in.Entries, c.layout, c.first)
		}
	}
}

// HealthApp pads the date of its stamps but not the clock: every stamp,
// padded or not, starts an entry in its own time; a stamp-like line no
// layout reads is unparsed, never glued to the entry before it; the one
// stack frame is glued and counted as such, in the observation and inspect.
func TestUnpaddedStamps(t *testing.T) {
	dir := t.TempDir()
	p := copyFixture(t, dir, "healthapp_unpadded.log")
	src := Source{Name: "h", Paths: []string{p}}
	tool := newTool(t, src)
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	_, res := run(t, tool, `{`+window+`,"limit":50}`, fixtureMtime, 1<<20)
	if res.Matched != 7 || res.Unparsed != 1 || res.Glued != 1 {
		t.Fatalf("matched %d unparsed %d glued %d, want 7, 1, 1: %+v", res.Matched, res.Unparsed, res.Glued, res.Entries)
	}
	if last := res.Entries[len(res.Entries)-1]; last.TS != "2026-03-14T14:00:00.215Z" {
		t.Errorf("oldest entry at %s, want the unpadded 14:0:0:215", last.TS)
	}
	_, res = run(t, tool, `{`+window+`,"level":"ERROR"}`, fixtureMtime, 1<<20)
	if res.Matched != 2 || res.Entries[0].TS != "2026-03-14T14:12:05.077Z" {
		t.Errorf("ERROR: matched %d, newest %+v", res.Matched, res.Entries)
	}
	in, err := Inspect(context.Background(), src, InspectOptions{Entries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := in.Reports[0]; r.Layout != logparse.LayoutCompact || r.Lines != 11 || r.Placed != 9 || r.Glued != 1 {
		t.Errorf("report %+v, want compact with 9 of 11 lines placed and 1 glued", r)
	}
	reliability.Record(t, reliability.SectionMutation, "HealthApp stamps with unpadded clock fields: every one placed, a stamp-like line never glued, glued lines counted", map[string]any{"test": t.Name()})
}

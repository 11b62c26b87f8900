package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/pkg/tools"
)

// refuseService checks that a service filter on a source whose window
// names no service is refused (INVALID_INPUT) with that reason.
func refuseService(t *testing.T, tool *Tool, input string, now time.Time) {
	t.Helper()
	c, err := tool.Canonical(json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	out := tool.Execute(context.Background(), tools.Call{ToolCallID: "call_1", Tool: ToolName, Input: c.Input, Now: now, MaxBytes: 1 << 20})
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeInvalidInput || out.Detail == nil || !strings.Contains(out.Detail.Error(), "names a service") {
		t.Fatalf("service filter on a source without services: %s %s %v, want INVALID_INPUT naming the reason", out.Status, out.ErrorCode, out.Detail)
	}
}

// TestEverydayFormats: each everyday server format, written as its
// software writes it by default (testdata/logs/formats, see its README
// for the public samples each follows), is detected by format auto, placed
// in time, and its planted errors (or, for Redis, whose worst level is a
// warning, its warnings) counted exactly; its service, where it has one, is
// a service and never a thread. Every fixture holds one entry before the
// window 14:00-14:30 and one after it.
func TestEverydayFormats(t *testing.T) {
	cases := []struct {
		file, layout string
		total        int
		level        string
		count        int
		service      string // "" when the format names none
		svcCount     int
		unparsed     int // lines before the first entry
		levelUnread  int // entries of the window without a level, under the level filter
	}{
		{"postgres.log", logparse.LayoutPostgres, 5, "ERROR", 2, "", 0, 0, 0},
		{"lambda.log", logparse.LayoutLambda, 5, "ERROR", 2, "", 0, 1, 0},
		{"envoy.log", logparse.LayoutEnvoy, 5, "ERROR", 2, "", 0, 0, 0},
		{"gunicorn.log", logparse.LayoutGunicorn, 5, "ERROR", 2, "", 0, 0, 0},
		{"ruby_logger.log", logparse.LayoutRuby, 5, "ERROR", 2, "", 0, 0, 0},
		{"redis.log", logparse.LayoutRedis, 5, "WARN", 2, "", 0, 0, 0},
		{"elasticsearch.log", logparse.LayoutElastic, 5, "ERROR", 2, "", 0, 0, 0},
		{"mysql.log", logparse.LayoutMySQL, 5, "ERROR", 2, "", 0, 0, 0},
		{"kafka.log", logparse.LayoutText, 5, "ERROR", 2, "", 0, 0, 0},
		{"journal_short_iso.log", logparse.LayoutSyslog, 5, "ERROR", 2, "sshd", 4, 0, 3},
		{"spring_boot2.log", logparse.LayoutText, 5, "ERROR", 2, "", 0, 0, 0},
		{"spring_boot3.log", logparse.LayoutText, 5, "ERROR", 2, "checkout", 4, 0, 0},
		{"caddy.json", logparse.LayoutJSON, 5, "ERROR", 2, "", 0, 0, 0},
		{"zap.json", logparse.LayoutJSON, 5, "ERROR", 2, "cart", 2, 0, 0},
		{"zap_console.log", logparse.LayoutText, 5, "ERROR", 2, "", 0, 0, 0},
		{"pino.json", logparse.LayoutJSON, 5, "ERROR", 2, "", 0, 0, 0},
		{"bunyan.json", logparse.LayoutJSON, 5, "ERROR", 2, "", 0, 0, 0},
		{"serilog.json", logparse.LayoutJSON, 5, "ERROR", 2, "", 0, 0, 0},
		{"mongodb.json", logparse.LayoutJSON, 5, "ERROR", 2, "", 0, 0, 0},
		{"haproxy.log", logparse.LayoutSyslog, 5, "ERROR", 2, "haproxy", 4, 0, 1},
		{"traefik.log", logparse.LayoutAccess, 5, "ERROR", 2, "", 0, 0, 0},
		{"nginx_timing.log", logparse.LayoutAccess, 5, "ERROR", 2, "", 0, 0, 0},
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
			if res.Matched != c.total || res.Unparsed != c.unparsed || res.SkippedCount != 0 || res.Unplaced != 0 {
				t.Fatalf("window: matched %d unparsed %d unplaced %d skipped %v, want %d and %d: %+v", res.Matched, res.Unparsed, res.Unplaced, res.SkippedFiles, c.total, c.unparsed, res.Entries)
			}
			out, res := run(t, tool, "{"+window+`,"level":"`+c.level+`"}`, now, 1<<20)
			if res.Matched != c.count || res.LevelUnread != c.levelUnread || out.Status != tools.EvidenceFound {
				t.Fatalf("level=%s: matched %d level_unread %d (%s), want %d and %d: %+v", c.level, res.Matched, res.LevelUnread, out.Status, c.count, c.levelUnread, res.Entries)
			}
			for _, e := range res.Entries {
				if e.Level != c.level || e.TS >= "2026-03-14T14:30" || e.TS < "2026-03-14T14:00" {
					t.Fatalf("level=%s returned %+v", c.level, e)
				}
			}
			if want := map[bool]string{true: tools.CoveragePartial, false: "data"}[c.levelUnread > 0]; res.Coverage.Coverage != want {
				t.Fatalf("level=%s: coverage %q, want %q", c.level, res.Coverage.Coverage, want)
			}
			if c.service == "" {
				refuseService(t, tool, "{"+window+`,"service":"nosuch"}`, now)
				return
			}
			_, res = run(t, tool, "{"+window+`,"service":"`+c.service+`"}`, now, 1<<20)
			if res.Matched != c.svcCount {
				t.Fatalf("service=%s: matched %d, want %d: %+v", c.service, res.Matched, c.svcCount, res.Entries)
			}
			for _, e := range res.Entries {
				if !strings.EqualFold(e.Service, c.service) {
					t.Fatalf("service=%s returned %+v", c.service, e)
				}
				if strings.Contains(e.Service, "exec-") || strings.Contains(e.Service, "main") {
					t.Fatalf("a thread became the service: %+v", e)
				}
			}
		})
	}
}

// TestExceptionChains: when an entry's text must be cut, its head, every
// cause line and the final exception line survive and frames go first,
// their number said; the innermost cause is fields.exception and part of
// the entry's pattern.
func TestExceptionChains(t *testing.T) {
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	const hikari = "java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms."
	dir := t.TempDir()
	spring := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, dir, "spring_boot2.log")}})
	_, res := run(t, spring, "{"+window+`,"level":"ERROR","contains":"dispatcherServlet"}`, now, 1<<20)
	if res.Matched != 1 {
		t.Fatalf("matched %d", res.Matched)
	}
	e := res.Entries[0]
	for _, want := range []string{
		"Servlet.service() for servlet [dispatcherServlet]",
		"org.springframework.web.util.NestedServletException: Request processing failed",
		"Caused by: org.springframework.dao.DataAccessResourceFailureException: Unable to acquire JDBC Connection",
		"Caused by: org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection",
		"Caused by: " + hikari,
		" frames …",
	} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Message)
		}
	}
	if len(e.Message) > maxChainMessage || e.Fields["exception"] != hikari {
		t.Errorf("message of %d bytes, exception %q", len(e.Message), e.Fields["exception"])
	}
	if !strings.Contains(res.Patterns[0].Template, "java.sql.SQLTransientConnectionException: <id> - Connection is not available") {
		t.Errorf("pattern %q lacks the innermost cause", res.Patterns[0].Template)
	}
	// the innermost cause is reached by contains, wherever it sits in the trace
	_, res = run(t, spring, "{"+window+`,"contains":"HikariPool-1 SQLTransientConnectionException"}`, now, 1<<20)
	if res.Matched != 1 {
		t.Errorf("contains the innermost cause: matched %d", res.Matched)
	}

	frames := strings.Repeat("  File \"/srv/app/lib.py\", line 10, in call\n    return self.inner(x)\n", 30)
	py := "2026-03-14 14:01:00,000 - billing - ERROR - invoice 8812 failed\n" +
		"Traceback (most recent call last):\n" + frames +
		"  File \"/srv/app/db.py\", line 42, in connect\n    raise ConnectionRefusedError(111, 'Connection refused')\n" +
		"ConnectionRefusedError: [Errno 111] Connection refused\n\n" +
		"During handling of the above exception, another exception occurred:\n\n" +
		"Traceback (most recent call last):\n" + frames +
		"billing.errors.PaymentError: card declined after retries\n" +
		"2026-03-14 14:02:00,000 - billing - INFO - next\n"
	goPanic := `ts=2026-03-14T14:03:00Z level=error msg="handler crashed" service=cart` + "\n" +
		"panic: runtime error: invalid memory address or nil pointer dereference\n" +
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]\n\n" +
		"goroutine 42 [running]:\n" +
		"github.com/shop/cart.(*Cart).Total(0x0)\n\t/app/cart/cart.go:120 +0x1c\n" +
		"github.com/shop/cart.Handler.ServeHTTP({0xc000123}, {0x7f, 0xc0001}, 0xc000456)\n\t/app/cart/handler.go:44 +0x85\n" +
		strings.Repeat("net/http.serverHandler.ServeHTTP({0xc000010}, {0x7f, 0xc0001}, 0xc000456)\n\t/usr/local/go/src/net/http/server.go:3137 +0x8e\n", 40) +
		"created by net/http.(*Server).Serve in goroutine 1\n\t/usr/local/go/src/net/http/server.go:3285 +0x4b4\n" +
		`ts=2026-03-14T14:04:00Z level=info msg="restarted" service=cart` + "\n"
	for _, c := range []struct {
		name, log, contains, exception string
		wants                          []string
	}{
		{"python chain", py, "", "ConnectionRefusedError: [Errno 111] Connection refused",
			[]string{"invoice 8812 failed", "Traceback (most recent call last):", "ConnectionRefusedError: [Errno 111] Connection refused",
				"During handling of the above exception, another exception occurred:", "billing.errors.PaymentError: card declined after retries", " frames …"}},
		{"go panic after logfmt", goPanic, "nil pointer dereference", "panic: runtime error: invalid memory address or nil pointer dereference",
			[]string{"handler crashed", "panic: runtime error: invalid memory address or nil pointer dereference", "goroutine 42 [running]:",
				"github.com/shop/cart.(*Cart).Total(0x0)", "/app/cart/cart.go:120 +0x1c", "/app/cart/handler.go:44 +0x85", " frames …"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tool := newTool(t, Source{Name: "app", Paths: []string{writeFile(t, t.TempDir(), "a.log", c.log, false)}})
			in := "{" + window + `,"level":"ERROR"}`
			if c.contains != "" {
				in = "{" + window + `,"contains":"` + c.contains + `"}`
			}
			_, res := run(t, tool, in, now, 1<<20)
			if res.Matched != 1 {
				t.Fatalf("matched %d: %+v", res.Matched, res.Entries)
			}
			e := res.Entries[0]
			for _, want := range c.wants {
				if !strings.Contains(e.Message, want) {
					t.Errorf("message lacks %q:\n%s", want, e.Message)
				}
			}
			if len(e.Message) > maxChainMessage || e.Fields["exception"] != c.exception {
				t.Errorf("message of %d bytes, exception %q, want %q", len(e.Message), e.Fields["exception"], c.exception)
			}
		})
	}

	// a JSON record's trace field (Serilog's @x) is read as its continuation
	tool := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, t.TempDir(), "serilog.json")}})
	_, res = run(t, tool, "{"+window+`,"contains":"8812"}`, now, 1<<20)
	if res.Matched != 1 || res.Entries[0].Fields["exception"] != "System.Net.Sockets.SocketException (111): Connection refused" ||
		!strings.Contains(res.Entries[0].Message, "---> System.Net.Http.HttpRequestException: Connection refused (payments:443)") {
		t.Fatalf("serilog @x: %+v", res.Entries)
	}
}

// TestAccessByRoute: access lines carry method, route, status, bytes and
// their numeric timings as fields, group by "METHOD route status", and
// stats summarise a timing per route with nearest-rank percentiles.
func TestAccessByRoute(t *testing.T) {
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	tool := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, t.TempDir(), "nginx_timing.log")}})
	_, res := run(t, tool, "{"+window+`,"stats":{"field":"rt","by":"path"}}`, now, 1<<20)
	if res.Matched != 5 || len(res.Patterns) != 2 || res.Patterns[0].Template != "GET /api/orders/<id> 200" || res.Patterns[0].Count != 3 ||
		res.Patterns[1].Template != "POST /api/checkout 504" || res.Patterns[1].Count != 2 {
		t.Fatalf("patterns %+v", res.Patterns)
	}
	want := []Stat{
		{Key: "/api/orders/<id>", Count: 3, Min: 0.019, P50: 0.023, P95: 0.031, P99: 0.031, Max: 0.031, Avg: 0.024333},
		{Key: "/api/checkout", Count: 2, Min: 60.001, P50: 60.001, P95: 60.002, P99: 60.002, Max: 60.002, Avg: 60.0015},
	}
	if len(res.Stats) != 2 || res.Stats[0] != want[0] || res.Stats[1] != want[1] {
		t.Fatalf("stats %+v, want %+v", res.Stats, want)
	}
	e := res.Entries[0] // 14:20:44, urt "0.030, 0.001"
	if e.Fields["method"] != "GET" || e.Fields["path"] != "/api/orders/<id>" || e.Fields["status"] != json.Number("200") || e.Fields["bytes"] != json.Number("505") ||
		e.Fields["rt"] != json.Number("0.031") || e.Fields["urt"] != json.Number("0.030") {
		t.Fatalf("fields %+v", e.Fields)
	}

	// more than 20 keys: the 20 most frequent, the rest summed in one row
	lines := ""
	for i := 0; i < 25; i++ {
		for j := 0; j <= i; j++ {
			lines += fmt.Sprintf("10.0.0.1 - - [14/Mar/2026:14:%02d:%02d +0000] \"GET /k%02d HTTP/1.1\" 200 1 \"-\" \"c\" rt=%d\n", i, j, i, j+1)
		}
	}
	tool = newTool(t, Source{Name: "app", Paths: []string{writeFile(t, t.TempDir(), "a.log", lines, false)}})
	_, res = run(t, tool, "{"+window+`,"stats":{"field":"rt","by":"path"}}`, now, 1<<20)
	if len(res.Stats) != 21 || res.Stats[0].Key != "/k24" || res.Stats[0].Count != 25 || res.Stats[0].P50 != 13 || res.Stats[0].P95 != 24 || res.Stats[0].P99 != 25 ||
		res.Stats[20].Key != otherStatKey || res.Stats[20].Count != 1+2+3+4+5 || res.Stats[20].Max != 5 {
		t.Fatalf("stats %+v", res.Stats)
	}
}

// TestAccessNumbers: through query_logs, every access layout's status is
// a JSON integer and its bytes and numeric timings JSON numbers, written as
// the log writes them (nginx's seconds, Envoy's milliseconds); a value
// that is no finite number is left out, one in a form JSON lacks is given
// in shortest form, and a timing named like a secret stays masked, a string.
func TestAccessNumbers(t *testing.T) {
	const window = `"start":"2026-03-14T14:01:00Z","end":"2026-03-14T14:02:00Z"`
	odd := `10.0.0.4 - - [14/Mar/2026:14:01:07 +0000] "GET /api/x HTTP/1.1" 499 - "-" "c" rt=NaN urt=+0.5 request_time=.25 upstream_response_time="0.120, 0.003" token=123456 big=1e400` + "\n"
	cases := []struct {
		name, file, content, fields string
	}{
		{"nginx timings", "nginx_timing.log", "",
			`{"bytes":160,"client":"10.0.0.4","method":"POST","path":"/api/checkout","rt":60.001,"status":504,"uct":0.001,"urt":60.000}`},
		{"envoy", "envoy.log", "",
			`{"authority":"checkout.shop.svc","bytes":91,"duration_ms":5003,"flags":"UF","method":"POST","path":"/api/checkout","status":503,"upstream":"10.0.2.1:8080"}`},
		{"haproxy", "haproxy.log", "",
			`{"backend":"checkout/srv1","bytes":212,"host":"lb1","method":"POST","path":"/api/checkout","pid":"14389","status":503}`},
		{"traefik", "traefik.log", "",
			`{"bytes":11,"client":"10.0.0.4","duration_ms":3003,"method":"POST","path":"/api/checkout","status":502}`},
		{"odd numbers", "odd.log", odd,
			`{"client":"10.0.0.4","method":"GET","path":"/api/x","request_time":0.25,"status":499,"token":"[REDACTED]","upstream_response_time":0.120,"urt":0.5}`},
	}
	now := base.Add(time.Hour)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ""
			if c.content != "" {
				p = writeFile(t, t.TempDir(), c.file, c.content, false)
			} else {
				p = copyFixture(t, t.TempDir(), c.file)
			}
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			out, res := run(t, tool, "{"+window+"}", now, 1<<20)
			if res.Matched != 1 {
				t.Fatalf("matched %d, want the 14:01:07 line", res.Matched)
			}
			wire, err := json.Marshal(out.Result)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Entries []struct {
					Fields json.RawMessage `json:"fields"`
				} `json:"entries"`
			}
			if err := json.Unmarshal(wire, &got); err != nil {
				t.Fatal(err)
			}
			if f := string(got.Entries[0].Fields); f != c.fields {
				t.Errorf("fields\n%s\nwant\n%s", f, c.fields)
			}
		})
	}
	// stats and contains read the numbers as before: bytes by status, and
	// a contains on a status finds its lines
	tool := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, t.TempDir(), "nginx_timing.log")}})
	_, res := run(t, tool, `{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","stats":{"field":"bytes","by":"status"}}`, now, 1<<20)
	want := []Stat{
		{Key: "200", Count: 3, Min: 498, P50: 505, P95: 512, P99: 512, Max: 512, Avg: 505},
		{Key: "504", Count: 2, Min: 160, P50: 160, P95: 160, P99: 160, Max: 160, Avg: 160},
	}
	if len(res.Stats) != 2 || res.Stats[0] != want[0] || res.Stats[1] != want[1] {
		t.Errorf("stats %+v, want %+v", res.Stats, want)
	}
	_, res = run(t, tool, `{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z","contains":"504"}`, now, 1<<20)
	if res.Matched != 2 || res.Entries[0].Fields["status"] != json.Number("504") {
		t.Errorf("contains 504: matched %d, entries %+v", res.Matched, res.Entries)
	}
}

// TestConfiguredService: a source's service key names the service of the
// entries that name none, so a service filter on a PostgreSQL log counts
// them instead of being refused; entries that name a service keep it.
func TestConfiguredService(t *testing.T) {
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	tool := newTool(t, Source{Name: "db", Service: "orders-db", Paths: []string{copyFixture(t, t.TempDir(), "postgres.log")}})
	_, res := run(t, tool, "{"+window+`,"service":"orders-db","level":"ERROR"}`, now, 1<<20)
	if res.Matched != 2 || res.Entries[0].Service != "orders-db" || res.Coverage.Coverage != "data" {
		t.Fatalf("service=orders-db level=ERROR: %+v", res)
	}
	tool = newTool(t, Source{Name: "app", Service: "fallback", Paths: []string{copyFixture(t, t.TempDir(), "haproxy.log")}})
	_, res = run(t, tool, "{"+window+`,"service":"fallback"}`, now, 1<<20)
	if res.Matched != 0 {
		t.Fatalf("entries naming a service took the configured one: %+v", res.Entries)
	}
}

// TestRefusedFormat: Python's logging.basicConfig() default writes no time;
// such a file is refused out loud (UNAVAILABLE naming the reason), never
// searched to a silent 0.
func TestRefusedFormat(t *testing.T) {
	tool := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, t.TempDir(), "python_basic.log")}})
	c, err := tool.Canonical(json.RawMessage(`{"since":"1h","level":"ERROR"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := tool.Execute(context.Background(), tools.Call{ToolCallID: "call_1", Tool: ToolName, Input: c.Input, Now: base, MaxBytes: 1 << 20})
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable || out.Detail == nil || !strings.Contains(out.Detail.Error(), "no line could be placed in time") {
		t.Fatalf("%s %s %v", out.Status, out.ErrorCode, out.Detail)
	}
}

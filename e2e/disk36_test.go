package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"
)

// logsResult is the part of `tools call query_logs -o json` these tests read.
type logsResult struct {
	Matched       int      `json:"matched"`
	Coverage      string   `json:"coverage"`
	TimeAmbiguous int      `json:"time_ambiguous"`
	ContainsCut   int      `json:"contains_cut"`
	Unplaced      int      `json:"unplaced"`
	SkippedCount  int      `json:"skipped_count"`
	TruncatedBy   []string `json:"truncated_by"`
	Entries       []struct {
		TS      string         `json:"ts"`
		Message string         `json:"message"`
		Fields  map[string]any `json:"fields"`
	} `json:"entries"`
}

// logSourceConfig writes a superbiz.toml with one [[logs]] source "app"
// over paths (extra lines appended to the table) and returns its flag pair.
func logSourceConfig(t *testing.T, e *env, extra string, paths ...string) []string {
	t.Helper()
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = fmt.Sprintf("%q", p)
	}
	cfg := filepath.Join(e.dir, "superbiz.toml")
	toml := "[[logs]]\nname = \"app\"\npaths = [" + strings.Join(q, ", ") + "]\nmax_window = \"48h\"\n" + extra
	if err := os.WriteFile(cfg, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--config", cfg}
}

// queryLogs runs `tools call query_logs` with input and decodes its result.
func queryLogs(t *testing.T, e *env, cfg []string, input string) logsResult {
	t.Helper()
	r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", input)...)
	var obs struct {
		Result logsResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
		t.Fatalf("decode: %v\n%s", err, r)
	}
	return obs.Result
}

// nyFallBack writes a New York local-time log (no zone in its stamps), one
// ERROR every 10 s from 00:00 EDT to 03:00 EST on 2026-11-01, whose 01:xx
// hour the clocks show twice; from is the first line kept.
func nyFallBack(t *testing.T, p string, from int) {
	t.Helper()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	var b strings.Builder
	t0 := time.Date(2026, 11, 1, 4, 0, 0, 0, time.UTC)
	for i := 0; i < 4*360; i++ {
		if i >= from {
			fmt.Fprintf(&b, "%s ERROR [api] tick %d\n", t0.Add(time.Duration(i)*10*time.Second).In(ny).Format("2006-01-02 15:04:05.000"), i)
		}
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDSTFallBackByOrder: the hour 2026-11-01 01:00–02:00 New York time
// happens twice; the file's order tells the passes apart, so a 10-minute
// window of either pass counts its own 60 entries (issue 36: 120 and 0,
// both passes given the summer offset). A file that starts inside the hour
// cannot tell which pass its first entries belong to: they are counted
// apart as time_ambiguous and the coverage is partial, never matched in
// both windows.
func TestDSTFallBackByOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-01T12:00:00Z"
	whole := filepath.Join(e.dir, "whole.log")
	nyFallBack(t, whole, 0)
	late := filepath.Join(e.dir, "late.log")
	nyFallBack(t, late, 500) // starts at 01:23:20 of the first pass
	window := func(from, to string) string {
		return fmt.Sprintf(`{"source":"app","start":"2026-11-01T%sZ","end":"2026-11-01T%sZ","level":"ERROR"}`, from, to)
	}
	for _, tt := range []struct {
		name, path, from, to string
		matched, ambiguous   int
		coverage             string
	}{
		{"first pass", whole, "05:10:00", "05:19:59", 60, 0, "data"},
		{"second pass", whole, "06:10:00", "06:19:59", 60, 0, "data"},
		{"both passes", whole, "05:00:00", "06:59:59", 720, 0, "data"},
		{"unresolved first pass", late, "05:30:00", "05:39:59", 0, 60, "partial"},
		{"second pass after unresolved", late, "06:30:00", "06:39:59", 60, 60, "partial"},
		{"second pass not in the file's head", late, "06:05:00", "06:09:59", 30, 0, "data"},
	} {
		cfg := logSourceConfig(t, e, "timezone = \"America/New_York\"\n", tt.path)
		got := queryLogs(t, e, cfg, window(tt.from, tt.to))
		if got.Matched != tt.matched || got.TimeAmbiguous != tt.ambiguous || got.Coverage != tt.coverage {
			t.Errorf("%s: matched %d, time_ambiguous %d, coverage %s; want %d, %d, %s", tt.name, got.Matched, got.TimeAmbiguous, got.Coverage, tt.matched, tt.ambiguous, tt.coverage)
		}
	}
}

// copytruncateLines is a log whose 09:05 line is the only ERROR.
func copytruncateLines() string {
	var b strings.Builder
	for m := 0; m < 30; m++ {
		level := "INFO"
		if m == 0 || m == 5 {
			level = "ERROR"
		}
		fmt.Fprintf(&b, "2026-11-20T09:%02d:00Z %s [api] request %d\n", m, level, m)
	}
	return b.String()
}

// gzipped is b compressed.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestCopytruncateHole: after logrotate's copytruncate the file starts with
// a run of NULs (4 KiB, or 5 MiB: longer than a line's head and a read
// chunk) and then the writer's first new line; that line is an entry of its
// own (issue 36: it was taken for a banner and its ERROR lost), in a plain
// file and in a gzip, and `logs inspect` reports the run (nul_runs) and
// reads a gzip whose 100 lines are followed by NULs as the log it is, not
// binary (issue 34 item 22).
func TestCopytruncateHole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	lines := []byte(copytruncateLines())
	files := map[string][]byte{
		"small.log":    append(make([]byte, 4<<10), lines...),
		"huge.log":     append(make([]byte, 5<<20), lines...),
		"small.log.gz": gzipped(t, append(make([]byte, 4<<10), lines...)),
		"huge.log.gz":  gzipped(t, append(make([]byte, 5<<20), lines...)),
	}
	for name, b := range files {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := logSourceConfig(t, e, "", p)
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:10:00Z","level":"ERROR"}`)
		if got.Matched != 2 || got.Coverage != "data" {
			t.Errorf("%s: matched %d coverage %s; want the 09:00 and 09:05 ERRORs", name, got.Matched, got.Coverage)
		}
		r := e.run(t, append(cfg, "-o", "json", "logs", "inspect", "app")...)
		if r.code != 0 || !strings.Contains(r.stdout, `"nul_runs": 1`) || !strings.Contains(r.stdout, `"placed": 30`) {
			t.Errorf("%s: logs inspect does not report the NUL run or misses lines\n%s", name, r)
		}
	}
	// a gzip whose head is 100 lines followed by NULs (issue 34 item 22)
	p := filepath.Join(e.dir, "tail.log.gz")
	var head strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&head, "2026-11-20T08:%02d:%02dZ INFO [api] request %d\n", i/60, i%60, i)
	}
	if err := os.WriteFile(p, gzipped(t, append([]byte(head.String()), make([]byte, 200<<10)...)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := logSourceConfig(t, e, "", p)
	if r := e.run(t, append(cfg, "-o", "json", "logs", "inspect", "app")...); r.code != 0 || strings.Contains(r.stdout, "binary") || !strings.Contains(r.stdout, `"layout": "text"`) {
		t.Errorf("gzip of lines then NULs: logs inspect\n%s", r)
	}
}

// TestCutGzipIsPartial: a rotated .gz cut short is searched up to its cut
// and named in skipped_files, and the coverage is "partial" (issue 36: it
// stayed "data", and a reader of coverage alone took the count as whole).
func TestCutGzipIsPartial(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	var b strings.Builder
	for s := 0; s < 7200; s++ {
		fmt.Fprintf(&b, "%s ERROR [api] e %d\n", time.Date(2026, 11, 20, 7, 0, s, 0, time.UTC).Format(time.RFC3339), s)
	}
	z := gzipped(t, []byte(b.String()))
	p := filepath.Join(e.dir, "app.log.1.gz")
	if err := os.WriteFile(p, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := logSourceConfig(t, e, "", p)
	for _, w := range []string{"07:05", "08:30"} { // read, and past the cut
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T`+w+`:00Z","end":"2026-11-20T`+w+`:59Z"}`)
		if got.SkippedCount != 1 || got.Coverage != "partial" {
			t.Errorf("window at %s: skipped %d coverage %s (matched %d); want the file skipped and coverage partial", w, got.SkippedCount, got.Coverage, got.Matched)
		}
	}
}

// TestStatsHugeValues: stats over values near the float64 limit (1e308)
// answer with them; the call never fails INTERNAL because a sum overflowed
// to +Inf, which JSON cannot carry (issue 34 item 16).
func TestStatsHugeValues(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	var b strings.Builder
	for i, v := range []string{"1e308", "1.5e308", "1.7e308", "-1e308", "3"} {
		fmt.Fprintf(&b, `{"time":"2026-11-20T09:0%d:00Z","level":"info","msg":"served","latency":%s}`+"\n", i, v)
	}
	p := filepath.Join(e.dir, "app.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := logSourceConfig(t, e, "", p)
	r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", `{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:10:00Z","stats":{"field":"latency"}}`)...)
	var obs struct {
		Result struct {
			Stats []struct {
				Count         int
				Min, Max, Avg float64
			} `json:"stats"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil || r.code != 0 {
		t.Fatalf("decode: %v\n%s", err, r)
	}
	if len(obs.Result.Stats) != 1 {
		t.Fatalf("stats %+v\n%s", obs.Result.Stats, r)
	}
	s := obs.Result.Stats[0]
	if s.Count != 5 || s.Min != -1e308 || s.Max != 1.7e308 || s.Avg < 0.6e308 || s.Avg > 0.7e308 {
		t.Errorf("stats %+v: want count 5, min -1e308, max 1.7e308, avg about 0.64e308", s)
	}
}

// TestChainPastOneMiB: an exception chain longer than the 1 MiB its causes
// are searched in names as exception the innermost cause within that MiB
// and says so (fields.exception_root), in a plain file and a gzip (issue
// 34 item 23: no marker that it was not the root).
func TestChainPastOneMiB(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	var b strings.Builder
	b.WriteString("2026-11-20T09:00:00Z ERROR [api] request failed\njava.lang.IllegalStateException: outer\nCaused by: java.io.IOException: middle\n")
	for b.Len() < 1300<<10 {
		b.WriteString("\tat com.example.Service.call(Service.java:42)\n")
	}
	b.WriteString("Caused by: java.sql.SQLException: the root\n2026-11-20T09:01:00Z INFO [api] next\n")
	for name, data := range map[string][]byte{"app.log": []byte(b.String()), "app.log.gz": gzipped(t, []byte(b.String()))} {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := logSourceConfig(t, e, "", p)
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:00:30Z","level":"ERROR"}`)
		if got.Matched != 1 || len(got.Entries) != 1 {
			t.Fatalf("%s: matched %d", name, got.Matched)
		}
		f := got.Entries[0].Fields
		if !strings.Contains(fmt.Sprint(f["exception"]), "middle") || !strings.Contains(fmt.Sprint(f["exception_root"]), "not read") {
			t.Errorf("%s: fields %v; want the middle cause marked as not the root", name, f)
		}
	}
}

// hugeJSONDay writes a JSON-lines log, one INFO entry every 10 s from 09:00
// to 11:00, whose entries 400 (10:06:40) and 430 (10:11:40) are ERRORs
// longer than the 64 KiB head a line is read by: the first names its time
// and level before a 100 KiB payload, the second after it.
func hugeJSONDay() []byte {
	var b strings.Builder
	pad := strings.Repeat("x", 100<<10)
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i := range 720 {
		ts := t0.Add(time.Duration(i) * 10 * time.Second).Format(time.RFC3339)
		switch i {
		case 400:
			fmt.Fprintf(&b, `{"time":"%s","level":"error","msg":"upload rejected","payload":"%s"}`+"\n", ts, pad)
		case 430:
			fmt.Fprintf(&b, `{"payload":"%s","time":"%s","level":"error","msg":"late stamp"}`+"\n", pad, ts)
		default:
			fmt.Fprintf(&b, `{"time":"%s","level":"info","msg":"request %d","latency_ms":12.5,"status":200}`+"\n", ts, i)
		}
	}
	return []byte(b.String())
}

// TestHugeJSONLines: a JSON entry longer than the 64 KiB head is an entry
// of its own, never glued to the one before it (issue 36: both ERRORs were
// glued to an INFO entry and the window answered matched 0, coverage
// data). Time and level are read from the head when the object names them
// there, in a plain file and a gzip; an object whose time lies past the
// head is unplaced (coverage partial). A window away from them is data.
func TestHugeJSONLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	day := hugeJSONDay()
	for name, data := range map[string][]byte{"app.log": day, "app.log.gz": gzipped(t, day)} {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := logSourceConfig(t, e, "", p)
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T10:05:00Z","end":"2026-11-20T10:15:00Z","level":"ERROR"}`)
		if got.Matched != 1 || got.Unplaced != 1 || got.Coverage != "partial" || len(got.Entries) != 1 || got.Entries[0].Message != "upload rejected" || got.Entries[0].TS != "2026-11-20T10:06:40.000Z" {
			t.Errorf("%s: matched %d unplaced %d coverage %s entries %+v; want the 10:06:40 ERROR read from its head, the other unplaced, coverage partial", name, got.Matched, got.Unplaced, got.Coverage, got.Entries)
		}
		got = queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T10:30:00Z","end":"2026-11-20T10:40:00Z","level":"ERROR"}`)
		if got.Matched != 0 || got.Unplaced != 0 || got.Coverage != "data" {
			t.Errorf("%s: a window without huge lines: matched %d unplaced %d coverage %s; want 0, 0, data", name, got.Matched, got.Unplaced, got.Coverage)
		}
	}
}

// TestJSONNumbersStayNumbers: a number a JSON log writes stays a number in
// entries[].fields (issue 36 §4: "12.5" and "200" came back as strings),
// and a string of digits stays a string.
func TestJSONNumbersStayNumbers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	p := filepath.Join(e.dir, "app.log")
	line := `{"time":"2026-11-20T09:00:00Z","level":"error","msg":"slow","latency_ms":12.5,"status":504,"delta":-3e2,"order_id":"0042","cached":false}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	got := queryLogs(t, e, logSourceConfig(t, e, "", p), `{"source":"app","start":"2026-11-20T08:59:00Z","end":"2026-11-20T09:01:00Z"}`)
	if len(got.Entries) != 1 {
		t.Fatalf("entries %+v", got.Entries)
	}
	f := got.Entries[0].Fields
	want := map[string]any{"latency_ms": 12.5, "status": 504.0, "delta": -300.0, "order_id": "0042", "cached": "false"}
	for k, v := range want {
		if f[k] != v {
			t.Errorf("fields[%s] = %#v; want %#v (fields %v)", k, f[k], v, f)
		}
	}
}

// criParts writes line as the container runtime does a long one: 16 KiB
// parts tagged P, the last F, all with stamp.
func criParts(b *strings.Builder, stamp, line string) {
	const part = 16 << 10
	for k := 0; k < len(line); k += part {
		tag := "P"
		if k+part >= len(line) {
			tag = "F"
		}
		fmt.Fprintf(b, "%s stdout %s %s\n", stamp, tag, line[k:min(len(line), k+part)])
	}
}

// TestCRIPartsInGzip: a container's line of 6 MiB, which containerd
// writes as 16 KiB parts, is one entry in a rotated .gz as in the plain
// file (issue 36: split at the 4 MiB read chunk's end, a word in both
// pieces counted twice); a JSON line whose stack_trace chain runs past 1
// MiB names the innermost cause within it and says it is not the root.
func TestCRIPartsInGzip(t *testing.T) {
	t.Parallel()
	e := newEnv(t, testenv.ClosedURL(t))
	e.vars["SUPERBIZ_NOW"] = "2026-11-20T12:00:00Z"
	var b strings.Builder
	for s := range 60 {
		fmt.Fprintf(&b, "2026-11-20T09:00:%02d.000000000Z stdout F INFO request %d ok\n", s, s)
	}
	criParts(&b, "2026-11-20T09:01:00.000000000Z", "ERROR upload failed for node-17 "+strings.Repeat("z", 6<<20)+" node-17 gave up")
	var trace strings.Builder
	trace.WriteString("java.lang.IllegalStateException: outer\nCaused by: java.io.IOException: middle\n")
	for trace.Len() < 1300<<10 {
		trace.WriteString("\tat com.example.Service.call(Service.java:42)\n")
	}
	trace.WriteString("Caused by: java.sql.SQLException: the root\n")
	line, err := json.Marshal(map[string]string{"level": "error", "msg": "request failed", "stack_trace": trace.String()})
	if err != nil {
		t.Fatal(err)
	}
	criParts(&b, "2026-11-20T09:02:00.000000000Z", string(line))
	b.WriteString("2026-11-20T09:03:00.000000000Z stdout F INFO done\n")
	for name, data := range map[string][]byte{"app.log": []byte(b.String()), "app.log.1.gz": gzipped(t, []byte(b.String()))} {
		p := filepath.Join(e.dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := logSourceConfig(t, e, "", p)
		got := queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T09:00:00Z","end":"2026-11-20T09:05:00Z","contains":"node-17"}`)
		if got.Matched != 1 || got.Coverage != "data" {
			t.Errorf("%s: contains node-17 matched %d coverage %s (truncated_by %v); want the one 6 MiB entry", name, got.Matched, got.Coverage, got.TruncatedBy)
		}
		got = queryLogs(t, e, cfg, `{"source":"app","start":"2026-11-20T09:01:30Z","end":"2026-11-20T09:02:30Z","level":"ERROR"}`)
		if got.Matched != 1 || len(got.Entries) != 1 {
			t.Fatalf("%s: level ERROR matched %d", name, got.Matched)
		}
		f := got.Entries[0].Fields
		if !strings.Contains(fmt.Sprint(f["exception"]), "middle") || !strings.Contains(fmt.Sprint(f["exception_root"]), "not read") {
			t.Errorf("%s: fields %v; want the middle cause marked as not the root", name, f)
		}
	}
}

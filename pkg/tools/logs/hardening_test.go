package logs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/superbiz/superbiz/internal/logparse"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TestSecretsMaskedByKeyName plants values no value-shape rule recognises
// under keys that name secrets, in every place a log entry can show them, and
// checks that none survives in the result the tool returns (what goes to the
// model, the run store and `runs show`).
func TestSecretsMaskedByKeyName(t *testing.T) {
	ts := func(minute int) string { return base.Add(time.Duration(minute) * time.Minute).Format(time.RFC3339) }
	type shape struct {
		row, format string
		lines       []string // {n} is replaced by a fresh planted secret
		keep        []string // ordinary values that must stay
	}
	shapes := []shape{
		{row: "query_logs JSON fields", format: "json", lines: []string{
			`{"ts":"` + ts(1) + `","level":"info","msg":"login","password":"{n}","PASSWD":"{n}","Secret":"{n}","token":"{n}","api_key":"{n}","Authorization":"{n}","cookie":"{n}","private_key":"{n}"}`,
			`{"ts":"` + ts(2) + `","level":"info","msg":"call","X-Api-Key":"{n}","dbPassword":"{n}","session_token":"{n}","token_count":"41","max_tokens":"42"}`,
		}, keep: []string{"41", "42"}},
		{row: "query_logs nested JSON fields", format: "json", lines: []string{
			`{"ts":"` + ts(3) + `","msg":"req","headers":{"Authorization":"{n}","Cookie":"{n}","accept":"text/html"}}`,
			`{"ts":"` + ts(4) + `","msg":"req","token":{"value":"{n}","kind":"{n}"},"auth":{"credentials":{"password":"{n}"}}}`,
			`{"ts":"` + ts(5) + `","msg":"deep","a":{"b":{"c":{"d":{"password":"{n}","api_key":"{n}"}}}},"list":[{"secret":"{n}"},{"token":"{n}"}]}`,
		}, keep: []string{"text/html"}},
		{row: "query_logs logfmt fields", format: "logfmt", lines: []string{
			`ts=` + ts(6) + ` level=error msg="auth failed" password={n} Api-Key="{n}" authorization="{n}" user=alice`,
			`ts=` + ts(7) + ` level=info msg=ok set_cookie={n} client_secret={n} privateKey={n}`,
		}, keep: []string{"alice"}},
		{row: "query_logs message text", format: "text", lines: []string{
			`2026-03-14 14:08:00 ERROR [api] bad request body {"user":"bob","password":"{n}","headers":{"Authorization":"{n}"}}`,
			`2026-03-14 14:09:00 ERROR [api] retry with password={n} and token="{n}" for bob`,
			`2026-03-14 14:10:00 ERROR [api] upstream said {\"password\":\"{n}\",\"secret\":\"{n}\"}`,
			`2026-03-14 14:11:00 ERROR [api] request dump:`,
			`  {"cookie":"{n}","api_key":"{n}"}`, // a continuation line, shown in the message
			`2026-03-14 14:12:00 ERROR [api] cut off {"password":"{n}`,
		}, keep: []string{"bob"}},
		{row: "query_logs JSON message member", format: "json", lines: []string{
			`{"ts":"` + ts(13) + `","msg":"payload {\"password\":\"{n}\",\"token\":\"{n}\"}"}`,
			`{"ts":"` + ts(14) + `","msg":"raw","password":"{n}"}`,
			`{"ts":"` + ts(15) + `","msg":"trace follows"}`,
			`{"ts":"` + ts(15) + `","password":"{n}","msg":"cut off by the writer`, // not JSON: a continuation
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.row, func(t *testing.T) {
			var planted []string
			var b strings.Builder
			for _, l := range sh.lines {
				for strings.Contains(l, "{n}") {
					s := fmt.Sprintf("hunter%dq%dz", len(planted)+2, len(sh.row)*7+len(planted))
					planted = append(planted, s)
					l = strings.Replace(l, "{n}", s, 1)
				}
				b.WriteString(l + "\n")
			}
			// the planted values are secrets only by their keys
			for _, s := range planted {
				if egress.Mask("value "+s).String() != "value "+s {
					t.Fatalf("planted %q is caught by its shape; use one only its key gives away", s)
				}
			}
			for _, gz := range []bool{false, true} {
				dir := t.TempDir()
				writeFile(t, dir, "a.log", b.String(), gz)
				tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, Format: Format(sh.format)})
				_, res := run(t, tool, `{"since":"1h","limit":50}`, base.Add(30*time.Minute), 1<<20)
				if res.Matched == 0 || res.Returned != res.Matched {
					t.Fatalf("gz=%v: matched %d returned %d", gz, res.Matched, res.Returned)
				}
				enc, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				leaked := 0
				for _, s := range planted {
					if bytes.Contains(enc, []byte(s)) {
						leaked++
						t.Errorf("gz=%v: planted %q leaked", gz, s)
					}
				}
				if !bytes.Contains(enc, []byte(egress.Marker)) {
					t.Errorf("gz=%v: no %s in %s", gz, egress.Marker, enc)
				}
				for _, k := range sh.keep {
					if !bytes.Contains(enc, []byte(k)) {
						t.Errorf("gz=%v: ordinary value %q was masked too: %s", gz, k, enc)
					}
				}
				if !gz {
					reliability.Record(t, reliability.SectionSecrets, sh.row, map[string]any{"planted": len(planted), "leaked": leaked})
				}
				if t.Failed() {
					t.Logf("result: %s", enc)
				}
			}
		})
	}
}

// TestUntimedEntries: a JSON line whose time is missing or unreadable is an
// entry of its own, counted and never shown with the previous entry's time.
func TestUntimedEntries(t *testing.T) {
	log := `{"ts":"2026-03-14T14:01:00Z","level":"error","service":"order","msg":"first"}
{"ts":"yesterday at noon","level":"error","service":"pay","msg":"orphan bad time"}
{"level":"error","service":"pay","msg":"orphan no time"}
{"ts":"2026-03-14T14:02:00Z","level":"info","service":"order","msg":"second"}
{"ts":"","level":"info","service":"order","msg":"orphan empty time"}
`
	logfmt := "ts=2026-03-14T14:01:00Z level=error service=order msg=first\n" +
		"ts=garbage level=error service=pay msg=\"orphan bad time\"\n" +
		"ts=2026-03-14T14:02:00Z level=info service=order msg=second\n"
	cases := []struct {
		name, format, content, in string
		matched, untimed          int
	}{
		{"json all", "json", log, `{"since":"1h"}`, 2, 3},
		{"json auto", "auto", log, `{"since":"1h"}`, 2, 3},
		{"json level", "json", log, `{"since":"1h","level":"ERROR"}`, 1, 2},
		{"json service", "json", log, `{"since":"1h","service":"pay"}`, 0, 2},
		{"json contains", "json", log, `{"since":"1h","contains":"orphan time"}`, 0, 3},
		{"logfmt", "logfmt", logfmt, `{"since":"1h"}`, 2, 1},
	}
	for _, c := range cases {
		for _, gz := range []bool{false, true} {
			for _, noSeek := range []bool{false, true} {
				dir := t.TempDir()
				writeFile(t, dir, "a.log", c.content, gz)
				tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, Format: Format(c.format)})
				tool.noSeek = noSeek
				_, res := run(t, tool, c.in, base.Add(30*time.Minute), 0)
				if res.Matched != c.matched || res.Unparsed != c.untimed {
					t.Errorf("%s gz=%v noSeek=%v: matched %d untimed %d, want %d %d", c.name, gz, noSeek, res.Matched, res.Unparsed, c.matched, c.untimed)
				}
				for _, e := range res.Entries {
					if strings.Contains(e.Message, "orphan") {
						t.Errorf("%s: an untimed line was joined to the entry at %s: %q", c.name, e.TS, e.Message)
					}
				}
				for _, p := range res.Patterns {
					if strings.Contains(p.Template, "orphan") {
						t.Errorf("%s: an untimed line was given a time in pattern %+v", c.name, p)
					}
				}
			}
		}
	}
}

// gzipBytes compresses data into one gzip member.
func gzipBytes(t testing.TB, data []byte, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSkipsBadFiles: a truncated or garbage gzip and binary files next to
// good files are skipped and named; the good files are still searched.
func TestSkipsBadFiles(t *testing.T) {
	var good strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&good, `{"ts":%q,"level":"error","msg":"good %d"}`+"\n", base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i)
	}
	var long strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&long, `{"ts":%q,"level":"error","msg":"rotated %d %x"}`+"\n", base.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), i, i*2654435761)
	}
	zipped := gzipBytes(t, []byte(long.String()), gzip.DefaultCompression)
	binary := bytes.Repeat([]byte("\x00\x00\x01\x02ELF\x00\x00\x00\x7f\x00\x03\x00"), 4096)

	dir := t.TempDir()
	writeFile(t, dir, "a-good.log", good.String(), false)
	writeFile(t, dir, "b-good.log.gz", good.String(), true)
	must(t, os.WriteFile(filepath.Join(dir, "c-truncated.log.gz"), zipped[:len(zipped)*6/10], 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "d-garbage.log.gz"), append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte("garbage!"), 100)...), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "e-binary.log"), binary, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "f-corrupt.log.gz"), corruptMiddle(zipped), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "h-cut-early.log.gz"), zipped[:20], 0o644))
	// a copytruncate hole: NULs, then ordinary lines
	must(t, os.WriteFile(filepath.Join(dir, "g-hole.log"), append(make([]byte, 1<<20), "\n"+good.String()...), 0o644))

	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "*.log"), filepath.Join(dir, "*.gz")}})
	out, res := run(t, tool, `{"since":"1h","limit":5}`, base.Add(30*time.Minute), 1<<20)
	if out.Status != tools.EvidenceFound {
		t.Fatalf("status %s", out.Status)
	}
	// 3 good files of 10, plus the readable starts of the truncated and corrupt gzip
	if res.Matched <= 30 || res.Matched >= 30+2*20000 {
		t.Errorf("matched %d: want the 30 good entries and part of the damaged gzip files", res.Matched)
	}
	want := map[string]string{
		"c-truncated.log.gz": reasonGzipEnds + suffixPartlyRead,
		"d-garbage.log.gz":   reasonGzipHeader + suffixNotRead,
		"e-binary.log":       reasonBinary + suffixNotRead,
		"f-corrupt.log.gz":   reasonGzipCorrupt + suffixPartlyRead,
		"h-cut-early.log.gz": reasonGzipEnds + suffixNotRead,
	}
	if res.SkippedCount != len(want) || len(res.SkippedFiles) != min(len(want), maxSkippedListed) {
		t.Fatalf("skipped %d %+v, want %d", res.SkippedCount, res.SkippedFiles, len(want))
	}
	for _, sk := range res.SkippedFiles {
		if r, ok := want[filepath.Base(sk.File)]; !ok || r != sk.Reason {
			t.Errorf("skipped %s: %q, want %q", sk.File, sk.Reason, r)
		}
	}

	// doctor's view: the same files, the same reasons, with the error behind each
	in, err := Inspect(context.Background(), Source{Name: "app", Paths: []string{filepath.Join(dir, "*.log"), filepath.Join(dir, "*.gz")}}, InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in.Files != 8 || len(in.Skipped) != len(want) {
		t.Fatalf("inspect %+v", in)
	}
	for _, sk := range in.Skipped {
		if want[filepath.Base(sk.File)] != sk.Reason || sk.Err == nil {
			t.Errorf("inspect skipped %+v", sk)
		}
	}

	// the list is bounded, the count is not
	dir2 := t.TempDir()
	writeFile(t, dir2, "good.log", good.String(), false)
	for i := 0; i < maxSkippedListed+3; i++ {
		must(t, os.WriteFile(filepath.Join(dir2, fmt.Sprintf("bin%d.log", i)), binary, 0o644))
	}
	tool2 := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir2, "*.log")}})
	_, res = run(t, tool2, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
	if res.Matched != 10 || res.SkippedCount != maxSkippedListed+3 || len(res.SkippedFiles) != maxSkippedListed {
		t.Fatalf("bounded list: matched %d skipped %d listed %d", res.Matched, res.SkippedCount, len(res.SkippedFiles))
	}

	// nothing readable at all: the source is unavailable
	dir3 := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir3, "bin.log"), binary, 0o644))
	must(t, os.WriteFile(filepath.Join(dir3, "garbage.log"), []byte{0x1f, 0x8b, 0}, 0o644))
	tool3 := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir3, "*.log")}})
	c, _ := tool3.Canonical(json.RawMessage(`{"since":"1h"}`))
	if o := tool3.Execute(context.Background(), tools.Call{Input: c.Input, Now: base}); o.ErrorCode != tools.CodeUnavailable ||
		!strings.Contains(o.Detail.Error(), "bin.log") || !strings.Contains(o.Detail.Error(), "garbage.log") {
		t.Fatalf("all bad: %+v", o)
	}
}

// corruptMiddle flips bytes in the middle of a gzip stream (a bad disk block).
func corruptMiddle(z []byte) []byte {
	c := append([]byte(nil), z...)
	for i := len(c) / 2; i < len(c)/2+64; i++ {
		c[i] ^= 0x5a
	}
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGzipBomb: a small gzip that expands to 2 GiB is read only up to the
// call's decompressed-byte limit, the result says so, and the other files
// of the source are still searched.
func TestGzipBomb(t *testing.T) {
	line := []byte(`{"ts":"2026-03-14T14:01:00Z","level":"error","msg":"bomb line"}` + "\n")
	const memberBytes = 1 << 20
	member := gzipBytes(t, bytes.Repeat(line, memberBytes/len(line)), gzip.BestCompression)
	declared := int64(memberBytes/len(line)*len(line)) * 2048 // 2 GiB of lines in 2048 gzip members
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "a-bomb.log.gz"))
	must(t, err)
	for i := 0; i < 2048; i++ {
		_, err := f.Write(member)
		must(t, err)
	}
	must(t, f.Close())
	st, err := os.Stat(f.Name())
	must(t, err)
	writeFile(t, dir, "b-plain.log", `{"ts":"2026-03-14T14:02:00Z","level":"error","msg":"plain line"}`+"\n", false)
	writeFile(t, dir, "c-more.log.gz", `{"ts":"2026-03-14T14:03:00Z","level":"error","msg":"never read"}`+"\n", true)

	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "*")}})
	const limit = 8 << 20
	tool.limits.decompressed = limit
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	out, res := run(t, tool, `{"since":"1h","limit":5}`, base.Add(30*time.Minute), 0)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)

	if out.Status != tools.EvidenceFound || !res.Truncated || fmt.Sprint(res.TruncatedBy) != "["+limitDecompressed+"]" {
		t.Fatalf("status %s truncated %v by %v", out.Status, res.Truncated, res.TruncatedBy)
	}
	read := int64(res.Matched-1) * int64(len(line)) // every bomb line matches; one plain line
	if read <= 0 || read > limit {
		t.Fatalf("matched %d lines = %d bytes, limit %d", res.Matched, read, limit)
	}
	if res.Entries[0].Message != "plain line" {
		t.Fatalf("the plain file after the bomb was not searched: %+v", res.Entries[0])
	}
	for _, p := range res.Patterns {
		if p.Template == "never read" {
			t.Fatalf("a gzip file past the limit was read")
		}
	}
	reliability.Record(t, reliability.SectionBombs, "query_logs gzip bomb (per-call limit injected)", map[string]any{
		"compressed_bytes":   st.Size(),
		"declared_bytes":     declared,
		"limit_bytes":        limit,
		"decompressed_bytes": read,
		"elapsed_ms":         elapsed.Milliseconds(),
		"alloc_mib":          (after.TotalAlloc - before.TotalAlloc) >> 20,
		"heap_inuse_mib":     after.HeapInuse >> 20,
		"outcome":            "truncated_by " + strings.Join(res.TruncatedBy, ","),
	})
}

// TestScanTimeLimit: a call whose own time limit (SetScanTime) passes stops
// and says so, with what it found; the run's deadline still fails it with
// TIMEOUT.
func TestScanTimeLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.log", `{"ts":"2026-03-14T14:01:00Z","level":"error","msg":"x"}`+"\n", false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}})
	tool.SetScanTime(time.Nanosecond) // spent before the first file
	out, res := run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
	if out.Status != tools.NoEvidence || !res.Truncated || fmt.Sprint(res.TruncatedBy) != "["+limitTime+"]" {
		t.Fatalf("status %s %+v", out.Status, res)
	}
	enc, _ := json.Marshal(res)
	if !bytes.Contains(enc, []byte(`"truncated_by":["time"]`)) {
		t.Fatalf("not in the observation: %s", enc)
	}
	tool.SetScanTime(time.Hour)
	_, res = run(t, tool, `{"since":"1h"}`, base.Add(30*time.Minute), 0)
	if res.Matched != 1 || res.TruncatedBy != nil || bytes.Contains(fixture.JSON(t, res), []byte("truncated_by")) {
		t.Fatalf("within the limits: %+v", res)
	}
}

// TestFileShrinksWhileMapped: a plain file truncated while it is mapped
// (copytruncate rotation) faults on its lost pages; the file is skipped with
// a reason instead of the process crashing.
func TestFileShrinksWhileMapped(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `{"ts":%q,"level":"error","msg":"line %d"}`+"\n", base.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), i)
	}
	p := writeFile(t, t.TempDir(), "a.log", b.String(), false)
	f, err := os.Open(p)
	must(t, err)
	defer f.Close()
	data, release, err := mapFile(f, int64(b.Len()))
	if err != nil {
		testenv.Missing(t, "no memory mapping here: "+err.Error(), "CI runs on Linux, where mmap works")
	}
	defer func() { _ = release() }()
	must(t, os.Truncate(p, 0))
	q := &query{startNS: base.UnixNano(), endNS: base.Add(time.Hour).UnixNano(), limit: 5}
	s := &scanner{q: q, tc: logparse.TimeCtx{Loc: time.UTC, Year: 2026, EndNS: q.endNS}, acc: newAccumulator(5, time.UTC), noSeek: true, ctx: context.Background()}
	read, err := s.scanMapped(data, logparse.BuiltinLayouts())
	var fe *fileError
	if !errors.As(err, &fe) || fe.reason != reasonShrank || read {
		t.Fatalf("read %v err %v, want a skip with %q before anything was read", read, err, reasonShrank)
	}
}

func TestCleanTextAndBound(t *testing.T) {
	if got := cleanText([]byte("a\x1b[1;31mb\x1b]0;t\x07c\x00d\te\xff\u202ef\nz"), false); got != "abcd e\ufffdf z" {
		t.Errorf("clean %q", got)
	}
	if got := textclip.Bytes("héllo wörld", 6); got != "hé…" {
		t.Errorf("bound %q", got)
	}
}

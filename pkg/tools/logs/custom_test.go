package logs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/testenv"

	"github.com/superbiz/superbiz/internal/loglayout"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// klogPattern reads glog/klog-like lines with a custom layout (no year).
const klogPattern = `(?P<level>[IWEF])(?P<ts>\d{4} \d\d:\d\d:\d\d\.\d{6})\s+(?P<pid>\d+) (?P<source>[^\]]+)\] (?P<msg>.*)`

// TestCustomSourceQuery: a format custom source answers a windowed,
// filtered query; the files it cannot read are named with what was tried.
func TestCustomSourceQuery(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.log", "I0314 13:59:00.000000 1 a.go:1] before window\n"+
		"E0314 14:01:00.000000 1 a.go:2] dial tcp 10.0.0.1:5432: connection refused\n"+
		"goroutine 1 [running]:\n"+
		"W0314 14:02:00.000000 1 a.go:3] retrying\n"+
		"E0314 14:03:00.000000 2 b.go:9] dial tcp 10.0.0.2:5432: connection refused\n", false)
	writeFile(t, dir, "b.log", `{"ts":"2026-03-14T14:01:00Z","msg":"json, not this layout"}`+"\n", false)
	must(t, os.Chtimes(a, base, base)) // the year of stamps without one
	tool := newTool(t, Source{Name: "k", Paths: []string{dir + "/*.log"}, Format: "custom", Pattern: klogPattern, TimeLayout: "0102 15:04:05.000000"})
	_, res := run(t, tool, `{"source":"k","start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:10:00Z","level":"ERROR"}`, base.Add(10*time.Minute), 0)
	if res.Matched != 2 || res.Entries[0].Fields["pid"] != "2" || !strings.Contains(res.Entries[1].Message, "goroutine 1 [running]") {
		t.Fatalf("result %+v", res)
	}
	if res.SkippedCount != 1 || !strings.HasSuffix(res.SkippedFiles[0].File, "b.log") || res.SkippedFiles[0].Reason != reasonNoTime+suffixNotRead {
		t.Fatalf("skipped %+v", res.SkippedFiles)
	}

	only := newTool(t, Source{Name: "k", Paths: []string{dir + "/b.log"}, Format: "custom", Pattern: klogPattern, TimeLayout: "0102 15:04:05.000000"})
	c, err := only.Canonical([]byte(`{"since":"1h"}`))
	if err != nil {
		t.Fatal(err)
	}
	out := only.Execute(context.Background(), tools.Call{Input: c.Input, Now: base})
	if out.Status != tools.StatusError || out.ErrorCode != tools.CodeUnavailable ||
		!strings.Contains(out.Detail.Error(), "b.log") || !strings.Contains(out.Detail.Error(), "tried format custom") {
		t.Fatalf("outcome %s %s %v, want ERROR UNAVAILABLE naming b.log and format custom", out.Status, out.ErrorCode, out.Detail)
	}
}

// TestFixedFormatWithoutTimeIsSkipped: format text (or json) on a file in
// which no line has a time is skipped by name, not searched to matched 0.
func TestFixedFormatWithoutTimeIsSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "words.log", "hello\nno time here\n", false)
	for _, f := range []string{"text", "json", "logfmt"} {
		tool := newTool(t, Source{Name: "s", Paths: []string{dir + "/words.log"}, Format: Format(f)})
		c, err := tool.Canonical([]byte(`{"since":"1h"}`))
		if err != nil {
			t.Fatal(err)
		}
		out := tool.Execute(context.Background(), tools.Call{Input: c.Input, Now: base})
		if out.Status != tools.StatusError || !strings.Contains(out.Detail.Error(), "tried format "+f) {
			t.Errorf("%s: %s %v, want an error naming the format", f, out.Status, out.Detail)
		}
	}
}

// TestLeadingLinesUnparsed: lines before a file's first entry are counted
// as unparsed, on the seek path and the linear path alike, when they hold
// the contains words and no level or service filter is given.
func TestLeadingLinesUnparsed(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("=== banner: payment node 7 ===\nstarted by ops\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%s INFO [pay] payment %d ok\n", base.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05"), i)
	}
	writeFile(t, dir, "a.log", b.String(), false)
	for _, noSeek := range []bool{false, true} {
		tool := newTool(t, Source{Name: "s", Paths: []string{dir + "/a.log"}, Format: "text"})
		tool.noSeek = noSeek
		for _, tt := range []struct {
			input    string
			unparsed int
		}{
			{`{"start":"2026-03-14T16:00:00Z","end":"2026-03-14T16:10:00Z"}`, 2},
			{`{"start":"2026-03-14T16:00:00Z","end":"2026-03-14T16:10:00Z","contains":"payment"}`, 1},
			{`{"start":"2026-03-14T16:00:00Z","end":"2026-03-14T16:10:00Z","level":"INFO"}`, 0},
		} {
			_, res := run(t, tool, tt.input, base.Add(4*time.Hour), 0)
			if res.Unparsed != tt.unparsed || res.Matched != 11 {
				t.Errorf("noSeek %v %s: unparsed %d matched %d, want %d and 11", noSeek, tt.input, res.Unparsed, res.Matched, tt.unparsed)
			}
		}
	}
}

// TestNewRejectsBadLayout: New names the source and the key at fault.
func TestNewRejectsBadLayout(t *testing.T) {
	_, err := New([]Source{{Name: "k", Paths: []string{"/x"}, Format: "custom", Pattern: `(?P<ts>\d+)`, TimeLayout: "unix"}})
	var le *loglayout.Error
	if !errors.As(err, &le) || le.Key != loglayout.KeyPattern || !strings.Contains(err.Error(), `"k"`) {
		t.Fatalf("error %v", err)
	}
}

// TestInspectReports: Inspect gives the layout, the lines placed in time and glued,
// the time range and the first entries as query_logs shows them.
func TestInspectReports(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.log", "banner\nE0314 14:01:00.000000 1 a.go:2] refused password=hunter2\n  frame\nI0314 14:09:00.000000 1 a.go:3] ok\n", false)
	b := writeFile(t, dir, "b.log", "I0314 09:00:00.000000 1 b.go:1] earlier file\n", true)
	// stamps without a year take the year of the file's last write
	for _, p := range []string{a, b} {
		must(t, os.Chtimes(p, base, base))
	}
	in, err := Inspect(context.Background(), Source{Name: "k", Paths: []string{dir + "/*.log"}, Format: "custom", Pattern: klogPattern, TimeLayout: "0102 15:04:05.000000"},
		InspectOptions{Entries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Reports) != 2 || in.Reports[1].Layout != "custom" || in.Reports[1].Placed != 1 {
		t.Fatalf("reports %+v", in.Reports)
	}
	if in.FirstTS != "2026-03-14T09:00:00.000Z" || in.LastTS != "2026-03-14T14:09:00.000Z" {
		t.Errorf("source range %s .. %s", in.FirstTS, in.LastTS)
	}
	r := in.Reports[0]
	if r.Layout != "custom" || r.Lines != 4 || r.Placed != 2 || r.Glued != 1 || r.FirstTS != "2026-03-14T14:01:00.000Z" || r.LastTS != "2026-03-14T14:09:00.000Z" || !r.Whole {
		t.Errorf("report %+v", r)
	}
	if len(in.Entries) != 1 || in.Entries[0].Level != "ERROR" || in.Entries[0].Message != "refused password=[REDACTED]\nframe" {
		t.Errorf("entries %+v", in.Entries)
	}
}

// TestCustomPatternBomb: a costly pattern (Unicode classes under nested
// bounded repeats; Go refuses repeats past 1000) over 8 MiB of 2 KiB lines
// answers within the per-call limits, or says which one stopped it; the
// figures go to docs/RELIABILITY.md.
func TestCustomPatternBomb(t *testing.T) {
	testenv.SkipShort(t, "runs a costly pattern over 8 MiB")
	pattern := `(?P<ts>\d{10}) (?P<msg>(?:[\p{L}\p{N}\p{P}\p{S}]{1,100}\s?){1,10}[^\n]*)`
	if len(pattern) > loglayout.MaxPattern {
		t.Fatalf("pattern of %d bytes over the cap", len(pattern))
	}
	dir := t.TempDir()
	var b strings.Builder
	long := strings.Repeat("payment-Ä1 ", 180) // ~2 KiB of matching text
	const lines = 4000
	for i := range lines {
		fmt.Fprintf(&b, "%d %s\n", base.Unix()-int64(lines-i), long)
	}
	writeFile(t, dir, "bomb.log", b.String(), false)
	tool := newTool(t, Source{Name: "b", Paths: []string{dir + "/bomb.log"}, Format: "custom", Pattern: pattern, TimeLayout: "unix"})
	tool.limits.time = 5 * time.Second
	c, err := tool.Canonical([]byte(`{"since":"2h","contains":"payment"}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := tool.Execute(context.Background(), tools.Call{Input: c.Input, Now: base})
	elapsed := time.Since(start)
	if out.Status == tools.StatusError {
		t.Fatalf("outcome %s %v", out.ErrorCode, out.Detail)
	}
	res := out.Result.(Result)
	if res.Matched != lines && len(res.TruncatedBy) == 0 {
		t.Fatalf("matched %d of %d without saying it stopped early", res.Matched, lines)
	}
	reliability.Record(t, reliability.SectionBombs, "custom log pattern, 4000 lines of 2 KiB", map[string]any{
		"pattern_bytes": len(pattern), "file_bytes": b.Len(), "matched": res.Matched,
		"truncated_by": strings.Join(res.TruncatedBy, ","), "elapsed_ms": elapsed.Milliseconds(),
	})
}

package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/fixture"
	"github.com/superbiz/superbiz/pkg/tools"
)

// issuePattern is the custom layout of issue 17's reproduction.
const issuePattern = `(?P<ts>\S+ \S+) (?P<level>\w+) \[(?P<service>\w+)\] (?P<msg>.*)`

// longLineFile writes a normal line, one line of about size bytes with a
// valid stamp and level whose tail holds the word "tailword", and another
// normal line; gz writes it gzip-compressed.
func longLineFile(t *testing.T, dir string, size int, gz bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("2026-03-14 14:01:00 ERROR [api] first payment failed\n")
	b.WriteString("2026-03-14 14:02:00 ERROR [api] huge payment ")
	b.WriteString(strings.Repeat("x", size))
	b.WriteString(" tailword\n")
	b.WriteString("2026-03-14 14:03:00 ERROR [api] last payment failed\n")
	name := "long.log"
	if gz {
		name += ".gz"
	}
	return writeFile(t, dir, name, b.String(), gz)
}

// TestLongLineCut: a line longer than logparse.MaxLineBytes is read by its head
// (stamp, level, message) and counted in long_lines, its tail is not
// parsed but is searched for the contains words (issue 36: a word past the
// head answered matched 0, coverage data), and the lines around it are
// read as usual, whatever the layout or whether the file is mapped or
// streamed.
func TestLongLineCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  Source
		size int
		gz   bool
	}{
		{"custom mapped", Source{Format: "custom", Pattern: issuePattern, TimeLayout: "2006-01-02 15:04:05"}, 8 << 20, false},
		{"auto mapped", Source{}, 8 << 20, false},
		{"custom gzip, longer than a chunk", Source{Format: "custom", Pattern: issuePattern, TimeLayout: "2006-01-02 15:04:05"}, 3 * streamChunk, true},
		{"auto gzip, within a chunk", Source{}, 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := longLineFile(t, dir, tc.size, tc.gz)
			src := tc.src
			src.Name, src.Paths = "app", []string{p}
			tool := newTool(t, src)
			now := base.Add(time.Hour)
			_, res := run(t, tool, `{"since":"2h","level":"ERROR"}`, now, 1<<20)
			if res.Matched != 3 || res.LongLines != 1 || res.Unparsed != 0 {
				t.Fatalf("matched %d long_lines %d unparsed %d, want 3, 1, 0: %+v", res.Matched, res.LongLines, res.Unparsed, res.Entries)
			}
			if got := res.Entries[1].Message; !strings.HasPrefix(got, "huge payment xxx") || len(got) > maxMessage+8 {
				t.Fatalf("long line's message %q", textclipShort(got))
			}
			if !strings.Contains(string(fixture.JSON(t, res)), `"long_lines":1`) {
				t.Fatal("long_lines is not in the observation")
			}
			// the tail is not parsed, but it is searched
			_, res = run(t, tool, `{"since":"2h","contains":"tailword"}`, now, 1<<20)
			if res.Matched != 1 || res.Entries[0].TS != "2026-03-14T14:02:00.000Z" || res.ContainsCut != 0 || res.Coverage.Coverage != coverageData {
				t.Fatalf("a word of the long line's tail: matched %d contains_cut %d coverage %s; want the 14:02 entry, 0, data", res.Matched, res.ContainsCut, res.Coverage.Coverage)
			}
			out, res := run(t, tool, `{"since":"2h","contains":"tailword absent"}`, now, 1<<20)
			if out.Status != tools.NoEvidence || res.Matched != 0 || res.ContainsCut != 0 {
				t.Fatalf("a word in no entry: %s matched %d contains_cut %d", out.Status, res.Matched, res.ContainsCut)
			}
			_, res = run(t, tool, `{"since":"2h","contains":"last payment"}`, now, 1<<20)
			if res.Matched != 1 || res.Entries[0].TS != "2026-03-14T14:03:00.000Z" {
				t.Fatalf("the line after the long one: %+v", res)
			}
		})
	}
}

// TestContainsPastSearchBound: in a line longer than maxSearchLine, a
// contains word past what was searched is no negative: the entry counts in
// contains_cut and the coverage is partial, in a mapped file, a gzip and a
// continuation line carried across a gzip's chunks alike; a word within the
// bound matches.
func TestContainsPastSearchBound(t *testing.T) {
	pad := strings.Repeat("x", maxSearchLine+streamChunk+1<<20)
	for _, tc := range []struct {
		name, text string
		gz         bool
	}{
		{"mapped", "2026-03-14 14:02:00 ERROR [api] huge payment " + pad + " tailword\n", false},
		{"gzip", "2026-03-14 14:02:00 ERROR [api] huge payment " + pad + " tailword\n", true},
		{"gzip, a continuation line", "2026-03-14 14:02:00 ERROR [api] huge payment\n" + pad + " tailword\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "2026-03-14 14:01:00 ERROR [api] first payment failed\n" + tc.text + "2026-03-14 14:03:00 ERROR [api] last payment failed\n"
			p := writeFile(t, t.TempDir(), "long.log", text, tc.gz)
			tool := newTool(t, Source{Name: "app", Paths: []string{p}})
			now := base.Add(time.Hour)
			out, res := run(t, tool, `{"since":"2h","contains":"tailword"}`, now, 1<<20)
			if res.Matched != 0 || res.ContainsCut != 1 || res.Coverage.Coverage != tools.CoveragePartial {
				t.Fatalf("a word past the search bound: %s matched %d contains_cut %d coverage %s; want 0, 1, partial", out.Status, res.Matched, res.ContainsCut, res.Coverage.Coverage)
			}
			if !strings.Contains(string(fixture.JSON(t, res)), `"contains_cut":1`) {
				t.Fatal("contains_cut is not in the observation")
			}
			_, res = run(t, tool, `{"since":"2h","contains":"huge payment xxx"}`, now, 1<<20)
			if res.Matched != 1 || res.ContainsCut != 0 || res.Coverage.Coverage != coverageData {
				t.Fatalf("a word within the bound: matched %d contains_cut %d coverage %s", res.Matched, res.ContainsCut, res.Coverage.Coverage)
			}
		})
	}
}

func textclipShort(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// TestLongLineSeek: in a time-ordered mapped file the binary search crosses
// a long line once and still finds windows on both sides of it.
func TestLongLineSeek(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "2026-03-14 13:%02d:%02d INFO [api] before %d\n", i/60, i%60, i)
	}
	b.WriteString("2026-03-14 14:05:00 ERROR [api] huge " + strings.Repeat("y", 32<<20) + "\n")
	for i := range 200 {
		fmt.Fprintf(&b, "2026-03-14 14:%02d:%02d INFO [api] after %d\n", 10+i/60, i%60, i)
	}
	p := writeFile(t, dir, "seek.log", b.String(), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{p}})
	now := base.Add(time.Hour)
	_, res := run(t, tool, `{"start":"2026-03-14T13:00:00Z","end":"2026-03-14T13:59:59Z"}`, now, 1<<20)
	if res.Matched != 200 || res.LongLines != 0 {
		t.Fatalf("before: matched %d long_lines %d", res.Matched, res.LongLines)
	}
	_, res = run(t, tool, `{"start":"2026-03-14T14:10:00Z","end":"2026-03-14T15:00:00Z"}`, now, 1<<20)
	if res.Matched != 200 {
		t.Fatalf("after: matched %d", res.Matched)
	}
	_, res = run(t, tool, `{"start":"2026-03-14T14:04:00Z","end":"2026-03-14T14:06:00Z","level":"ERROR"}`, now, 1<<20)
	if res.Matched != 1 || res.LongLines != 1 {
		t.Fatalf("the long line itself: matched %d long_lines %d", res.Matched, res.LongLines)
	}
}

// TestLongLinesTimeCap: many long lines that would take long to parse whole
// end the call at its time cap with truncated_by "time", and a cancelled
// context ends it at once.
func TestLongLinesTimeCap(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "many.log"))
	if err != nil {
		t.Fatal(err)
	}
	line := " ERROR [api] payment " + strings.Repeat("z", 2<<20) + "\n"
	for i := range 48 {
		if _, err := fmt.Fprintf(f, "2026-03-14 14:%02d:00%s", i%60, line); err != nil {
			t.Fatal(err)
		}
	}
	must(t, f.Close())
	tool := newTool(t, Source{Name: "app", Paths: []string{f.Name()}, Format: "custom", Pattern: issuePattern, TimeLayout: "2006-01-02 15:04:05"})
	tool.noSeek = true
	tool.limits.time = 20 * time.Millisecond
	c, err := tool.Canonical([]byte(`{"since":"2h"}`))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := tool.Execute(context.Background(), tools.Call{Input: c.Input, Now: base.Add(time.Hour)})
	// The cap is proven by truncated_by and the lines left unmatched below;
	// this wall bound only catches a scan that ignores it altogether (whole
	// lines parsed take minutes), with room for -race on a loaded CI machine.
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("time cap of 20ms took %s", el)
	}
	res, ok := out.Result.(Result)
	if !ok {
		t.Fatalf("time cap: %s %v", out.ErrorCode, out.Detail)
	}
	// the cap may fall while the layout is detected: the file is then
	// unread for want of time, never skipped as a file without times
	if fmt.Sprint(res.TruncatedBy) != "["+limitTime+"]" || res.Matched == 48 || res.SkippedCount != 0 {
		t.Fatalf("truncated_by %v matched %d skipped %v", res.TruncatedBy, res.Matched, res.SkippedFiles)
	}
	tool.limits.time = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	out = tool.Execute(ctx, tools.Call{Input: c.Input, Now: base.Add(time.Hour)})
	if el := time.Since(start); el > 1500*time.Millisecond || out.ErrorCode != tools.CodeTimeout {
		t.Fatalf("run deadline: %s after %s", out.ErrorCode, el)
	}
}

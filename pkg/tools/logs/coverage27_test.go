package logs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// A compressed file is sampled from its head only (1 MiB): a window past
// the sampled head may lie in the file's unsampled end, so a search that
// finds nothing there (contains, which reads only entries holding its word)
// is no evidence of an empty window: coverage stays "data", with no
// empty-window account a negative could be refused on.
func TestCompressedTailNotTakenForOutside(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40000; i++ {
		fmt.Fprintf(&b, "%s INFO [api] request served in %d ms\n", base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%97)
	}
	dir := t.TempDir()
	writeFile(t, dir, "app.log.gz", b.String(), true)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "app.log.gz")}, MaxWindow: 48 * time.Hour})
	// entries 36000..37800: well past the first MiB (about 19,000 lines)
	in := fmt.Sprintf(`{"start":%q,"end":%q,"contains":"nosuchword"}`, base.Add(10*time.Hour).Format(time.RFC3339), base.Add(10*time.Hour+30*time.Minute).Format(time.RFC3339))
	out, res := run(t, tool, in, base, 1<<20)
	if out.Status != tools.NoEvidence || res.Matched != 0 {
		t.Fatalf("%s matched %d: want NO_EVIDENCE", out.Status, res.Matched)
	}
	if res.SourceLast != "" {
		t.Fatalf("source_last %q: the fixture wants a compressed file whose end is not sampled", res.SourceLast)
	}
	if res.Coverage.Coverage != coverageData || out.EmptyWindow != "" {
		t.Errorf("coverage %q, empty window %q: want data and no account, the window may lie in the unsampled end", res.Coverage.Coverage, out.EmptyWindow)
	}
}

// A window that falls in a gap of the readable file is empty only when
// every file was read: with a file of the source skipped (binary data), the
// window may lie in it, so coverage stays "data" with no empty-window
// account; with the skipped file gone, the same window is "none".
func TestSkippedFileKeepsWindowOpen(t *testing.T) {
	var b strings.Builder
	for _, h := range []int{0, 3} { // an hour of entries, a gap of two, another hour
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "%s INFO [api] tick %d\n", base.Add(time.Duration(h)*time.Hour+time.Duration(i)*time.Minute).Format(time.RFC3339), i)
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "a.log", b.String(), false)
	in := fmt.Sprintf(`{"start":%q,"end":%q}`, base.Add(90*time.Minute).Format(time.RFC3339), base.Add(2*time.Hour).Format(time.RFC3339))
	for _, tt := range []struct {
		name     string
		binary   bool
		coverage string
	}{
		{"with a skipped file", true, coverageData},
		{"every file read", false, tools.CoverageNone},
	} {
		if tt.binary {
			writeFile(t, dir, "b.log", strings.Repeat("\x00\x01\x02\x03", 4096), false)
		}
		tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "*.log")}, MaxWindow: 48 * time.Hour})
		out, res := run(t, tool, in, base, 1<<20)
		if out.Status != tools.NoEvidence || (res.SkippedCount > 0) != tt.binary {
			t.Fatalf("%s: %s, %d skipped", tt.name, out.Status, res.SkippedCount)
		}
		if res.Coverage.Coverage != tt.coverage || (out.EmptyWindow == "") != (tt.coverage == coverageData) {
			t.Errorf("%s: coverage %q, empty window %q; want %s", tt.name, res.Coverage.Coverage, out.EmptyWindow, tt.coverage)
		}
		if tt.binary {
			if err := os.Remove(filepath.Join(dir, "b.log")); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Matching entries without a readable time make a window partial only when
// nothing timed matched: with matches, the answer rests on them and the
// coverage is "data" (here a banner before the file's first entry, far from
// the window, so no entry is unplaced next to it).
func TestUnparsedWithMatchesIsData(t *testing.T) {
	var b strings.Builder
	b.WriteString("=== banner: payment node 7 ===\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%s INFO [pay] payment %d ok\n", base.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05"), i)
	}
	dir := t.TempDir()
	writeFile(t, dir, "a.log", b.String(), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, Format: "text", MaxWindow: 48 * time.Hour})
	_, res := run(t, tool, `{"start":"2026-03-14T16:00:00Z","end":"2026-03-14T16:10:00Z"}`, base.Add(4*time.Hour), 1<<20)
	if res.Matched != 11 || res.Unparsed != 1 || res.Unplaced != 0 {
		t.Fatalf("matched %d, unparsed %d, unplaced %d: the fixture wants 11, 1, 0", res.Matched, res.Unparsed, res.Unplaced)
	}
	if res.Coverage.Coverage != coverageData {
		t.Errorf("coverage %q, want data", res.Coverage.Coverage)
	}
}

// An entry that names neither a level nor a service, under both filters,
// is counted once, as level_unread (the level is judged first), not as
// service_unread; an ERROR entry naming no service is service_unread, and
// one naming another service is no match.
func TestUnreadCountedOnceLevelFirst(t *testing.T) {
	at := func(d time.Duration) string { return base.Add(d).Format(time.RFC3339) }
	lines := []string{
		`{"ts":"` + at(10*time.Minute) + `","msg":"disk slow"}`,
		`{"ts":"` + at(20*time.Minute) + `","msg":"disk slow"}`,
		`{"ts":"` + at(30*time.Minute) + `","level":"error","msg":"disk slow"}`,
		`{"ts":"` + at(40*time.Minute) + `","level":"error","service":"web","msg":"disk slow"}`,
	}
	dir := t.TempDir()
	writeFile(t, dir, "a.log", strings.Join(lines, "\n")+"\n", false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, MaxWindow: 48 * time.Hour})
	_, res := run(t, tool, fmt.Sprintf(`{"start":%q,"end":%q,"level":"error","service":"api"}`, at(0), at(time.Hour)), base, 1<<20)
	if res.LevelUnread != 2 || res.ServiceUnread != 1 || res.Matched != 0 {
		t.Errorf("level_unread %d, service_unread %d, matched %d; want 2, 1 (the ERROR entry naming no service), 0", res.LevelUnread, res.ServiceUnread, res.Matched)
	}
}

// A partial window that holds matches is evidence found, coverage partial,
// and no empty-window account: tools.Outcome sets EmptyWindow only with
// NO_EVIDENCE.
func TestPartialWithMatchesHasNoAccount(t *testing.T) {
	at := func(d time.Duration) string { return base.Add(d).Format(time.RFC3339) }
	lines := []string{
		`{"ts":"` + at(10*time.Minute) + `","level":"error","msg":"disk slow"}`,
		`{"ts":"` + at(20*time.Minute) + `","msg":"disk slow"}`,
	}
	dir := t.TempDir()
	writeFile(t, dir, "a.log", strings.Join(lines, "\n")+"\n", false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "a.log")}, MaxWindow: 48 * time.Hour})
	out, res := run(t, tool, fmt.Sprintf(`{"start":%q,"end":%q,"level":"error"}`, at(0), at(time.Hour)), base, 1<<20)
	if out.Status != tools.EvidenceFound || res.Coverage.Coverage != tools.CoveragePartial || res.LevelUnread != 1 {
		t.Fatalf("%s, coverage %q, level_unread %d: the fixture wants EVIDENCE_FOUND, partial, 1", out.Status, res.Coverage.Coverage, res.LevelUnread)
	}
	if out.EmptyWindow != "" {
		t.Errorf("empty window %q with EVIDENCE_FOUND", out.EmptyWindow)
	}
}

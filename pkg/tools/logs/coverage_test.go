package logs

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A window outside the source's entries, or a gap inside them read in full,
// held no data: NO_EVIDENCE with coverage "none", the source's range and
// the empty-window line; a window with entries that the filters reject is
// coverage "data" with the entries read counted, and no empty-window line.
func TestCoverage(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// 06:55–08:00 and 10:00–11:04, one INFO entry a minute; a gap between
	for _, span := range [][2]time.Time{
		{base.Add(-7*time.Hour - 5*time.Minute), base.Add(-6 * time.Hour)},
		{base.Add(-4 * time.Hour), base.Add(-4*time.Hour + 64*time.Minute)},
	} {
		for at := span[0]; !at.After(span[1]); at = at.Add(time.Minute) {
			fmt.Fprintf(&b, "%s INFO [checkout] request served\n", at.Format("2006-01-02 15:04:05.000"))
		}
	}
	writeFile(t, dir, "app.log", b.String(), false)
	tool := newTool(t, Source{Name: "app", Paths: []string{filepath.Join(dir, "app.log")}, MaxWindow: 48 * time.Hour, Location: time.UTC})
	window := func(from, to time.Duration, filter string) string {
		return fmt.Sprintf(`{"start":%q,"end":%q%s}`, base.Add(from).Format(time.RFC3339), base.Add(to).Format(time.RFC3339), filter)
	}
	first, last := "2026-03-14T06:55:00.000Z", "2026-03-14T11:04:00.000Z"
	cases := 0
	defer func() {
		reliability.Record(t, reliability.SectionEvidence, "query_logs coverage: windows outside, in a gap of and inside a source", map[string]any{
			"windows": cases, "failed": t.Failed(),
		})
	}()
	for _, c := range []struct {
		name, input, coverage string
		inWindow              int
	}{
		{"after the data", window(time.Hour, 2*time.Hour, ""), tools.CoverageNone, 0},
		{"after the data, with contains", window(time.Hour, 2*time.Hour, `,"contains":"failed"`), tools.CoverageNone, 0},
		{"the gap, read in full", window(-5*time.Hour-30*time.Minute, -5*time.Hour, ""), tools.CoverageNone, 0},
		{"data the level rejects", window(-4*time.Hour, -3*time.Hour, `,"level":"ERROR"`), coverageData, 61},
		{"the gap, with contains: not known to be empty", window(-5*time.Hour-30*time.Minute, -5*time.Hour, `,"contains":"failed"`), coverageData, 0},
	} {
		cases++
		t.Run(c.name, func(t *testing.T) {
			out, res := run(t, tool, c.input, base, 1<<20)
			if out.Status != tools.NoEvidence || res.Coverage.Coverage != c.coverage || res.InWindow != c.inWindow ||
				res.SourceFirst != first || res.SourceLast != last {
				t.Fatalf("%s %+v, want NO_EVIDENCE, coverage %q, in_window %d, range %s – %s", out.Status, res.Coverage, c.coverage, c.inWindow, first, last)
			}
			if (c.coverage == tools.CoverageNone) != (out.EmptyWindow != "") {
				t.Errorf("empty window %q with coverage %q", out.EmptyWindow, c.coverage)
			}
			if c.coverage == tools.CoverageNone && !strings.Contains(out.EmptyWindow, "log source app covers "+first+" – "+last+"; nothing in the asked window") {
				t.Errorf("empty window %q does not give the source's range", out.EmptyWindow)
			}
		})
	}
}

package logs

import (
	"strings"
	"testing"
	"time"
)

// TestNoSilentNegative: a filter on a field the layout did not read never
// yields a confident "no errors". In three everyday formats (PostgreSQL's
// default prefix, Lambda's tab-separated lines, Envoy's default access log)
// the planted errors are counted; where a layout reads no level at all, a
// level filter's negative carries coverage "partial" and an account of the
// window (the release guard's missing data), never coverage "data"; and
// lines of Loghub's HPC shape the layout could not read are counted, never
// glued out of sight.
func TestNoSilentNegative(t *testing.T) {
	const window = `"start":"2026-03-14T14:00:00Z","end":"2026-03-14T14:30:00Z"`
	now := base.Add(time.Hour)
	for _, file := range []string{"postgres.log", "lambda.log", "envoy.log"} {
		t.Run(file, func(t *testing.T) {
			tool := newTool(t, Source{Name: "app", Paths: []string{copyFixture(t, t.TempDir(), file)}})
			out, res := run(t, tool, "{"+window+`,"level":"ERROR"}`, now, 1<<20)
			if res.Matched != 2 {
				t.Fatalf("level=ERROR: matched %d (%s, coverage %q, empty window %q), want the 2 planted errors", res.Matched, out.Status, res.Coverage.Coverage, out.EmptyWindow)
			}
		})
	}
	t.Run("no level read", func(t *testing.T) {
		// a stamp, then text without any level word: the layout reads no level
		p := writeFile(t, t.TempDir(), "app.log", "2026-03-14 14:01:00 payment gateway refused the card\n"+
			"2026-03-14 14:02:00 order 8812 could not be placed\n"+
			"2026-03-14 14:03:00 order 8813 placed\n", false)
		tool := newTool(t, Source{Name: "app", Paths: []string{p}})
		out, res := run(t, tool, "{"+window+`,"level":"ERROR"}`, now, 1<<20)
		if res.Matched != 0 || res.Coverage.Coverage != "partial" || !strings.Contains(out.EmptyWindow, "3 entries whose level") {
			t.Fatalf("level=ERROR over lines without a level: matched %d coverage %q empty window %q, want 0, partial and an account of the 3 unread entries", res.Matched, res.Coverage.Coverage, out.EmptyWindow)
		}
	})
	t.Run("hpc full partition", func(t *testing.T) {
		// Loghub HPC: "full partition" lines carry a negative flag
		p := writeFile(t, t.TempDir(), "hpc.log", "134681 node-246 unix.hw state_change.unavailable 1773496800 1 Component State Change: Component \\042alt0\\042 is in the unavailable state (HWID=1973)\n"+
			"2286759 full partition status 1773496900 -1 running\n"+
			"2286760 full partition status 1773497000 -1 running\n"+
			"2286761 full partition status 1773497100 1 running\n"+
			"134682 node-246 unix.hw state_change.available 1773497200 1 Component State Change: Component \\042alt0\\042 is in the available state (HWID=1973)\n", false)
		tool := newTool(t, Source{Name: "app", Paths: []string{p}})
		_, res := run(t, tool, "{"+window+`,"contains":"partition"}`, now, 1<<20)
		if res.Matched != 3 {
			t.Fatalf("contains partition: matched %d coverage %q, want the 3 full partition lines", res.Matched, res.Coverage.Coverage)
		}
		_, res = run(t, tool, `{"start":"2026-03-14T14:01:00Z","end":"2026-03-14T14:04:00Z"}`, now, 1<<20)
		if res.Matched != 2 || res.Coverage.Coverage != "data" {
			t.Fatalf("window holding 2 of them: matched %d coverage %q", res.Matched, res.Coverage.Coverage)
		}
	})
}

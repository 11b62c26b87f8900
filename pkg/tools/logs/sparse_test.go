package logs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/tools"
)

// sparseHugeLine writes n entries from 14:00 on, then one line that starts
// an entry and runs on, without a newline, into a hole of size bytes (a
// sparse file: no byte of the hole is written).
func sparseHugeLine(t *testing.T, dir string, n int, size int64) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"ts":"2026-03-14T14:%02d:%02d.000Z","level":"ERROR","msg":"timeout %d"}`+"\n", i/60, i%60, i)
	}
	b.WriteString(`{"ts":"2026-03-14T14:30:00.000Z","level":"ERROR","msg":"huge `)
	p := filepath.Join(dir, "huge.log")
	must(t, os.WriteFile(p, []byte(b.String()), 0o644))
	must(t, os.Truncate(p, int64(b.Len())+size))
	return p
}

// TestHugeSparseLine (issue 34 item 15): 301 entries in the window, then a
// line of 60 GiB without a newline (a hole). Sampling the file (layout,
// order, the source's range) never crosses the line, so the entries before
// it are read within the per-call time limit; the line's tail is then cut
// by the limit, and the window, not read to its end, is coverage partial
// with its reason, never a negative resting on entries not read.
func TestHugeSparseLine(t *testing.T) {
	p := sparseHugeLine(t, t.TempDir(), 301, 60<<30)
	tool, err := New([]Source{{Name: "app", Paths: []string{p}}})
	must(t, err)
	tool.limits.time = 2 * time.Second // the default is 5 s
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		input   string
		matched int
	}{
		{`"level":"ERROR"`, 301}, // the mapped scan
		// the chunked read around matches: the last entry, whose continuation
		// the huge line is, is judged where it ends, which the time limit
		// comes before
		{`"contains":"timeout"`, 300},
		{`"level":"DEBUG"`, 0}, // nothing matches: partial, never a negative
		{`"contains":"absentword"`, 0},
	} {
		c, err := tool.Canonical([]byte(`{"start":"2026-03-14T14:00:00Z","end":"2026-03-14T15:00:00Z",` + tc.input + `}`))
		must(t, err)
		out := tool.Execute(ctx, tools.Call{Input: c.Input, Now: base.Add(time.Hour)})
		res, ok := out.Result.(Result)
		if !ok {
			t.Fatalf("%s: %s %s %v", tc.input, out.Status, out.ErrorCode, out.Detail)
		}
		if res.Matched < tc.matched || res.Coverage.Coverage != tools.CoveragePartial || fmt.Sprint(res.TruncatedBy) != "["+limitTime+"]" {
			t.Errorf("%s: matched %d in_window %d coverage %s truncated_by %v", tc.input, res.Matched, res.InWindow, res.Coverage.Coverage, res.TruncatedBy)
		}
		if tc.matched == 0 && (out.Status != tools.NoEvidence || !strings.Contains(out.EmptyWindow, "truncated_by time")) {
			t.Errorf("%s: %s, the empty window's account %q", tc.input, out.Status, out.EmptyWindow)
		}
	}
}

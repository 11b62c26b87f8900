package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 34 item 15: a log whose 301 entries in the window are followed by
// a line of 60 GiB without a newline (a sparse file: its hole is never
// written). `tools call query_logs` reads the entries within its 5 s limit
// (sampling the file never crosses the line, nothing pre-faults the whole
// window) and says the window was not read to its end: coverage partial,
// truncated_by time, and a query that matches nothing is never a negative
// resting on entries not read.
func TestHugeSparseLineQueryLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "127.0.0.1:1")
	var b strings.Builder
	for i := range 301 {
		fmt.Fprintf(&b, `{"ts":"2026-03-14T14:%02d:%02d.000Z","level":"ERROR","msg":"timeout %d"}`+"\n", i/60, i%60, i)
	}
	b.WriteString(`{"ts":"2026-03-14T14:30:00.000Z","level":"ERROR","msg":"huge `)
	p := filepath.Join(e.dir, "huge.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, int64(b.Len())+60<<30); err != nil {
		t.Skip("no sparse file here:", err)
	}
	cfg := logSourceConfig(t, e, "", p)
	for _, tc := range []struct {
		input   string
		matched int
	}{
		{`"level":"ERROR"`, 301},
		{`"level":"DEBUG"`, 0},
	} {
		r := e.run(t, append(cfg, "-o", "json", "tools", "call", "query_logs", `{"source":"app","start":"2026-03-14T14:00:00Z","end":"2026-03-14T15:00:00Z",`+tc.input+`}`)...)
		var obs struct {
			Status string `json:"evidence_status"`
			Result struct {
				Matched     int      `json:"matched"`
				InWindow    int      `json:"in_window"`
				Coverage    string   `json:"coverage"`
				TruncatedBy []string `json:"truncated_by"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &obs); err != nil {
			t.Fatalf("%s: decode: %v\n%s", tc.input, err, r)
		}
		res := obs.Result
		if res.Matched != tc.matched || res.InWindow < 301 || res.Coverage != "partial" || fmt.Sprint(res.TruncatedBy) != "[time]" {
			t.Errorf("%s: %s matched %d in_window %d coverage %s truncated_by %v\n%s", tc.input, obs.Status, res.Matched, res.InWindow, res.Coverage, res.TruncatedBy, r)
		}
	}
}

package e2e

import (
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
	Matched       int    `json:"matched"`
	Coverage      string `json:"coverage"`
	TimeAmbiguous int    `json:"time_ambiguous"`
	Unplaced      int    `json:"unplaced"`
	SkippedCount  int    `json:"skipped_count"`
	Entries       []struct {
		Time    string         `json:"time"`
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

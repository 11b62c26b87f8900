package timeline_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// BenchmarkBuildDemo6h builds a 6-hour timeline over the built-in demo's
// log sources, every read through the real query_logs adapter as the
// build_timeline tool makes it (issue 39: under a second on this machine,
// memory bounded by the reads' limits).
func BenchmarkBuildDemo6h(b *testing.B) {
	ws, err := demo.Materialize(context.Background(), filepath.Join(b.TempDir(), "demo"))
	if err != nil {
		b.Fatal(err)
	}
	lt, err := logs.New(ws.LogSources)
	if err != nil {
		b.Fatal(err)
	}
	var srcs []timeline.LogSource
	for _, s := range ws.LogSources {
		srcs = append(srcs, timeline.LogSource{Name: s.Name, MaxWindow: s.MaxWindow})
	}
	tool, err := timeline.NewTool([]tools.Adapter{lt}, srcs, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := tool.Canonical(json.RawMessage(`{"since":"6h"}`))
	if err != nil {
		b.Fatal(err)
	}
	call := tools.Call{RunID: "r_bench", ToolCallID: "call_1", Tool: timeline.ToolName, Input: c.Input, Now: demo.Now(), MaxBytes: 1 << 20}
	b.ReportAllocs()
	var events int
	cpu0 := cpuTime(b)
	for b.Loop() {
		out := tool.Execute(context.Background(), call)
		if out.Status != tools.EvidenceFound {
			b.Fatalf("%s %s %v", out.Status, out.ErrorCode, out.Detail)
		}
		events = len(out.Result.(timeline.Timeline).Events)
	}
	b.ReportMetric(float64(events), "events")
	// the process's CPU time a timeline costs: on a machine shared with
	// other jobs, wall time measures the queue as much as the work
	b.ReportMetric(float64((cpuTime(b)-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

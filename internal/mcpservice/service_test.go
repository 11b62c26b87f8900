package mcpservice

import (
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// A runbook's resource name is its path inside the one configured root;
// with several roots (no sole root) the source keeps the root's id.
func TestRunbookName(t *testing.T) {
	for _, tt := range []struct{ root, source, want string }{
		{"runbooks", "runbooks/en/disk-full.md", "en/disk-full.md"},
		{"runbooks", "runbooks/a.md", "a.md"},
		{"runbooks", "runbooks-2/a.md", "runbooks-2/a.md"},
		{"", "runbooks/a.md", "runbooks/a.md"},
		{"docs", "docsx/a.md", "docsx/a.md"},
	} {
		if got := RunbookName(tt.root, tt.source); got != tt.want {
			t.Errorf("RunbookName(%q, %q) = %q, want %q", tt.root, tt.source, got, tt.want)
		}
	}
}

// A tool call's finished parts are progress: each build_timeline detector
// one more of the coverage lines the call gives, said in words through the
// egress door (a secret in an event's summary never reaches the client);
// during a diagnosis the detector is a progress at the current count.
func TestToolStepsAreProgress(t *testing.T) {
	at := time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)
	step := func(det string, es ...timeline.Event) harness.ToolCallProgress {
		return harness.ToolCallProgress{ToolCallID: "call_1", Tool: timeline.ToolName,
			Step: timeline.Detected{Lines: 3, Coverage: timeline.Coverage{Detector: det, Source: "app", Status: timeline.Read}, Events: es}}
	}
	events := []harness.Event{
		step(timeline.DetectBursts, timeline.Event{At: at, Kind: timeline.ErrorBurst, Service: "payment-service", Summary: "errors rose from 0 to 14 a minute: vault login password=hunter2 failed"}),
		harness.ToolCallProgress{ToolCallID: "call_2", Tool: "other", Step: otherStep{}},
		step(timeline.DetectNewError),
		step(timeline.DetectRestarts),
	}
	var got []mcpserver.Progress
	sink := stepSink(func(p mcpserver.Progress) { got = append(got, p) })
	for _, ev := range events {
		sink.Emit(ev)
	}
	want := []string{"error_burst on app: read, 1 event, first 14:00:00 payment-service: errors rose from 0 to 14 a minute: vault login password=", "new_error on app: read, no event", "restart on app: read, no event"}
	if len(got) != len(want) {
		t.Fatalf("%d progress reports, want one per detector: %+v", len(got), got)
	}
	for i, p := range got {
		msg := p.Message.String()
		if p.Used != i+1 || p.Max != 3 || !strings.HasPrefix(msg, want[i]) || strings.Contains(msg, "hunter2") {
			t.Errorf("report %d: %d/%d %q; want %d/3 %q…, masked", i+1, p.Used, p.Max, msg, i+1, want[i])
		}
	}

	got = nil
	sink = progressSink(func(p mcpserver.Progress) { got = append(got, p) })
	sink.Emit(harness.BudgetChanged{Usage: runrecord.Usage{ModelCalls: 1, ToolCalls: 1}, Budget: harness.Budget{MaxModelCalls: 8, MaxToolCalls: 6}})
	sink.Emit(events[0])
	if len(got) != 2 || got[1].Used != 2 || got[1].Max != 14 || !strings.HasPrefix(got[1].Message.String(), "tool build_timeline: error_burst on app") || strings.Contains(got[1].Message.String(), "hunter2") {
		t.Errorf("a diagnosis's detector: %+v; want a report at 2/14 naming the tool and the detector, masked", got)
	}
	if stepSink(nil) != nil {
		t.Error("a call nobody watches gets a sink")
	}
}

// otherStep is a step of a tool this service does not know.
type otherStep struct{}

func (otherStep) StepOf() string { return "other" }

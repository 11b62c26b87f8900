package timeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/frozen"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// firingAlerts is read_alerts answering as of now.
type firingAlerts struct{ res timeline.AlertsResult }

func (firingAlerts) Definition() model.Tool { return timeline.AlertsDefinition() }
func (firingAlerts) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return timeline.AlertsCanonical(in)
}
func (f firingAlerts) Execute(context.Context, tools.Call) tools.Outcome {
	return tools.Outcome{Status: tools.EvidenceFound, Result: f.res}
}

// TestFreezeTimelineAlerts: the alerts a run's timeline placed are frozen
// (Alertmanager forgets them once resolved), and eval's build_timeline,
// given the pack's recorded read_alerts, places them again, the same
// events; a pack of a run that built no timeline holds nothing of it.
func TestFreezeTimelineAlerts(t *testing.T) {
	now := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	live := firingAlerts{res: timeline.AlertsResult{Total: 3, Alerts: []timeline.FiringAlert{
		{Name: "DiskFilling", StartsAt: now.Add(-30 * time.Hour), Severity: "warning"}, // before the window
		{Name: "HighLatency", Fingerprint: "a1", StartsAt: now.Add(-58 * time.Minute), Service: "checkout", Severity: "critical", Summary: "p99 over 2s: see the runbook"},
		{Name: "ErrorsUp", Fingerprint: "b2", StartsAt: now.Add(-40 * time.Minute), Service: "payments"},
	}}}
	tool, err := timeline.NewTool([]tools.Adapter{live}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := tools.Call{ToolCallID: "call_7", Tool: timeline.ToolName, Input: json.RawMessage(`{"since":"2h"}`), Now: now, MaxBytes: 1 << 20}
	out := tool.Execute(context.Background(), call)
	orig, err := json.Marshal(out.Result)
	if err != nil || out.Status != tools.EvidenceFound {
		t.Fatalf("%s %v", out.Status, out.Detail)
	}
	obs, err := json.Marshal(map[string]any{"evidence_status": out.Status, "result": json.RawMessage(orig)})
	if err != nil {
		t.Fatal(err)
	}
	inv := runrecord.Invocation{ToolCallID: "call_7", Tool: timeline.ToolName, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: tools.EvidenceFound, Observation: obs}
	cfg := config.Defaults()
	p := &frozen.Pack{Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{inv}}, Config: &cfg, Dir: t.TempDir()}
	if reads, err := (Source{}).Inner(p); err != nil || len(reads) != 0 {
		t.Fatalf("a timeline of alerts alone reads no logs or metrics: %v %v", reads, err)
	}
	if err := (Source{}).Freeze(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	served, err := (Source{}).Replay(frozen.Replay{Dir: p.Dir})
	if err != nil || served == nil {
		t.Fatalf("replay: %v %v", served, err)
	}
	srv, err := served.Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wrapped := srv.(frozen.Wrapper).Wrap(nil)
	if len(wrapped) != 1 {
		t.Fatalf("want the pack's build_timeline, got %d tools", len(wrapped))
	}
	again := wrapped[0].Execute(context.Background(), call)
	replayed, err := json.Marshal(again.Result)
	if err != nil || string(replayed) != string(orig) {
		t.Errorf("the pack's timeline (%v):\n%s\nwant\n%s", err, replayed, orig)
	}
	var tl timeline.Timeline
	if err := json.Unmarshal(orig, &tl); err != nil || len(tl.Events) != 2 {
		t.Errorf("the original timeline places the 2 alerts of its window: %s", orig)
	}

	none := &frozen.Pack{Run: &runstore.RunDetail{}, Config: &cfg, Dir: t.TempDir()}
	if err := (Source{}).Freeze(context.Background(), none); err != nil || len(none.Lines()) != 0 {
		t.Errorf("a run without a timeline: %v %q", err, none.Lines())
	}
	if s, err := (Source{}).Replay(frozen.Replay{Dir: none.Dir}); s != nil || err != nil {
		t.Errorf("a pack without the file: %v %v", s, err)
	}
}

// A build_timeline that read a Kubernetes source cannot be packed: its
// reads are not the run's calls, and a pack answers recorded calls only;
// eval pack says so rather than pack a timeline eval cannot build again.
func TestFreezeRefusesKubernetesReads(t *testing.T) {
	res := `{"window":{"start":"2026-11-20T14:00:00Z","end":"2026-11-20T15:00:00Z"},"events":[],` +
		`"coverage":[{"detector":"k8s_deploy","source":"prod","status":"read","tool_call_id":"call_7"}]}`
	inv := runrecord.Invocation{ToolCallID: "call_7", Tool: timeline.ToolName, Kind: runrecord.KindEvidence, Status: runrecord.InvocationCompleted,
		EvidenceStatus: tools.NoEvidence, Observation: json.RawMessage(`{"evidence_status":"NO_EVIDENCE","result":` + res + `}`)}
	cfg := config.Defaults()
	p := &frozen.Pack{Run: &runstore.RunDetail{Invocations: []runrecord.Invocation{inv}}, Config: &cfg, Dir: t.TempDir()}
	if reads, err := (Source{}).Inner(p); err == nil || !strings.Contains(err.Error(), `Kubernetes source "prod"`) {
		t.Errorf("Inner = %v, %v; want a refusal naming the Kubernetes source", reads, err)
	}
}

package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/defaults"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/logs"
)

// The tests of this file kill or explain the mutants gremlins left in
// boundary.go (issue 34, mutate34c, docs/MUTATION.md), and hold issue 35's
// leftover: a call that was evaluated and found nothing awaits nothing.

// realLogs is query_logs over one real JSON log file of three payment
// entries (two ERROR "connection is not available", one INFO), and a run
// of budget bud whose clock is half an hour after them.
func realLogs(t *testing.T, bud Budget) (*Toolset, *RunContext) {
	t.Helper()
	dir := t.TempDir()
	lines := `{"ts":"2026-12-04T14:01:00Z","level":"ERROR","service":"payment","msg":"connection is not available, request timed out after 3000ms"}
{"ts":"2026-12-04T14:02:00Z","level":"INFO","service":"payment","msg":"charge accepted"}
{"ts":"2026-12-04T14:03:00Z","level":"ERROR","service":"payment","msg":"connection is not available, request timed out after 3000ms"}
`
	if err := os.WriteFile(filepath.Join(dir, "payment.log"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	src := defaults.Of[logs.Source]()
	src.Name, src.Paths, src.Location = "app", []string{filepath.Join(dir, "*.log")}, time.UTC
	tool, err := logs.New([]logs.Source{src})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := NewToolset([]tools.Adapter{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s_1", RunID: "r_1", Budget: bud,
		Clock: FixedClock{T: time.Date(2026, 12, 4, 14, 30, 0, 0, time.UTC)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Release)
	return reg, rc
}

// callObs is what the model reads of one observation.
type callObs struct {
	EvidenceStatus string `json:"evidence_status"`
	Control        string `json:"control"`
	ErrorCode      string `json:"error_code"`
	Expected       string `json:"expected_tool_call_id"`
}

// handleCall hands the boundary one call of tool with arguments args and
// reads the observation.
func handleCall(t *testing.T, b *Boundary, tool, id, args string) callObs {
	t.Helper()
	out := b.Handle(model.ToolCall{ID: id, Name: tool, Arguments: json.RawMessage(args)})
	var o callObs
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("%s: %s: %v", id, out, err)
	}
	return o
}

// A call that carries the evaluation of the EVIDENCE_FOUND call before it
// and itself finds nothing leaves no call awaiting evaluation: the next
// call, without previous_observation, runs (issue 35: with evaluate's
// `b.pending = ""` removed it was asked to evaluate the first call again).
func TestEvaluatedCallFindingNothingLeavesNothingPending(t *testing.T) {
	reg, rc := realLogs(t, DefaultBudget())
	b := NewBoundary(rc, reg, 16384)
	handle := func(id, args string) callObs { return handleCall(t, b, logs.ToolName, id, args) }
	if o := handle("c1", `{"input":{"level":"ERROR","since":"1h"}}`); o.EvidenceStatus != string(tools.EvidenceFound) {
		t.Fatalf("c1: %+v, want EVIDENCE_FOUND", o)
	}
	if o := handle("c2", `{"previous_observation":{"tool_call_id":"c1","evaluation":"GAINED"},"input":{"start":"2026-12-04T14:10:00Z","end":"2026-12-04T14:20:00Z"}}`); o.EvidenceStatus != string(tools.NoEvidence) || o.Control != "" {
		t.Fatalf("c2: %+v, want NO_EVIDENCE", o)
	}
	if o := handle("c3", `{"input":{"level":"INFO","since":"1h"}}`); o.EvidenceStatus != string(tools.EvidenceFound) || o.Control != "" || o.ErrorCode != "" {
		t.Fatalf("c3 after an evaluated call that found nothing: %+v, want it run (EVIDENCE_FOUND), no repair", o)
	}
	invs := b.Invocations()
	if len(invs) != 3 || invs[1].Evaluated != "c1" || invs[1].Evaluation != Gained || invs[2].Evaluated != "" {
		t.Fatalf("records %+v", invs)
	}
	// The records are numbered from 1 in order, and only the call that
	// found nothing carries the account of its empty window.
	for i, inv := range invs {
		if inv.Seq != i+1 {
			t.Errorf("%s: seq %d, want %d", inv.ToolCallID, inv.Seq, i+1)
		}
		if empty := inv.EvidenceStatus == tools.NoEvidence; (inv.EmptyWindow != "") != empty {
			t.Errorf("%s (%s): empty window %q", inv.ToolCallID, inv.EvidenceStatus, inv.EmptyWindow)
		}
	}
	if s := b.Snapshot(""); s.Gained != 1 || s.NoGain != 0 {
		t.Fatalf("gained %d, no gain %d; want 1, 0", s.Gained, s.NoGain)
	}
}

// A projection that is no JSON object, or one past the observation limit,
// is INTERNAL, and the record says which of the two it was.
func TestProjectionFailureDetail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tool   tools.Adapter
		detail string
	}{
		{"not an object", resultTool{result: "just text"}, "projection is not a JSON object"},
		{"past the limit", sizedTool{over: 1, got: new(int)}, "exceeds the observation limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewToolset([]tools.Adapter{tc.tool}, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := NewBoundary(newRC(t, DefaultBudget()), reg, 1000)
			name := tc.tool.Definition().Name
			out := b.Handle(model.ToolCall{ID: "c1", Name: name, Arguments: json.RawMessage(`{"input":{}}`)})
			if !strings.Contains(out, `"error_code":"`+tools.CodeInternal+`"`) {
				t.Fatalf("observation %s, want INTERNAL", out)
			}
			if inv := b.Invocations()[0]; !strings.Contains(inv.Detail, tc.detail) {
				t.Fatalf("detail %q, want it to say %q", inv.Detail, tc.detail)
			}
		})
	}
}

// resultTool answers EVIDENCE_FOUND with a fixed result.
type resultTool struct{ result any }

func (resultTool) Definition() model.Tool {
	return model.Tool{Name: "fixed", Description: "fixed", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (resultTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: "fixed"}, nil
}
func (r resultTool) Execute(context.Context, tools.Call) tools.Outcome {
	return tools.Outcome{Status: tools.EvidenceFound, Result: r.result}
}

// RequireStop makes the next tool call STOP_REQUIRED, keeps the first
// reason when asked again and reports it once.
func TestRequireStop(t *testing.T) {
	var stops []runrecord.StopReason
	rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s_1", RunID: "r_1", Budget: DefaultBudget(),
		Events: SinkFunc(func(ev Event) {
			if s, ok := ev.(StopRequired); ok {
				stops = append(stops, s.Reason)
			}
		})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Release)
	reg, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoundary(rc, reg, 8192)
	if got := b.StopRequired(); got != "" {
		t.Fatalf("stop %q before any was required", got)
	}
	b.RequireStop(runrecord.StopSaturated)
	b.RequireStop(runrecord.StopToolBudget)
	if got := b.StopRequired(); got != runrecord.StopSaturated {
		t.Fatalf("stop %q, want the first reason %s", got, runrecord.StopSaturated)
	}
	if len(stops) != 1 || stops[0] != runrecord.StopSaturated {
		t.Fatalf("StopRequired events %v, want one %s", stops, runrecord.StopSaturated)
	}
	if o := handleCall(t, b, "echo", "c1", `{"input":{}}`); o.Control != runrecord.ControlStop || o.EvidenceStatus != "" {
		t.Fatalf("call after RequireStop: %+v, want STOP_REQUIRED", o)
	}
}

// An input the tool refuses (query_logs given a member it does not know)
// is an evidence step that ended INVALID_INPUT and takes a call of the
// budget; once the budget is spent the next call is STOP_REQUIRED and the
// run's stop reason is the tool budget.
func TestInvalidInputTakesACall(t *testing.T) {
	bud := DefaultBudget()
	bud.MaxToolCalls = 2
	reg, rc := realLogs(t, bud)
	b := NewBoundary(rc, reg, 16384)
	handle := func(id, args string) callObs { return handleCall(t, b, logs.ToolName, id, args) }
	for _, id := range []string{"c1", "c2"} {
		if o := handle(id, `{"input":{"bogus":1,"since":"1h"}}`); o.EvidenceStatus != string(tools.StatusError) || o.ErrorCode != tools.CodeInvalidInput || o.Control != "" {
			t.Fatalf("%s: %+v, want ERROR INVALID_INPUT", id, o)
		}
	}
	if o := handle("c3", `{"input":{"level":"ERROR","since":"1h"}}`); o.Control != runrecord.ControlStop {
		t.Fatalf("c3 past the budget: %+v, want STOP_REQUIRED", o)
	}
	if got := b.StopRequired(); got != runrecord.StopToolBudget {
		t.Fatalf("stop %q, want %s", got, runrecord.StopToolBudget)
	}
	invs := b.Invocations()
	if len(invs) != 3 || invs[0].Kind != runrecord.KindEvidence || invs[0].Status != StatusCompleted ||
		invs[0].ErrorCode != tools.CodeInvalidInput || !strings.Contains(invs[0].Detail, "bogus") ||
		invs[2].Kind != runrecord.KindControl || invs[2].Status != StatusRefused {
		t.Fatalf("records %+v", invs)
	}
}

package usecase

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/demo"
	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/timeline"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The agent, through either model wire, calls build_timeline first for a
// question naming a time, cites it, and the published diagnosis carries
// the timeline it used: the demo's error burst at 14:00, citing the call.
func TestAgentBuildsTheTimelineFirst(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		srv := providertest.Start(t, prov)
		// demoDeps offers build_timeline over the demo's log source
		d, _, _ := demoDeps(t, srv.Client())
		draft := `{"conclusion":{"summary":"Errors burst at 14:00 after payment-service restarted at 13:58.","root_cause":"payment-service's connection pool stopped serving after its 13:58 restart.","confidence":"MEDIUM"},` +
			`"analysis":[{"type":"FINDING","claim":"The timeline shows payment-service restarting at 13:58:30 and an error burst from 14:00.","scope":"demo logs, 13:00-15:00","tool_call_ids":["call_t1"]}],` +
			`"action_plan":[{"priority":"P1","step":"Read payment-service's start-up logs.","risk":"LOW"}],"recommendations":[],"limitations":{"scope":"the demo logs 13:00-15:00","missing_info":[]}}`
		srv.Script(
			ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_t1", Name: timeline.ToolName, Args: `{"input":{"since":"2h"}}`}}},
			ollamatest.Turn{Content: []string{draft}},
			ollamatest.Turn{Content: []string{`{"verdict":"SUPPORTED","reasons":["the finding restates the timeline"]}`}},
		)
		out, err := d.Diagnose(context.Background(), DiagnoseRequest{Query: demo.Query})
		if err != nil {
			t.Fatal(err)
		}
		if out.ReleaseOutcome != runrecord.OutcomeSuccess {
			t.Fatalf("outcome %s %+v\n%s", out.ReleaseOutcome, out.Error, out.Answer)
		}
		reqs := srv.ChatRequests()
		if len(reqs) < 2 {
			t.Fatalf("%d model requests", len(reqs))
		}
		offered := false
		for _, tool := range reqs[0].Tools {
			offered = offered || tool.Function.Name == timeline.ToolName
		}
		if !offered || !strings.Contains(reqs[0].Messages[0].Content, "call `build_timeline` first") {
			t.Fatalf("the first request does not offer build_timeline or ask for it first")
		}
		var toolMsg string
		for _, m := range reqs[1].Messages {
			if m.Role == "tool" {
				toolMsg = m.Content
			}
		}
		if !strings.Contains(toolMsg, `"kind":"error_burst"`) || !strings.Contains(toolMsg, `"tool_call_id":"call_t1"`) {
			t.Fatalf("the model did not receive the timeline: %s", toolMsg)
		}
		tl := out.Timeline
		if tl == nil {
			t.Fatal("the published diagnosis carries no timeline")
		}
		burst := false
		for _, e := range tl.Events {
			if e.ToolCallID != "call_t1" {
				t.Errorf("event %+v does not cite the call", e)
			}
			if e.Kind == timeline.ErrorBurst && e.At.Sub(time.Date(2026, 11, 28, 14, 0, 0, 0, time.UTC)).Abs() <= time.Minute {
				burst = true
			}
		}
		if !burst || tl.RunID != out.RunID || !tl.Window.End.Equal(demo.Now()) {
			t.Errorf("timeline %+v: want the 14:00 burst, this run, the window up to the demo's clock", tl)
		}
		raw, err := json.Marshal(out)
		if err != nil || !strings.Contains(string(raw), `"timeline":{"run_id":"`+out.RunID) {
			t.Errorf("diagnose -o json does not carry the timeline: %s", raw)
		}
		if len(out.Checks) != 1 || out.Checks[0].Tool != timeline.ToolName || out.Checks[0].EvidenceStatus != string(tools.EvidenceFound) {
			t.Errorf("checks %+v: want the one build_timeline call", out.Checks)
		}
	})
}

package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/superbiz/superbiz/internal/model/replay"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// BenchmarkHarnessRound measures the harness and agent overhead of one
// model round with one tool call, the model being a zero-latency replay.
// It reports ns/round and allocs/toolcall (the whole run's allocations,
// model included, divided by its tool calls).
func BenchmarkHarnessRound(b *testing.B) {
	const rounds = 6
	var responses []model.Response
	prev := ""
	for i := 1; i <= rounds; i++ {
		id := fmt.Sprintf("call_%08d", i)
		args := fmt.Sprintf(`{"input":{"q":"found %d"}}`, i)
		if prev != "" {
			args = fmt.Sprintf(`{"previous_observation":{"tool_call_id":%q,"evaluation":"GAINED"},"input":{"q":"found %d"}}`, prev, i)
		}
		responses = append(responses, model.Response{Message: model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: id, Name: "query_logs", Arguments: json.RawMessage(args)}}}, Usage: model.Usage{PromptTokens: 100, CompletionTokens: 10}})
		prev = id
	}
	responses = append(responses, model.Response{Message: model.Message{Role: model.RoleAssistant, Content: conclusionDraft(prev)}})
	reg, err := harness.NewToolset([]tools.Adapter{&stubTool{name: "query_logs"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	budget := harness.DefaultBudget()
	budget.MaxModelCalls, budget.MaxToolCalls = rounds+2, rounds
	cfg := Config{Tools: reg, Limits: DefaultLimits(), Language: "en"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := &stubTool{name: "query_logs"}
		cfg.Tools, _ = harness.NewToolset([]tools.Adapter{st}, nil)
		cfg.Model = replay.New(responses)
		rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s", RunID: "r", Budget: budget, Events: &harness.Collector{}, Recorder: &memRecorder{}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := Run(rc, cfg, Input{Query: "payment timeouts on order-service"})
		b.StopTimer()
		if res.Draft == nil {
			b.Fatalf("no draft: reason %s: %v", res.StopReason, res.Err)
		}
		rc.Release()
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(rounds+1)), "ns/round")
}

// BenchmarkBoundaryToolCall isolates one tool call through the ToolBoundary
// (envelope, protocol, canonical input, execution, projection, redaction,
// record, events) with a zero-latency adapter.
func BenchmarkBoundaryToolCall(b *testing.B) {
	reg, err := harness.NewToolset([]tools.Adapter{&stubTool{name: "query_logs"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	budget := harness.DefaultBudget()
	budget.MaxToolCalls = 1 << 30
	rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s", RunID: "r", Budget: budget, Events: harness.SinkFunc(func(harness.Event) {})})
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Release()
	bd := harness.NewBoundary(rc, reg, 8192)
	calls := make([]model.ToolCall, 1024)
	for i := range calls {
		calls[i] = model.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "query_logs", Arguments: json.RawMessage(fmt.Sprintf(`{"input":{"q":"none %d"}}`, i))}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(calls) == 0 && i > 0 {
			b.StopTimer()
			bd = harness.NewBoundary(rc, reg, 8192)
			b.StartTimer()
		}
		bd.Handle(calls[i%len(calls)])
	}
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// stubTool is a small in-test evidence adapter: its business input is
// {"q": "..."} and the answer depends on q's prefix (found…, none…, fail…,
// big…), so each scenario can pick EVIDENCE_FOUND, NO_EVIDENCE or an error.
type stubTool struct {
	name  string
	mu    sync.Mutex
	calls []tools.Call
}

func (s *stubTool) Definition() model.Tool {
	return model.Tool{Name: s.name, Description: "test tool " + s.name,
		Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)}
}

func (s *stubTool) Canonical(input json.RawMessage) (tools.Canonical, error) {
	var in struct {
		Q string `json:"q"`
	}
	if err := jsonv2.Unmarshal(input, &in, jsonv2.RejectUnknownMembers(true)); err != nil {
		return tools.Canonical{}, tools.InvalidInput("%v", err)
	}
	if in.Q == "" {
		return tools.Canonical{}, tools.InvalidInput("q is required")
	}
	b, _ := json.Marshal(in)
	return tools.Canonical{Input: b, Summary: "q=" + in.Q}, nil
}

func (s *stubTool) Execute(ctx context.Context, call tools.Call) tools.Outcome {
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
	var in struct{ Q string }
	_ = json.Unmarshal(call.Input, &in)
	switch {
	case strings.HasPrefix(in.Q, "found"):
		return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"hits": []string{in.Q + " matched"}}}
	case strings.HasPrefix(in.Q, "none"):
		return tools.Outcome{Status: tools.NoEvidence, Result: map[string]any{"hits": []string{}}}
	case strings.HasPrefix(in.Q, "big"):
		return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"blob": strings.Repeat("x", 3000)}}
	case strings.HasPrefix(in.Q, "slow"):
		<-ctx.Done()
		return tools.Failed(tools.CodeTimeout, ctx.Err())
	}
	return tools.Failed(tools.CodeUnavailable, errors.New("dial tcp 10.0.0.7:3306: connect refused for ro:hunter2@tcp(10.0.0.7:3306)/orders"))
}

func (s *stubTool) received() []tools.Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tools.Call(nil), s.calls...)
}

// memRecorder is the canonical audit kept in memory.
type memRecorder struct {
	mu     sync.Mutex
	rounds []harness.ModelRound
	invs   []harness.Invocation
}

func (m *memRecorder) RecordModelRound(_ context.Context, _ string, r harness.ModelRound) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rounds = append(m.rounds, r)
	return nil
}

func (m *memRecorder) RecordInvocation(_ context.Context, _ string, inv harness.Invocation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.invs = append(m.invs, inv)
	return nil
}

type fixture struct {
	t      *testing.T
	srv    *providertest.Server
	rc     *harness.RunContext
	cfg    Config
	logs   *stubTool
	kb     *stubTool
	rec    *memRecorder
	events *harness.Collector
}

type opt func(*harness.Budget, *Limits)

// newFixture wires the agent to a scripted server of provider p through
// the real adapter of that provider.
func newFixture(t *testing.T, p providertest.Provider, opts ...opt) *fixture {
	t.Helper()
	b := harness.DefaultBudget()
	l := DefaultLimits()
	for _, o := range opts {
		o(&b, &l)
	}
	srv := providertest.Start(t, p)
	m := srv.Client()
	f := &fixture{t: t, srv: srv, logs: &stubTool{name: "query_logs"}, kb: &stubTool{name: "lookup_knowledge"}, rec: &memRecorder{}, events: &harness.Collector{}}
	reg, err := harness.NewToolset([]tools.Adapter{f.kb, f.logs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.rc, err = harness.NewRunContext(context.Background(), harness.RunOptions{
		SessionID: "s_test", RunID: "r_test", Budget: b,
		Clock: harness.FixedClock{T: time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)}, Events: f.events, Recorder: f.rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.rc.Release)
	f.cfg = Config{Model: m, Tools: reg, Limits: l, Language: "en"}
	return f
}

func (f *fixture) run(query string) Result {
	return Run(f.rc, f.cfg, Input{Query: query})
}

// call builds a scripted tool call with an envelope.
func call(id, tool, q string, prev ...string) ollamatest.ToolCall {
	qj, _ := json.Marshal(q)
	args := fmt.Sprintf(`{"input":{"q":%s}}`, qj)
	if len(prev) == 2 {
		args = fmt.Sprintf(`{"previous_observation":{"tool_call_id":%q,"evaluation":%q},"input":{"q":%s}}`, prev[0], prev[1], qj)
	}
	return ollamatest.ToolCall{ID: id, Name: tool, Args: args}
}

func toolTurn(calls ...ollamatest.ToolCall) ollamatest.Turn {
	return ollamatest.Turn{ToolCalls: calls, PromptEvalCount: 100, EvalCount: 20}
}

func textTurn(s string) ollamatest.Turn {
	// Several chunks, as a streaming model sends them.
	mid := len(s) / 2
	return ollamatest.Turn{Content: []string{s[:mid], s[mid:]}, PromptEvalCount: 120, EvalCount: 60}
}

func conclusionDraft(ids ...string) string {
	return fmt.Sprintf(`{"conclusion":{"summary":"pool exhausted","root_cause":"slow query holds connections","confidence":"HIGH"},"analysis":[{"type":"FINDING","claim":"pool 50/50 with waiters","tool_call_ids":%s}],"action_plan":[{"priority":"P0","step":"kill the slow query","risk":"MEDIUM"}],"recommendations":["add an index"],"limitations":{"scope":"logs 14:00-15:00","missing_info":[]}}`, jsonList(ids))
}

func noConclusionDraft(ids ...string) string {
	analysis := "[]"
	if len(ids) > 0 {
		analysis = fmt.Sprintf(`[{"type":"NEGATIVE_OBSERVATION","claim":"no pool errors","scope":"query_logs 14:00-15:00","tool_call_ids":%s}]`, jsonList(ids))
	}
	return fmt.Sprintf(`{"conclusion":null,"analysis":%s,"action_plan":[],"recommendations":[],"limitations":{"scope":"what was checked","missing_info":["the affected service","the time of the first error"]}}`, analysis)
}

func jsonList(ids []string) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// toolMessages returns the tool messages of the i-th chat request.
func toolMessages(req ollamatest.ChatRequest) []ollamatest.Message {
	var out []ollamatest.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// obsOf decodes an observation the model was sent.
func obsOf(t *testing.T, content string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(content), &m); err != nil {
		t.Fatalf("observation is not JSON: %v: %s", err, content)
	}
	return m
}

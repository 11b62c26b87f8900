package release

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// stubTool is a small in-test evidence adapter: its business input is
// {"q": "..."} and the answer depends on q's prefix (found…, none…, else an
// UNAVAILABLE error). lookup_knowledge answers with runbook documents.
type stubTool struct{ name string }

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

// Tally says a result's matched count, as query_logs does.
func (s *stubTool) Tally(result json.RawMessage) string {
	return tools.TallyCount(result, "matched", "matched", "matched")
}

type doc struct {
	DocID   string  `json:"doc_id"`
	Title   string  `json:"title"`
	Source  string  `json:"source"`
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"`
}

func (s *stubTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	var in struct{ Q string }
	_ = json.Unmarshal(call.Input, &in)
	switch {
	case strings.HasPrefix(in.Q, "found") && s.name == knowledgeTool:
		return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"documents": []doc{
			{DocID: "runbooks/mysql-pool.md#exhaustion", Title: "MySQL pool exhaustion", Source: "runbooks/mysql-pool.md", Snippet: "when active = max and waiters grow…", Score: -3.2},
			{DocID: "runbooks/payment.md#timeouts", Title: "Payment timeouts", Source: "runbooks/payment.md", Snippet: "504 from the gateway…", Score: -2.1},
		}}}
	case strings.HasPrefix(in.Q, "found"):
		return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"matched": 42, "entries": []string{in.Q + ": pool 50/50 active, 17 waiting"}}}
	case strings.HasPrefix(in.Q, "none"):
		return tools.Outcome{Status: tools.NoEvidence, Result: map[string]any{"matched": 0, "entries": []string{}}}
	}
	return tools.Failed(tools.CodeUnavailable, errors.New("dial tcp 127.0.0.1:3306: connect: connection refused"))
}

// memRecorder is the canonical audit kept in memory.
type memRecorder struct {
	rounds []harness.ModelRound
	fail   bool
}

func (m *memRecorder) RecordModelRound(_ context.Context, _ string, r harness.ModelRound) error {
	if m.fail {
		return errors.New("disk full")
	}
	m.rounds = append(m.rounds, r)
	return nil
}

func (m *memRecorder) RecordInvocation(context.Context, string, harness.Invocation) error {
	return nil
}

type fixture struct {
	t        *testing.T
	srv      *providertest.Server
	rc       *harness.RunContext
	reg      *harness.Toolset
	boundary *harness.Boundary
	cfg      Config
	rec      *memRecorder
	m        model.ChatModel
	pending  string // the EVIDENCE_FOUND call awaiting evaluation
}

// newFixture wires release to a scripted server of provider p through the
// real adapter of that provider.
func newFixture(t *testing.T, p providertest.Provider, budget ...func(*harness.Budget)) *fixture {
	t.Helper()
	b := harness.DefaultBudget()
	for _, fn := range budget {
		fn(&b)
	}
	srv := providertest.Start(t, p)
	m := srv.Client()
	f := &fixture{t: t, srv: srv, rec: &memRecorder{}, m: m}
	var err error
	f.reg, err = harness.NewToolset([]tools.Adapter{&stubTool{name: knowledgeTool}, &stubTool{name: "query_logs"}, &stubTool{name: "query_mysql"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.rc, err = harness.NewRunContext(context.Background(), harness.RunOptions{
		SessionID: "s_test", RunID: "r_test", Budget: b,
		Clock: harness.FixedClock{T: time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)}, Recorder: f.rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.rc.Release)
	f.boundary = harness.NewBoundary(f.rc, f.reg, agent.DefaultLimits().Observation)
	f.cfg = Config{Model: m, Language: "en", ObservationLimit: agent.DefaultLimits().Observation, Hints: testHints}
	return f
}

// call runs one tool call through the real ToolBoundary, evaluating the
// pending observation as GAINED like a well-behaved model; it returns the
// observation the model would see.
func (f *fixture) call(id, tool, q string) string {
	f.t.Helper()
	qj, _ := json.Marshal(q)
	args := fmt.Sprintf(`{"input":{"q":%s}}`, qj)
	if f.pending != "" {
		args = fmt.Sprintf(`{"previous_observation":{"tool_call_id":%q,"evaluation":"GAINED"},"input":{"q":%s}}`, f.pending, qj)
	}
	obs := f.boundary.Handle(model.ToolCall{ID: id, Name: tool, Arguments: json.RawMessage(args)})
	var o struct {
		Status  string `json:"evidence_status"`
		Control string `json:"control"`
	}
	if err := json.Unmarshal([]byte(obs), &o); err != nil {
		f.t.Fatalf("observation %s: %v", obs, err)
	}
	if o.Control == "" {
		f.pending = ""
		if o.Status == string(tools.EvidenceFound) {
			f.pending = id
		}
	}
	return obs
}

// standardChecks: logs found, runbook found, mysql none, mysql error.
func (f *fixture) standardChecks() {
	f.call("call_ab12cd34", "query_logs", "found pool")
	f.call("call_kb000001", knowledgeTool, "found mysql pool")
	f.call("call_my000001", "query_mysql", "none long queries")
	f.call("call_my000002", "query_mysql", "fail processlist")
}

// draftResult is the agent's DRAFT result for text over the run's invocations.
func (f *fixture) draftResult(text string) agent.Result {
	f.t.Helper()
	d, err := agent.ParseDraft(text, agent.DefaultLimits().Draft)
	if err != nil {
		f.t.Fatalf("test draft is invalid: %v", err)
	}
	return agent.Result{Draft: d, DraftJSON: text, StopReason: runrecord.StopCompleted, Invocations: f.boundary.Invocations()}
}

func (f *fixture) release(res agent.Result) Decision {
	return Release(f.rc, f.cfg, testQuery, res)
}

const testQuery = "order-service payment timeouts since 14:00, many 504s"

func verdictTurn(v string) ollamatest.Turn {
	return ollamatest.Turn{Content: []string{v[:len(v)/2], v[len(v)/2:]}, PromptEvalCount: 300, EvalCount: 30}
}

const supported = `{"verdict":"SUPPORTED","reasons":["the pool saturation is in the cited logs"]}`

type item struct {
	typ, claim, scope string
	ids               []string
}

func draftJSON(conclusion bool, items ...item) string {
	var analysis []map[string]any
	for _, it := range items {
		m := map[string]any{"type": it.typ, "claim": it.claim, "tool_call_ids": it.ids}
		if it.scope != "" {
			m["scope"] = it.scope
		}
		analysis = append(analysis, m)
	}
	if analysis == nil {
		analysis = []map[string]any{}
	}
	d := map[string]any{
		"conclusion":      nil,
		"analysis":        analysis,
		"action_plan":     []map[string]string{{"priority": "P0", "step": "kill the slow query holding connections", "risk": "MEDIUM"}},
		"recommendations": []string{"add an index on orders.created_at"},
		"limitations":     map[string]any{"scope": "order-service logs 14:00-15:00 and the orders database", "missing_info": []string{"gateway logs", "the deploy history"}},
	}
	if conclusion {
		d["conclusion"] = map[string]string{"summary": "payment timeouts come from MySQL pool exhaustion", "root_cause": "a slow query holds all 50 connections", "confidence": "HIGH"}
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// goodDraft cites every kind correctly, and mentions an ID in its own words.
func goodDraft() string {
	return draftJSON(true,
		item{agent.Finding, "pool at 50/50 with 17 waiters (see call_ab12cd34)", "order-service logs 14:00-15:00", []string{"call_ab12cd34", "call_kb000001"}},
		item{agent.NegativeObservation, "no long-running queries in the processlist", "orders database", []string{"call_my000001"}},
	)
}

// runIDs lists every Tool Call ID of the run, for leak checks.
func runIDs(invs []harness.Invocation) []string {
	var ids []string
	for _, inv := range invs {
		ids = append(ids, inv.ToolCallID)
	}
	return ids
}

// assertNoIDs fails when any Tool Call ID of the run occurs in the answer or
// the published result.
func assertNoIDs(t *testing.T, d Decision, ids []string) {
	t.Helper()
	pub, _ := json.Marshal(d.Published)
	for _, id := range ids {
		if strings.Contains(d.Answer, id) || strings.Contains(string(pub), id) {
			t.Fatalf("Tool Call ID %s leaked:\nanswer: %s\npublished: %s", id, d.Answer, pub)
		}
	}
	if strings.Contains(d.Answer, "call_") || strings.Contains(string(pub), "call_") {
		t.Fatalf("something shaped like a Tool Call ID leaked:\n%s\n%s", d.Answer, pub)
	}
}

// testHints are an embedding program's pointers (a made-up `app`), so the
// tests see each hint land where release puts it.
var testHints = map[string]Hints{
	"en": {
		Next: map[runrecord.StopReason]string{
			runrecord.StopToolBudget:    "Raise the tool budget with `--max-tool-calls`.",
			runrecord.StopModelBudget:   "Raise the model budget with `--max-model-calls`.",
			runrecord.StopDeadline:      "Raise the deadline with `--timeout`.",
			runrecord.StopInvalidOutput: "Try another model (`app doctor` checks it).",
		},
		CheckSources:      "Check the sources: `app doctor`.",
		InspectRun:        "Inspect what was checked: `app runs show %s`.",
		Stopped:           map[runrecord.StopReason]string{runrecord.StopInternal: " with `app runs show`"},
		CheckModel:        ". Check it with `app doctor`",
		RetryRouting:      ". Try again",
		RetryRoutingModel: ". Check the model and try again",
		KnowledgeSetup:    " (set `app --runbooks`)",
		CheckKnowledge:    ". Check `app --runbooks`",
		AddRunbooks:       ", or add runbooks with `app --runbooks`",
	},
	"zh": {InspectRun: "查看已执行的检查：`app runs show %s`。"},
}

package harness_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// countingTool answers EVIDENCE_FOUND and counts its executions; during is
// called inside Execute (to cancel the run, or wait past its deadline).
type countingTool struct {
	runs   atomic.Int32
	during func(ctx context.Context)
}

func (c *countingTool) Definition() model.Tool {
	return model.Tool{Name: "probe", Description: "probe", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}
}

func (c *countingTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: string(in)}, nil
}

func (c *countingTool) Execute(ctx context.Context, _ tools.Call) tools.Outcome {
	c.runs.Add(1)
	if c.during != nil {
		c.during(ctx)
	}
	return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"rows": []int{1}}}
}

// recorder keeps the audit in memory.
type recorder struct {
	mu     sync.Mutex
	rounds []harness.ModelRound
	invs   []harness.Invocation
}

func (r *recorder) RecordModelRound(_ context.Context, _ string, m harness.ModelRound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rounds = append(r.rounds, m)
	return nil
}

func (r *recorder) RecordInvocation(_ context.Context, _ string, inv harness.Invocation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.invs = append(r.invs, inv)
	return nil
}

func newRun(t *testing.T, b harness.Budget, rec harness.Recorder) *harness.RunContext {
	t.Helper()
	rc, err := harness.NewRunContext(context.Background(), harness.RunOptions{SessionID: "s_1", RunID: "r_1", Budget: b, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Release)
	return rc
}

func boundary(t *testing.T, rc *harness.RunContext, tool tools.Adapter) *harness.Boundary {
	t.Helper()
	reg, err := harness.NewToolset([]tools.Adapter{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return harness.NewBoundary(rc, reg, 8192)
}

func probe(id, args string) model.ToolCall {
	return model.ToolCall{ID: id, Name: "probe", Arguments: json.RawMessage(args)}
}

func control(t *testing.T, obs string) string {
	t.Helper()
	var o struct {
		Control string `json:"control"`
	}
	if err := json.Unmarshal([]byte(obs), &o); err != nil {
		t.Fatalf("observation %s: %v", obs, err)
	}
	return o.Control
}

// Once a call of a model turn makes the harness require a stop, the calls
// after it in the same turn are refused with STOP_REQUIRED and never run.
func TestCallsAfterStopRequiredInTheSameTurnDoNotRun(t *testing.T) {
	b := harness.DefaultBudget()
	b.MaxNoGain = 1
	rc := newRun(t, b, nil)
	tool := &countingTool{}
	bd := boundary(t, rc, tool)
	if obs := bd.Handle(probe("call_1", `{"input":{"q":"a"}}`)); control(t, obs) != "" {
		t.Fatalf("first call: %s", obs)
	}
	// One model turn: the first call's NO_GAIN saturates the run; the calls
	// after it (well-formed, nothing pending) must not run.
	turn := []model.ToolCall{
		probe("call_2", `{"previous_observation":{"tool_call_id":"call_1","evaluation":"NO_GAIN"},"input":{"q":"b"}}`),
		probe("call_3", `{"input":{"q":"c"}}`),
		probe("call_4", `{"input":{"q":"d"}}`),
	}
	for _, c := range turn {
		if obs := bd.Handle(c); control(t, obs) != runrecord.ControlStop {
			t.Fatalf("%s: observation %s, want STOP_REQUIRED", c.ID, obs)
		}
	}
	if n := tool.runs.Load(); n != 1 {
		t.Fatalf("the adapter ran %d times, want 1 (only before the stop)", n)
	}
	if got := bd.StopRequired(); got != runrecord.StopSaturated {
		t.Fatalf("stop required %q", got)
	}
	reliability.Record(t, reliability.SectionMutation, "tool calls after STOP_REQUIRED in the same model turn do not run", map[string]any{"test": t.Name()})
}

// A tool result that arrives after the run was cancelled or passed its
// deadline is discarded: the model is told to stop, the step is DISCARDED
// (after the deadline) or CANCELLED with error code CANCELLED (after a
// cancel, whatever the tool answered), no evaluation is asked for it, and
// the EvidenceGuard refuses a draft citing it.
func TestLateToolResultIsDiscardedAndNeverCitable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration
		during   func(rc *harness.RunContext) func(context.Context)
		reason   runrecord.StopReason
		status   string
	}{
		{"cancelled", time.Minute, func(rc *harness.RunContext) func(context.Context) {
			return func(context.Context) { rc.Cancel() }
		}, runrecord.StopCancelled, harness.StatusCancelled},
		{"deadline", 50 * time.Millisecond, func(*harness.RunContext) func(context.Context) {
			return func(ctx context.Context) { <-ctx.Done() }
		}, runrecord.StopDeadline, harness.StatusDiscarded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := harness.DefaultBudget()
			b.Deadline = tc.deadline
			rec := &recorder{}
			rc := newRun(t, b, rec)
			tool := &countingTool{}
			tool.during = tc.during(rc)
			bd := boundary(t, rc, tool)
			obs := bd.Handle(probe("call_late", `{"input":{"q":"a"}}`))
			if control(t, obs) != runrecord.ControlStop || tool.runs.Load() != 1 {
				t.Fatalf("observation %s after %d runs, want STOP_REQUIRED", obs, tool.runs.Load())
			}
			invs := bd.Invocations()
			if len(invs) != 1 || invs[0].Status != tc.status || invs[0].Ready() {
				t.Fatalf("invocations %+v, want one %s step", invs, tc.status)
			}
			if len(rec.invs) != 1 || rec.invs[0].Status != tc.status {
				t.Fatalf("audit %+v, want the %s step", rec.invs, tc.status)
			}
			if tc.status == harness.StatusCancelled && (rec.invs[0].EvidenceStatus != tools.StatusError || rec.invs[0].ErrorCode != tools.CodeCancelled) {
				t.Fatalf("audit %+v, want ERROR CANCELLED", rec.invs[0])
			}
			if r := rc.Interrupted(); r != tc.reason {
				t.Fatalf("interrupted %q, want %q", r, tc.reason)
			}
			draft := &agent.Draft{Analysis: []agent.AnalysisItem{{Type: agent.Finding, Claim: "late rows", ToolCallIDs: []string{"call_late"}}}}
			if g := release.EvidenceGuard(draft, invs); g.Passed() {
				t.Fatalf("the EvidenceGuard let a draft cite a discarded result: %+v", g)
			}
			if snap := harness.SnapshotOf(invs, tc.reason); snap.HasProgress() {
				t.Fatalf("a discarded result counts as progress: %+v", snap)
			}
			reliability.Record(t, reliability.SectionMutation, "tool result after "+tc.name+" discarded, never citable", map[string]any{"test": t.Name()})
		})
	}
}

// lateModel answers only after interrupt has ended the run, with a valid
// answer that must not be accepted.
type lateModel struct{ interrupt func(ctx context.Context) }

func (m lateModel) Chat(ctx context.Context, _ model.Request) (model.Response, error) {
	m.interrupt(ctx)
	return model.Response{Message: model.Message{Role: model.RoleAssistant, Content: `{"conclusion":null}`}, Usage: model.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

// A model answer that arrives after the run was interrupted is rejected
// with ErrInterrupted carrying the interruption's reason, and the round is
// recorded with that reason as its error kind.
func TestLateModelAnswerIsRejected(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deadline  time.Duration
		interrupt func(rc *harness.RunContext) func(context.Context)
		reason    runrecord.StopReason
	}{
		{"cancelled", time.Minute, func(rc *harness.RunContext) func(context.Context) {
			return func(context.Context) { rc.Cancel() }
		}, runrecord.StopCancelled},
		{"deadline", 50 * time.Millisecond, func(*harness.RunContext) func(context.Context) {
			return func(ctx context.Context) { <-ctx.Done() }
		}, runrecord.StopDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := harness.DefaultBudget()
			b.Deadline = tc.deadline
			rec := &recorder{}
			rc := newRun(t, b, rec)
			resp, err := rc.CallModel(lateModel{interrupt: tc.interrupt(rc)}, runrecord.PurposeDiagnosis, model.Request{}, 0)
			if !errors.Is(err, harness.ErrInterrupted) || harness.ReasonOf(err) != tc.reason {
				t.Fatalf("err = %v (reason %q), want ErrInterrupted with %s", err, harness.ReasonOf(err), tc.reason)
			}
			if resp.Message.Content != "" {
				t.Fatalf("the late answer was returned: %+v", resp)
			}
			if len(rec.rounds) != 1 || rec.rounds[0].ErrorKind != string(tc.reason) {
				t.Fatalf("recorded rounds %+v, want one with error kind %s", rec.rounds, tc.reason)
			}
			reliability.Record(t, reliability.SectionMutation, "model answer after "+tc.name+" rejected with its reason", map[string]any{"test": t.Name()})
		})
	}
}

// Cancel itself is the run's terminal transition to CANCELLED: no later
// outcome can replace it, and the run's context is done.
func TestCancelRecordsCancelled(t *testing.T) {
	rc := newRun(t, harness.DefaultBudget(), nil)
	rc.Cancel()
	if lc, r := rc.State(); lc != runrecord.Cancelled || r != runrecord.StopCancelled {
		t.Fatalf("state after Cancel = %s/%s, want CANCELLED/CANCELLED", lc, r)
	}
	if rc.Context().Err() == nil {
		t.Fatal("the run's context is not done after Cancel")
	}
	if rc.Terminate(runrecord.StopCompleted) {
		t.Fatal("a later COMPLETED replaced CANCELLED")
	}
	if _, err := rc.BeforeModelCall(0); harness.ReasonOf(err) != runrecord.StopCancelled {
		t.Fatalf("model call after Cancel: %v", err)
	}
	reliability.Record(t, reliability.SectionMutation, "Cancel() records CANCELLED as the terminal state", map[string]any{"test": t.Name()})
}

// The progress rule: a check refused for its own input is no progress; a
// result, its absence or a backend failure is.
func TestHasProgress(t *testing.T) {
	for _, tc := range []struct {
		check runrecord.Check
		want  bool
	}{
		{runrecord.Check{EvidenceStatus: string(tools.EvidenceFound)}, true},
		{runrecord.Check{EvidenceStatus: string(tools.NoEvidence)}, true},
		{runrecord.Check{EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeUnavailable}, true},
		{runrecord.Check{EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeTimeout}, true},
		{runrecord.Check{EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeInvalidInput}, false},
		{runrecord.Check{EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeNotReadOnly}, false},
		{runrecord.Check{EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeNotAllowed}, false},
	} {
		s := harness.ProgressSnapshot{Checks: []runrecord.Check{tc.check}}
		if got := s.HasProgress(); got != tc.want {
			t.Errorf("%+v: HasProgress %v, want %v", tc.check, got, tc.want)
		}
	}
	if (harness.ProgressSnapshot{}).HasProgress() {
		t.Error("an empty snapshot has progress")
	}
}

// A tool that panics ends its own call as ERROR/INTERNAL, recorded with
// the panic's message masked like any detail; the run goes on and the next
// call runs.
func TestToolPanicIsAnInternalFailure(t *testing.T) {
	const secret = "Hunt3rPw42"
	rec := &recorder{}
	rc := newRun(t, harness.DefaultBudget(), rec)
	tool := &countingTool{}
	tool.during = func(context.Context) {
		if tool.runs.Load() == 1 {
			panic("index out of range reading password=" + secret)
		}
	}
	bd := boundary(t, rc, tool)
	obs := bd.Handle(probe("call_1", `{"input":{"q":"a"}}`))
	var o struct {
		Status    string `json:"evidence_status"`
		ErrorCode string `json:"error_code"`
	}
	if err := json.Unmarshal([]byte(obs), &o); err != nil {
		t.Fatalf("observation %s: %v", obs, err)
	}
	if o.Status != string(tools.StatusError) || o.ErrorCode != tools.CodeInternal || strings.Contains(obs, secret) {
		t.Errorf("the panicking call's observation = %s, want ERROR INTERNAL without the secret", obs)
	}
	if obs := bd.Handle(probe("call_2", `{"input":{"q":"b"}}`)); tool.runs.Load() != 2 || control(t, obs) != "" {
		t.Errorf("the call after a panic: ran %d times in all, observation %s", tool.runs.Load(), obs)
	}
	invs := bd.Invocations()
	if len(invs) != 2 || invs[0].ErrorCode != tools.CodeInternal || !strings.Contains(invs[0].Detail, "probe failed inside the tool") ||
		!strings.Contains(invs[0].Detail, "index out of range") || strings.Contains(invs[0].Detail, secret) {
		t.Fatalf("invocations %+v, want the first INTERNAL with the panic's masked message", invs)
	}
}

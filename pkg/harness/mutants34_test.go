package harness

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// The tests of this file kill or cover the mutants gremlins chose in this
// package (issue 34, docs/MUTATION.md): each asserts a behaviour of the
// boundary or the run's budgets at an edge the other tests did not reach.

// skillObs is read_skill's observation as the model reads it.
type skillObs struct {
	Name       string   `json:"name"`
	Body       string   `json:"body"`
	Note       string   `json:"note"`
	Error      string   `json:"error"`
	ValidNames []string `json:"valid_names"`
}

// read_skill serves a playbook's body (escapes stripped) once per run, a
// note the second time, an error naming the catalog for an unknown name or
// bad arguments; without a catalog it is an unknown tool, and an evidence
// tool is never taken for it.
func TestReadSkill(t *testing.T) {
	pbs := tools.PlaybookList{{Name: "pay-timeout", Body: "check \x1b[31mthe gateway"}, {Name: "db-locks", Body: "look at locks"}}
	reg, err := NewToolset([]tools.Adapter{echoTool{}}, pbs)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoundary(newRC(t, DefaultBudget()), reg, 8192)
	call := func(id, args string) skillObs {
		t.Helper()
		var o skillObs
		out := b.Handle(model.ToolCall{ID: id, Name: ReadSkillTool, Arguments: json.RawMessage(args)})
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		return o
	}
	if o := call("c1", `{"name":"pay-timeout"}`); o.Name != "pay-timeout" || o.Body != "check the gateway" || o.Error != "" {
		t.Fatalf("first read: %+v", o)
	}
	if o := call("c2", `{"name":"pay-timeout"}`); o.Body != "" || !strings.Contains(o.Note, "already loaded") {
		t.Fatalf("second read: %+v", o)
	}
	want := []string{"db-locks", "pay-timeout"}
	for _, args := range []string{`{"name":"nope"}`, `{}`, `{"name":"db-locks","x":1}`, `[]`} {
		if o := call("c3", args); o.Error == "" || o.Body != "" || !slices.Equal(o.ValidNames, want) {
			t.Fatalf("%s: %+v, want an error naming %v", args, o, want)
		}
	}
	invs := b.Invocations()
	if len(invs) != 6 || invs[0].Kind != runrecord.KindGuidance || invs[0].ErrorCode != "" || invs[0].Summary != "pay-timeout" ||
		invs[2].ErrorCode != tools.CodeInvalidInput || invs[2].Detail != "unknown playbook" {
		t.Fatalf("records %+v", invs)
	}
	// An evidence tool of a toolset with a catalog is still evidence.
	out := b.Handle(model.ToolCall{ID: "e1", Name: "echo", Arguments: json.RawMessage(`{"input":{}}`)})
	if !strings.Contains(out, `"evidence_status":"EVIDENCE_FOUND"`) {
		t.Fatalf("evidence call beside a catalog: %s", out)
	}
	// Without a catalog read_skill is refused like any unknown tool: not
	// recorded.
	plain, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nb := NewBoundary(newRC(t, DefaultBudget()), plain, 8192)
	out = nb.Handle(model.ToolCall{ID: "c9", Name: ReadSkillTool, Arguments: json.RawMessage(`{"name":"pay-timeout"}`)})
	if got := nb.Invocations(); len(got) != 0 || !strings.Contains(out, `"error_code":"`+tools.CodeInvalidInput+`"`) || strings.Contains(out, "pay-timeout") {
		t.Fatalf("read_skill without a catalog: %s %+v", out, got)
	}
}

// errorCode reads an observation's error code and expected call.
func errorCode(t *testing.T, obs string) (code, expected string) {
	t.Helper()
	var o struct {
		ErrorCode string `json:"error_code"`
		Expected  string `json:"expected_tool_call_id"`
	}
	if err := json.Unmarshal([]byte(obs), &o); err != nil {
		t.Fatalf("%s: %v", obs, err)
	}
	return o.ErrorCode, o.Expected
}

// A malformed envelope is INVALID_ENVELOPE, except when its
// previous_observation names a call while one awaits evaluation: then it is
// WRONG_PREVIOUS_OBSERVATION, naming the call expected.
func TestEnvelopeRepairCodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pending  bool
		args     string
		code     string
		expected string
	}{
		{"bad evaluation while pending", true, `{"previous_observation":{"tool_call_id":"c1","evaluation":"MAYBE"},"input":{}}`, RepairWrong, "c1"},
		{"empty id while pending", true, `{"previous_observation":{"tool_call_id":"","evaluation":"GAINED"},"input":{}}`, RepairEnvelope, "c1"},
		{"no input while pending", true, `{"q":1}`, RepairEnvelope, "c1"},
		{"bad evaluation, nothing pending", false, `{"previous_observation":{"tool_call_id":"c1","evaluation":"MAYBE"},"input":{}}`, RepairEnvelope, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			b := NewBoundary(newRC(t, DefaultBudget()), reg, 8192)
			if tc.pending {
				b.Handle(model.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"input":{"a":1}}`)})
			}
			code, expected := errorCode(t, b.Handle(model.ToolCall{ID: "c2", Name: "echo", Arguments: json.RawMessage(tc.args)}))
			if code != tc.code || expected != tc.expected {
				t.Fatalf("error code %q expecting %q, want %q expecting %q", code, expected, tc.code, tc.expected)
			}
		})
	}
}

// The evaluations are counted (GAINED and NO_GAIN apart) and a run of
// MaxNoGain NO_GAIN in a row, not fewer, saturates the run; a GAINED
// between them starts the run of NO_GAIN again.
func TestEvaluationsCounted(t *testing.T) {
	bud := DefaultBudget()
	bud.MaxNoGain = 2
	reg, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoundary(newRC(t, bud), reg, 8192)
	calls := []struct{ id, eval, stop string }{
		{"c1", "", ""},
		{"c2", NoGain, ""},
		{"c3", Gained, ""},
		{"c4", NoGain, ""},
		{"c5", NoGain, runrecord.ControlStop},
	}
	prev := ""
	for i, c := range calls {
		args := `{"input":{"n":` + string(rune('0'+i)) + `}}`
		if c.eval != "" {
			args = `{"previous_observation":{"tool_call_id":"` + prev + `","evaluation":"` + c.eval + `"},"input":{"n":` + string(rune('0'+i)) + `}}`
		}
		var o struct {
			Control string `json:"control"`
		}
		if err := json.Unmarshal([]byte(b.Handle(model.ToolCall{ID: c.id, Name: "echo", Arguments: json.RawMessage(args)})), &o); err != nil {
			t.Fatal(err)
		}
		if o.Control != c.stop {
			t.Fatalf("%s: control %q, want %q", c.id, o.Control, c.stop)
		}
		prev = c.id
	}
	s := b.Snapshot("")
	if s.Gained != 1 || s.NoGain != 3 || b.StopRequired() != runrecord.StopSaturated {
		t.Fatalf("gained %d, no gain %d, stop %q; want 1, 3, %s", s.Gained, s.NoGain, b.StopRequired(), runrecord.StopSaturated)
	}
}

// sizedTool answers a result whose projection is exactly MaxBytes+over
// bytes long, and remembers the MaxBytes it was given.
type sizedTool struct {
	over int
	got  *int
}

func (sizedTool) Definition() model.Tool {
	return model.Tool{Name: "sized", Description: "sized", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (sizedTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: "sized"}, nil
}
func (s sizedTool) Execute(_ context.Context, c tools.Call) tools.Outcome {
	*s.got = c.MaxBytes
	// {"d":"…"} is the text and 8 bytes
	return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"d": strings.Repeat("x", c.MaxBytes-8+s.over)}}
}

// An adapter is given what is left of the observation limit once the
// call's ID, the tool's name and 96 bytes of envelope are set aside, and a
// projection of exactly that size is accepted, one byte more is INTERNAL.
func TestObservationLimit(t *testing.T) {
	for _, tc := range []struct {
		over int
		want string
	}{{0, string(tools.EvidenceFound)}, {1, string(tools.StatusError)}} {
		var got int
		reg, err := NewToolset([]tools.Adapter{sizedTool{over: tc.over, got: &got}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBoundary(newRC(t, DefaultBudget()), reg, 1000)
		out := b.Handle(model.ToolCall{ID: "call_12", Name: "sized", Arguments: json.RawMessage(`{"input":{}}`)})
		if want := 1000 - len("call_12") - len("sized") - 96; got != want {
			t.Fatalf("MaxBytes %d, want %d", got, want)
		}
		if !strings.Contains(out, `"evidence_status":"`+tc.want+`"`) {
			t.Fatalf("projection of limit+%d: %s, want %s", tc.over, out, tc.want)
		}
	}
}

// The arguments of a refused envelope are kept raw in the audit up to
// 4096 bytes of valid JSON; longer ones are kept as a (masked) string.
func TestRefusedArgumentsBounded(t *testing.T) {
	for _, tc := range []struct {
		size int
		raw  bool
	}{{4096, true}, {4097, false}} {
		args := `{"x":"` + strings.Repeat("a", tc.size-len(`{"x":""}`)) + `"}`
		reg, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBoundary(newRC(t, DefaultBudget()), reg, 8192)
		b.Handle(model.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(args)})
		in := b.Invocations()[0].Input
		if isObject := len(in) > 0 && in[0] == '{'; isObject != tc.raw {
			t.Fatalf("%d bytes of arguments recorded as %.40s…, want raw=%v", tc.size, in, tc.raw)
		}
	}
}

// An observation the byte budget cannot hold is discarded and its call no
// longer awaits evaluation: the next call needs no previous_observation.
func TestDiscardedObservationNotPending(t *testing.T) {
	bud := DefaultBudget()
	bud.MaxRunBytes = 40
	reg, err := NewToolset([]tools.Adapter{echoTool{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoundary(newRC(t, bud), reg, 8192)
	out := b.Handle(model.ToolCall{ID: "c1", Name: "echo", Arguments: json.RawMessage(`{"input":{}}`)})
	if !strings.Contains(out, runrecord.ControlStop) || b.Invocations()[0].Status != StatusDiscarded {
		t.Fatalf("observation over the byte budget: %s %+v", out, b.Invocations())
	}
	if b.pending != "" {
		t.Fatalf("discarded call %q still awaits evaluation", b.pending)
	}
}

// Each limit of the budget holds at its edge: the last model call, token,
// tool call and byte are granted, the next refused; a budget below any
// bound is refused at the start.
func TestBudgetEdges(t *testing.T) {
	bud := DefaultBudget()
	bud.MaxModelCalls, bud.MaxToolCalls, bud.MaxTokens, bud.MaxRunBytes = 2, 1, 10, 5
	rc := newRC(t, bud)
	if n := rc.ModelCallsLeft(1); n != 1 {
		t.Fatalf("model calls left %d, want 1", n)
	}
	if seq, err := rc.BeforeModelCall(1); err != nil || seq != 1 {
		t.Fatalf("first call: %d %v", seq, err)
	}
	if n := rc.ModelCallsLeft(0); n != 1 {
		t.Fatalf("model calls left %d, want 1", n)
	}
	if seq, err := rc.BeforeModelCall(0); err != nil || seq != 2 {
		t.Fatalf("last call: %d %v", seq, err)
	}
	if _, err := rc.BeforeModelCall(0); ReasonOf(err) != runrecord.StopModelBudget {
		t.Fatalf("call past the budget: %v", err)
	}
	rc.RecordTokens(-5, 9)
	if rc.TokensExhausted() || rc.TokensLeft() != 1 || rc.Usage().PromptTokens != 0 {
		t.Fatalf("9 of 10 tokens: exhausted %v, left %d, usage %+v", rc.TokensExhausted(), rc.TokensLeft(), rc.Usage())
	}
	rc.RecordTokens(1, -3)
	if !rc.TokensExhausted() || rc.TokensLeft() != 0 {
		t.Fatalf("10 of 10 tokens: exhausted %v, left %d", rc.TokensExhausted(), rc.TokensLeft())
	}
	rc.RecordTokens(5, 0)
	if rc.TokensLeft() != 0 {
		t.Fatalf("tokens left past the budget %d", rc.TokensLeft())
	}
	if err := rc.ReserveBytes(5); err != nil {
		t.Fatalf("the last bytes: %v", err)
	}
	if err := rc.ReserveBytes(0); err != nil {
		t.Fatalf("no bytes: %v", err)
	}

	tokens := DefaultBudget()
	tokens.MaxTokens = 10
	rt := newRC(t, tokens)
	rt.RecordTokens(9, 0)
	if _, err := rt.BeforeModelCall(0); err != nil {
		t.Fatalf("a call with a token left: %v", err)
	}
	rt.RecordTokens(1, 0)
	if _, err := rt.BeforeModelCall(0); ReasonOf(err) != runrecord.StopTokenBudget {
		t.Fatalf("a call with no token left: %v", err)
	}

	for _, tc := range []struct {
		name string
		set  func(*Budget)
		ok   bool
	}{
		{"one model call", func(b *Budget) { b.MaxModelCalls = 1 }, true},
		{"no model call", func(b *Budget) { b.MaxModelCalls = 0 }, false},
		{"no tool call", func(b *Budget) { b.MaxToolCalls = 0 }, true},
		{"negative tool calls", func(b *Budget) { b.MaxToolCalls = -1 }, false},
		{"one token", func(b *Budget) { b.MaxTokens = 1 }, true},
		{"no token", func(b *Budget) { b.MaxTokens = 0 }, false},
		{"one byte", func(b *Budget) { b.MaxRunBytes = 1 }, true},
		{"no byte", func(b *Budget) { b.MaxRunBytes = 0 }, false},
		{"a nanosecond", func(b *Budget) { b.Deadline = 1 }, true},
		{"no deadline", func(b *Budget) { b.Deadline = 0 }, false},
		{"one no-gain", func(b *Budget) { b.MaxNoGain = 1 }, true},
		{"no no-gain", func(b *Budget) { b.MaxNoGain = 0 }, false},
	} {
		b := DefaultBudget()
		tc.set(&b)
		rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s", RunID: "r", Budget: b})
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.name, err, tc.ok)
		}
		if rc != nil {
			rc.Release()
		}
	}
}

// scripted answers one round: resp, or err when set.
type scripted struct {
	resp model.Response
	err  error
}

func (s scripted) Chat(context.Context, model.Request) (model.Response, error) { return s.resp, s.err }

// rounds keeps the model rounds recorded, failing with fail when set.
type rounds struct {
	got  []ModelRound
	fail error
}

func (r *rounds) RecordModelRound(_ context.Context, _ string, m ModelRound) error {
	if r.fail != nil {
		return r.fail
	}
	r.got = append(r.got, m)
	return nil
}
func (r *rounds) RecordInvocation(context.Context, string, Invocation) error { return r.fail }

// CallModel charges the answer's tokens, bounds the answer by the tokens
// left, says whether tools were offered, records the round with its
// request, answer and usage (an error's kind, PROTOCOL for an untyped one),
// and a round the audit cannot record ends the run INTERNAL.
func TestCallModelRecords(t *testing.T) {
	bud := DefaultBudget()
	bud.MaxTokens = 1000
	var col Collector
	rec := &rounds{}
	rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s", RunID: "r", Budget: bud, Events: &col, Recorder: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Release()
	ok := scripted{resp: model.Response{Message: model.Message{Content: "hi"}, Usage: model.Usage{PromptTokens: 30, CompletionTokens: 12}}}
	req := model.Request{Tools: []model.Tool{{Name: "echo"}}}
	if _, err := rc.CallModel(ok, runrecord.PurposeDiagnosis, req, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.CallModel(ok, runrecord.PurposeDiagnosis, model.Request{}, 0); err != nil {
		t.Fatal(err)
	}
	if u := rc.Usage(); u.PromptTokens != 60 || u.CompletionTokens != 24 || u.ModelCalls != 2 {
		t.Fatalf("usage %+v", u)
	}
	var started []ModelRoundStarted
	var finished []ModelRoundFinished
	for _, ev := range col.Events() {
		switch e := ev.(type) {
		case ModelRoundStarted:
			started = append(started, e)
		case ModelRoundFinished:
			finished = append(finished, e)
		}
	}
	if len(started) != 2 || !started[0].WithTools || started[1].WithTools || started[1].Seq != 2 {
		t.Fatalf("rounds started %+v", started)
	}
	if len(finished) != 2 || finished[0].Usage.PromptTokens != 30 || finished[0].Response == nil || finished[1].Request.MaxOutputTokens != 1000-42 {
		t.Fatalf("rounds finished %+v", finished)
	}
	if len(rec.got) != 2 || rec.got[0].PromptTokens != 30 || rec.got[0].CompletionTokens != 12 || len(rec.got[0].Request) == 0 || !strings.Contains(string(rec.got[0].Response), `"hi"`) {
		t.Fatalf("recorded rounds %+v", rec.got)
	}

	typed := &model.Error{Kind: model.ErrTimeout}
	if _, err := rc.CallModel(scripted{err: typed}, runrecord.PurposeDiagnosis, model.Request{}, 0); err != typed {
		t.Fatalf("typed failure: %v", err)
	}
	if _, err := rc.CallModel(scripted{err: context.DeadlineExceeded}, runrecord.PurposeDiagnosis, model.Request{}, 0); err != context.DeadlineExceeded {
		t.Fatalf("untyped failure: %v", err)
	}
	if len(rec.got) != 4 || rec.got[2].ErrorKind != string(model.ErrTimeout) || rec.got[3].ErrorKind != string(model.ErrProtocol) || rec.got[2].Response != nil || rec.got[0].ErrorKind != "" {
		t.Fatalf("failed rounds %+v", rec.got[2:])
	}

	rec.fail = context.Canceled
	if _, err := rc.CallModel(ok, runrecord.PurposeDiagnosis, model.Request{}, 0); err == nil || !strings.Contains(err.Error(), "record model round 5") {
		t.Fatalf("unrecorded round: %v", err)
	}
	if lc, r := rc.State(); lc != runrecord.Failed || r != runrecord.StopInternal || rc.AuditError() == nil {
		t.Fatalf("after an unrecorded round: %s %s %v", lc, r, rc.AuditError())
	}
}

// A snapshot counts each evaluation and each completed evidence step by
// its status; refused, guidance and discarded steps are not checks.
func TestSnapshotCounts(t *testing.T) {
	ev := func(st tools.EvidenceStatus, code string) Invocation {
		return Invocation{Kind: runrecord.KindEvidence, Status: StatusCompleted, Tool: "t", EvidenceStatus: st, ErrorCode: code, Summary: "  s  "}
	}
	invs := []Invocation{
		ev(tools.EvidenceFound, ""), ev(tools.EvidenceFound, ""), ev(tools.NoEvidence, ""), ev(tools.StatusError, tools.CodeTimeout),
		{Kind: runrecord.KindControl, Status: StatusRefused, Evaluation: Gained},
		{Kind: runrecord.KindEvidence, Status: StatusDiscarded, EvidenceStatus: tools.EvidenceFound, Evaluation: NoGain},
		{Kind: runrecord.KindGuidance, Status: StatusCompleted, Evaluation: NoGain},
	}
	s := SnapshotOf(invs, runrecord.StopSaturated)
	if s.EvidenceFound != 2 || s.NoEvidence != 1 || s.Errors != 1 || s.Gained != 1 || s.NoGain != 2 || len(s.Checks) != 4 || s.Checks[0].Summary != "s" || s.StopReason != runrecord.StopSaturated {
		t.Fatalf("snapshot %+v", s)
	}
}

// Sinks sends each event to every sink in order and skips a nil one.
func TestSinksFanOut(t *testing.T) {
	var a, b Collector
	Sinks{&a, nil, &b}.Emit(StopRequired{Reason: runrecord.StopSaturated})
	if len(a.Events()) != 1 || len(b.Events()) != 1 {
		t.Fatalf("events %v and %v, want one each", a.Events(), b.Events())
	}
}

// failing answers ERROR with a detail holding a secret.
type failing struct{}

func (failing) Definition() model.Tool {
	return model.Tool{Name: "failing", Description: "failing", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (failing) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: "failing"}, nil
}
func (failing) Execute(context.Context, tools.Call) tools.Outcome {
	return tools.Failed(tools.CodeUnavailable, errStoreFull)
}

var errStoreFull = errors.New("write index: password=hunter2 database or disk is full")

// A failed call's detail is recorded masked; when it is the run store out
// of space, the run ends INTERNAL with that audit error.
func TestFailedCallDetail(t *testing.T) {
	for _, full := range []bool{false, true} {
		reg, err := NewToolset([]tools.Adapter{failing{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s", RunID: "r", Budget: DefaultBudget(),
			StoreFull: func(e error) bool { return full && errors.Is(e, errStoreFull) }})
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Release()
		b := NewBoundary(rc, reg, 8192)
		b.Handle(model.ToolCall{ID: "c1", Name: "failing", Arguments: json.RawMessage(`{"input":{}}`)})
		inv := b.Invocations()[0]
		if !strings.Contains(inv.Detail, "disk is full") || strings.Contains(inv.Detail, "hunter2") || inv.ErrorCode != tools.CodeUnavailable {
			t.Fatalf("detail %q code %q", inv.Detail, inv.ErrorCode)
		}
		if lc, r := rc.State(); (lc == runrecord.Failed && r == runrecord.StopInternal && rc.AuditError() != nil) != full {
			t.Fatalf("store full %v: state %s %s, audit error %v", full, lc, r, rc.AuditError())
		}
	}
}

package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ReadSkillTool is the guidance tool's name; it is not an evidence tool.
const ReadSkillTool = tools.ReadSkillTool

// The repair codes of a REPAIR_REQUIRED observation.
const (
	RepairMissing  = "MISSING_PREVIOUS_OBSERVATION"
	RepairWrong    = "WRONG_PREVIOUS_OBSERVATION"
	RepairEnvelope = "INVALID_ENVELOPE"
	// RepairTooMany refuses the calls of one answer past MaxCallsPerAnswer.
	RepairTooMany = "TOO_MANY_CALLS"
)

// MaxCallsPerAnswer bounds the tool calls taken from one model answer: an
// answer of 80,000 calls would otherwise be 80,000 audited steps, a store
// of megabytes and a deadline overrun. The rest are refused as one step.
const MaxCallsPerAnswer = 32

// Evaluations the model gives of the last non-empty observation.
const (
	Gained = "GAINED"
	NoGain = "NO_GAIN"
)

// The statuses of an audited tool step (runrecord's words).
const (
	StatusCompleted = runrecord.InvocationCompleted
	StatusRefused   = runrecord.InvocationRefused
	StatusDiscarded = runrecord.InvocationDiscarded
	StatusCancelled = runrecord.InvocationCancelled
)

// Invocation is the canonical record of one tool step of a run, declared
// in pkg/runrecord so that the harness writes and the run store keeps the
// same record.
type Invocation = runrecord.Invocation

// maxTallyBytes bounds an invocation's Tally: room for the longest an
// adapter says ("top: " and a 40-byte section name with its score,
// "412 matched, first 11-27 23:58:01"), short enough to end a tool line.
const maxTallyBytes = 64

// Toolset is the fixed set of tools one agent may call: definitions and
// execution registered together, so nothing can be declared without an
// adapter or executed without a declaration.
type Toolset struct {
	adapters  map[string]tools.Adapter
	order     []string
	playbooks tools.Playbooks
	defs      []model.Tool
}

// NewToolset builds the toolset, refusing missing or duplicate tools.
func NewToolset(adapters []tools.Adapter, playbooks tools.Playbooks) (*Toolset, error) {
	r := &Toolset{adapters: map[string]tools.Adapter{}, playbooks: playbooks}
	for _, a := range adapters {
		if a == nil {
			return nil, errors.New("toolset: nil adapter")
		}
		d := a.Definition()
		if d.Name == "" || d.Name == ReadSkillTool {
			return nil, fmt.Errorf("toolset: invalid tool name %q", d.Name)
		}
		if _, dup := r.adapters[d.Name]; dup {
			return nil, fmt.Errorf("toolset: tool %q registered twice", d.Name)
		}
		env, err := envelopeSchema(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("toolset: %s: %w", d.Name, err)
		}
		r.adapters[d.Name] = a
		r.order = append(r.order, d.Name)
		r.defs = append(r.defs, model.Tool{Name: d.Name, Description: d.Description + envelopeHelp, Parameters: env})
	}
	if playbooks != nil {
		r.defs = append(r.defs, readSkillDefinition())
	}
	return r, nil
}

// Definitions are the tools exactly as the model receives them.
func (r *Toolset) Definitions() []model.Tool { return append([]model.Tool(nil), r.defs...) }

// Adapter returns the evidence adapter registered under name.
func (r *Toolset) Adapter(name string) (tools.Adapter, bool) {
	a, ok := r.adapters[name]
	return a, ok
}

// Names lists the evidence tools in registration order.
func (r *Toolset) Names() []string { return append([]string(nil), r.order...) }

// Playbooks is the guidance catalog, or nil.
func (r *Toolset) Playbooks() tools.Playbooks { return r.playbooks }

const envelopeHelp = " Arguments are an envelope: put the tool's parameters in `input`; when the last EVIDENCE_FOUND observation has not been evaluated yet, also send `previous_observation` naming its tool_call_id with evaluation GAINED or NO_GAIN."

// envelopeSchema wraps a business input schema in the progress envelope.
func envelopeSchema(business json.RawMessage) (json.RawMessage, error) {
	if !json.Valid(business) {
		return nil, errors.New("input schema is not valid JSON")
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"previous_observation":{"type":"object","description":"Your evaluation of the last EVIDENCE_FOUND observation; required while it is unevaluated.","properties":{"tool_call_id":{"type":"string"},"evaluation":{"type":"string","enum":["GAINED","NO_GAIN"]}},"required":["tool_call_id","evaluation"],"additionalProperties":false},"input":`)
	b.Write(business)
	b.WriteString(`},"required":["input"],"additionalProperties":false}`)
	return json.RawMessage(b.String()), nil
}

// readSkillInput is read_skill's input: readSkill decodes it and its tags
// are the schema the model receives.
type readSkillInput struct {
	Name string `json:"name" jsonschema:"required" jsonschema_description:"playbook name from the catalog"`
}

func readSkillDefinition() model.Tool {
	return model.Tool{
		Name:        ReadSkillTool,
		Description: "Load the full instructions of one diagnosis playbook from the catalog by name. Guidance only: it is not evidence and cannot be cited.",
		Parameters:  schema.Of(readSkillInput{}),
	}
}

// Boundary is the single door between the model's tool calls and the
// adapters for one run: it checks the envelope and the progress protocol,
// refuses unknown tools and equivalent calls, reserves the tool budget,
// executes, bounds and redacts the observation and writes the canonical record.
type Boundary struct {
	rc       *RunContext
	reg      *Toolset
	obsLimit int

	mu          sync.Mutex
	invocations []Invocation
	seen        map[string]string // tool + canonical input → first Tool Call ID
	pending     string            // EVIDENCE_FOUND call awaiting evaluation
	noGainRun   int
	gained      int
	noGain      int
	stop        runrecord.StopReason
	skillsRead  map[string]bool
}

// NewBoundary opens the run's ToolBoundary; observationLimit is limits.observation.
func NewBoundary(rc *RunContext, reg *Toolset, observationLimit int) *Boundary {
	return &Boundary{rc: rc, reg: reg, obsLimit: observationLimit, seen: map[string]string{}, skillsRead: map[string]bool{}}
}

// StopRequired is the reason the harness requires the model to stop
// collecting evidence, or "" while it may continue.
func (b *Boundary) StopRequired() runrecord.StopReason {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stop
}

// RequireStop makes every further tool call get STOP_REQUIRED.
func (b *Boundary) RequireStop(reason runrecord.StopReason) {
	b.mu.Lock()
	first := b.stop == ""
	if first {
		b.stop = reason
	}
	b.mu.Unlock()
	if first {
		b.rc.emit(StopRequired{Meta: b.rc.meta(), Reason: reason})
	}
}

// Invocations returns the run's records so far, in order.
func (b *Boundary) Invocations() []Invocation {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Invocation(nil), b.invocations...)
}

// observation is the whitelisted shape of everything the model is told.
type observation struct {
	ToolCallID     string          `json:"tool_call_id"`
	Tool           string          `json:"tool"`
	EvidenceStatus string          `json:"evidence_status,omitempty"`
	Control        string          `json:"control,omitempty"`
	ErrorCode      string          `json:"error_code,omitempty"`
	Expected       string          `json:"expected_tool_call_id,omitempty"`
	Original       string          `json:"original_tool_call_id,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
}

// envelope is the typed agent-facing input of every evidence tool.
type envelope struct {
	PreviousObservation *previousObservation `json:"previous_observation,omitzero"`
	Input               jsontext.Value       `json:"input"`
}

type previousObservation struct {
	ToolCallID string `json:"tool_call_id"`
	Evaluation string `json:"evaluation"`
}

// decodeEnvelope strictly decodes a tool call's arguments (duplicate, unknown
// or wrong-case members, trailing data and a missing input are refused).
func decodeEnvelope(args []byte) (prev *previousObservation, input json.RawMessage, err error) {
	var env envelope
	if err := jsonv2.Unmarshal(args, &env, jsonv2.RejectUnknownMembers(true)); err != nil {
		return nil, nil, fmt.Errorf("decode envelope: %w", err)
	}
	if len(env.Input) == 0 || env.Input.Kind() != '{' {
		return nil, nil, errors.New("decode envelope: input must be a JSON object")
	}
	if p := env.PreviousObservation; p != nil && (p.ToolCallID == "" || (p.Evaluation != Gained && p.Evaluation != NoGain)) {
		return p, json.RawMessage(env.Input), errors.New("decode envelope: previous_observation needs tool_call_id and evaluation GAINED or NO_GAIN")
	}
	return env.PreviousObservation, json.RawMessage(env.Input), nil
}

// Handle answers one tool call with the observation the model will see
// (JSON). Unknown tools are refused without a canonical record.
func (b *Boundary) Handle(call model.ToolCall) string {
	b.rc.emit(ToolCallStarted{Meta: b.rc.meta(), ToolCallID: call.ID, Tool: call.Name})
	inv := Invocation{ToolCallID: call.ID, Tool: call.Name, StartedAt: b.rc.Now()}
	t0 := time.Now()
	var obs observation
	if call.Name == ReadSkillTool && b.reg.playbooks != nil {
		return b.readSkill(call, inv, t0)
	}
	adapter, ok := b.reg.adapters[call.Name]
	if !ok {
		// Not authorised, not emulated, not recorded.
		obs = observation{ToolCallID: call.ID, Tool: call.Name, EvidenceStatus: string(tools.StatusError), ErrorCode: tools.CodeInvalidInput}
		out := mustMarshal(obs)
		inv.Kind, inv.Status, inv.Observation = runrecord.KindControl, StatusRefused, out
		b.rc.emit(ToolCallFinished{Meta: b.rc.meta(), Invocation: inv})
		return string(out)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	obs, inv = b.handleEvidence(adapter, call, inv)
	inv.Duration = time.Since(t0)
	return b.finish(obs, inv)
}

// handleEvidence runs the protocol for one evidence call; b.mu is held:
// the run may continue, the envelope decodes, the previous evaluation is
// taken, the input is valid and not a repeat, the budget has a call left;
// then the adapter runs and its outcome becomes the observation, unless
// the run was interrupted meanwhile.
func (b *Boundary) handleEvidence(adapter tools.Adapter, call model.ToolCall, inv Invocation) (observation, Invocation) {
	base := observation{ToolCallID: call.ID, Tool: call.Name}
	if b.stop != "" {
		return refused(base.control(runrecord.ControlStop), inv, "stop required: "+string(b.stop))
	}
	prev, input, err := decodeEnvelope(call.Arguments)
	if err != nil {
		code := RepairEnvelope
		if prev != nil && prev.ToolCallID != "" && b.pending != "" {
			code = RepairWrong
		}
		inv.Input = boundedRaw(call.Arguments)
		return refused(b.repair(base, code), inv, err.Error())
	}
	inv.Input = input
	if o, detail, ok := b.evaluate(prev, base, &inv); !ok {
		return refused(o, inv, detail)
	}
	canon, err := adapter.Canonical(input)
	if err != nil {
		return b.invalidInput(err, base, inv)
	}
	inv.Input, inv.Summary = canon.Input, termsafe.Strip(canon.Summary)
	key := call.Name + "\x00" + string(canon.Input)
	if orig, dup := b.seen[key]; dup {
		o := base.control(runrecord.ControlDuplicate)
		o.Original = orig
		return refused(o, inv, "equivalent to "+orig)
	}
	if err := b.rc.reserveToolCall(); err != nil {
		return b.stopOn(err, base, inv)
	}
	b.seen[key] = call.ID
	limit := b.obsLimit - len(call.ID) - len(call.Name) - 96
	out := execute(b.rc.ctx, adapter, tools.Call{
		SessionID: b.rc.sessionID, RunID: b.rc.runID, ToolCallID: call.ID, Tool: call.Name,
		Input: canon.Input, Now: b.rc.Now(), MaxBytes: limit,
		Progress: func(s tools.Step) {
			b.rc.emit(ToolCallProgress{Meta: b.rc.meta(), ToolCallID: call.ID, Tool: call.Name, Step: s})
		},
	})
	o, inv := b.observe(adapter, out, limit, base, inv)
	if r := b.rc.Interrupted(); r != "" {
		return discarded(r, base, inv)
	}
	if inv.EvidenceStatus == tools.EvidenceFound {
		b.pending = call.ID
	}
	return o, inv
}

// execute runs the tool's call and turns a panic of it (on the calling
// goroutine) into an INTERNAL failure, so a faulty tool ends its own call,
// audited like any failure, and not the run, its store or an MCP server.
func execute(ctx context.Context, adapter tools.Adapter, call tools.Call) (out tools.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = tools.Failed(tools.CodeInternal, fmt.Errorf("%s failed inside the tool (a bug of superbiz, please report it): %v", call.Tool, r))
		}
	}()
	return adapter.Execute(ctx, call)
}

// control is the observation with a control answer and nothing else.
func (o observation) control(c string) observation {
	o.Control = c
	return o
}

// repair asks the model to repair its call (code says what), naming the
// call whose evaluation is awaited, if any.
func (b *Boundary) repair(base observation, code string) observation {
	o := base.control(runrecord.ControlRepair)
	o.ErrorCode, o.Expected = code, b.pending
	return o
}

// refused records a call answered by control alone: not run, not counted.
func refused(o observation, inv Invocation, detail string) (observation, Invocation) {
	inv.Kind, inv.Status, inv.Control, inv.ErrorCode, inv.Detail = runrecord.KindControl, StatusRefused, o.Control, o.ErrorCode, detail
	return o, inv
}

// evaluate takes the model's evaluation (previous_observation) of the
// EVIDENCE_FOUND call awaiting one, if any: this call consumes it whatever
// happens next, and it counts towards saturation. ok is false, with the
// observation and detail of the refusal, when the evaluation is missing,
// names another call, or saturates the run (STOP_REQUIRED from then on).
func (b *Boundary) evaluate(prev *previousObservation, base observation, inv *Invocation) (o observation, detail string, ok bool) {
	if b.pending == "" {
		return base, "", true
	}
	switch {
	case prev == nil:
		return b.repair(base, RepairMissing), "previous_observation missing", false
	case prev.ToolCallID != b.pending:
		return b.repair(base, RepairWrong), "previous_observation names another call", false
	}
	inv.Evaluated, inv.Evaluation = prev.ToolCallID, prev.Evaluation
	b.pending = ""
	if prev.Evaluation == Gained {
		b.gained++
		b.noGainRun = 0
	} else {
		b.noGain++
		b.noGainRun++
	}
	if b.noGainRun >= b.rc.budget.MaxNoGain {
		b.requireStopLocked(runrecord.StopSaturated)
		return base.control(runrecord.ControlStop), "information saturated", false
	}
	return base, "", true
}

// invalidInput answers an input the tool's Canonical refused: it takes a
// tool call of the budget (STOP_REQUIRED when none is left) and is recorded
// as an evidence step that ended INVALID_INPUT.
func (b *Boundary) invalidInput(err error, base observation, inv Invocation) (observation, Invocation) {
	if rerr := b.rc.reserveToolCall(); rerr != nil {
		return b.stopOn(rerr, base, inv)
	}
	inv.Kind, inv.Status = runrecord.KindEvidence, StatusCompleted
	inv.EvidenceStatus, inv.ErrorCode, inv.Detail = tools.StatusError, tools.CodeInvalidInput, egress.Error(err).String()
	o := base
	o.EvidenceStatus, o.ErrorCode = string(tools.StatusError), tools.CodeInvalidInput
	return o, inv
}

// observe turns an adapter's outcome into the observation and the record:
// a result is projected and must fit limit (else INTERNAL), with its tally
// and empty window kept redacted and bounded; an unknown status is
// INTERNAL; a failure's detail is recorded redacted, and one saying the
// store is full ends the run's audit.
func (b *Boundary) observe(adapter tools.Adapter, out tools.Outcome, limit int, base observation, inv Invocation) (observation, Invocation) {
	inv.Kind, inv.Status = runrecord.KindEvidence, StatusCompleted
	o := base
	switch out.Status {
	case tools.EvidenceFound, tools.NoEvidence:
		res, err := projection(out.Result)
		if err != nil || len(res) > limit {
			if err == nil {
				err = fmt.Errorf("projection of %d bytes exceeds the observation limit", len(res))
			}
			out = tools.Failed(tools.CodeInternal, err)
			break
		}
		o.EvidenceStatus, o.Result = string(out.Status), res
		if t, ok := adapter.(tools.Tallier); ok {
			inv.Tally = textclip.Bytes(egress.Mask(t.Tally(res)).Shown().String(), maxTallyBytes)
		}
		if out.Status == tools.NoEvidence {
			inv.EmptyWindow = textclip.Bytes(egress.Mask(out.EmptyWindow).String(), MaxCheckSummaryBytes)
		}
	case tools.StatusError:
	default:
		out = tools.Failed(tools.CodeInternal, fmt.Errorf("adapter returned status %q", out.Status))
	}
	if out.Status == tools.StatusError {
		o.EvidenceStatus, o.ErrorCode = string(tools.StatusError), stableCode(out.ErrorCode)
	}
	inv.EvidenceStatus, inv.ErrorCode = tools.EvidenceStatus(o.EvidenceStatus), o.ErrorCode
	if out.Detail != nil {
		inv.Detail = egress.Error(out.Detail).String()
		if b.rc.storeFull != nil && b.rc.storeFull(out.Detail) {
			// the store cannot hold the run's audit either: end it so
			b.rc.auditFailed(out.Detail)
		}
	}
	return o, inv
}

// discarded answers a call whose result arrived after the run was
// interrupted (r): it is not accepted, and the model is told to stop. A
// call the run's cancellation ended is audited CANCELLED whatever the
// adapter made of it: an HTTP client reports the cancellation's cause (the
// stop signal), not context.Canceled, and an adapter may have finished
// just before.
func discarded(r runrecord.StopReason, base observation, inv Invocation) (observation, Invocation) {
	inv.Status = StatusDiscarded
	if r == runrecord.StopCancelled {
		inv.Status, inv.EvidenceStatus, inv.ErrorCode = StatusCancelled, tools.StatusError, tools.CodeCancelled
	}
	return base.control(runrecord.ControlStop), inv
}

// RefuseExcess answers call, the first of the n calls of one answer past
// MaxCallsPerAnswer, with REPAIR_REQUIRED/TOO_MANY_CALLS and records it as
// one control step for all n; the others are never run nor answered (the
// caller leaves them out of the conversation).
func (b *Boundary) RefuseExcess(call model.ToolCall, n int) string {
	b.rc.emit(ToolCallStarted{Meta: b.rc.meta(), ToolCallID: call.ID, Tool: call.Name})
	inv := Invocation{ToolCallID: call.ID, Tool: call.Name, StartedAt: b.rc.Now()}
	obs := observation{ToolCallID: call.ID, Tool: call.Name, Control: runrecord.ControlRepair, ErrorCode: RepairTooMany}
	inv.Kind, inv.Status, inv.Control, inv.ErrorCode = runrecord.KindControl, StatusRefused, obs.Control, obs.ErrorCode
	inv.Detail = fmt.Sprintf("%d calls of one answer past the %d taken were not run", n, MaxCallsPerAnswer)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.finish(obs, inv)
}

// stopOn turns a refused reservation into STOP_REQUIRED for this call.
func (b *Boundary) stopOn(err error, base observation, inv Invocation) (observation, Invocation) {
	reason := ReasonOf(err)
	if reason == "" {
		reason = runrecord.StopInternal
	}
	b.requireStopLocked(reason)
	base.Control = runrecord.ControlStop
	inv.Kind, inv.Status, inv.Control, inv.Detail = runrecord.KindControl, StatusRefused, runrecord.ControlStop, "stop required: "+string(reason)
	return base, inv
}

func (b *Boundary) requireStopLocked(reason runrecord.StopReason) {
	if b.stop == "" {
		b.stop = reason
		b.rc.emit(StopRequired{Meta: b.rc.meta(), Reason: reason})
	}
}

// finish marshals the observation, accounts its bytes, records and reports
// the invocation; b.mu is held.
func (b *Boundary) finish(obs observation, inv Invocation) string {
	out := mustMarshal(obs)
	if inv.Status == StatusCompleted {
		if err := b.rc.ReserveBytes(len(out)); err != nil {
			// The run cannot hold this observation: it is discarded and the
			// model is told to stop.
			b.requireStopLocked(runrecord.StopByteBudget)
			inv.Status = StatusDiscarded
			if inv.EvidenceStatus == tools.EvidenceFound && b.pending == inv.ToolCallID {
				b.pending = ""
			}
			out = mustMarshal(observation{ToolCallID: obs.ToolCallID, Tool: obs.Tool, Control: runrecord.ControlStop})
		}
	}
	inv.Observation = out
	b.commit(inv)
	b.rc.budgetChanged()
	return string(out)
}

// commit numbers, keeps, records and reports one tool step; b.mu is held.
// The model's own arguments (the SQL it wrote, a search text) may hold a
// secret: the record every observer gets (progress line, TUI, audit, checks)
// carries them redacted; the adapter already ran with the real input. This
// is the boundary's one pass over the input and summary (the observation had
// its pass in projection); the run store's gate is the last line after it.
func (b *Boundary) commit(inv Invocation) {
	inv.Summary = egress.Mask(inv.Summary).String()
	if len(inv.Input) > 0 {
		in, err := egress.MaskJSON(inv.Input)
		if err != nil {
			// Not JSON (cannot happen for canonical or bounded input): keep
			// nothing rather than something unredacted.
			in = egress.JSON{}
		}
		inv.Input = in.Bytes()
	}
	inv.Seq = len(b.invocations) + 1
	b.invocations = append(b.invocations, inv)
	if b.rc.recorder != nil {
		if err := b.rc.recorder.RecordInvocation(context.WithoutCancel(b.rc.ctx), b.rc.runID, inv); err != nil {
			// Without an audit the run may not go on.
			b.rc.auditFailed(fmt.Errorf("record tool step %s: %w", inv.ToolCallID, err))
			b.stop = runrecord.StopInternal
		}
	}
	b.rc.emit(ToolCallFinished{Meta: b.rc.meta(), Invocation: inv})
}

// readSkill serves the guidance tool: the playbook body once per run.
func (b *Boundary) readSkill(call model.ToolCall, inv Invocation, t0 time.Time) string {
	type skillObs struct {
		ToolCallID string   `json:"tool_call_id"`
		Tool       string   `json:"tool"`
		Name       string   `json:"name,omitempty"`
		Body       string   `json:"body,omitempty"`
		Note       string   `json:"note,omitempty"`
		Error      string   `json:"error,omitempty"`
		ValidNames []string `json:"valid_names,omitempty"`
	}
	o := skillObs{ToolCallID: call.ID, Tool: ReadSkillTool}
	var args readSkillInput
	b.mu.Lock()
	defer b.mu.Unlock()
	inv.Kind, inv.Status = runrecord.KindGuidance, StatusCompleted
	inv.Input = boundedRaw(call.Arguments)
	if err := jsonv2.Unmarshal(call.Arguments, &args, jsonv2.RejectUnknownMembers(true)); err != nil || args.Name == "" {
		o.Error = `read_skill takes exactly {"name": "<playbook name>"}`
		o.ValidNames = b.playbookNames()
	} else if pb, ok := b.reg.playbooks.Get(args.Name); !ok {
		o.Error = "unknown playbook"
		o.ValidNames = b.playbookNames()
	} else if b.skillsRead[pb.Name] {
		o.Name, o.Note = pb.Name, "already loaded in this run; follow the instructions you already have"
	} else {
		b.skillsRead[pb.Name] = true
		o.Name, o.Body = pb.Name, termsafe.Strip(pb.Body)
	}
	inv.Summary = args.Name
	if o.Error != "" {
		// Nothing was loaded: the step says so wherever it is shown.
		inv.ErrorCode, inv.Detail = tools.CodeInvalidInput, o.Error
	}
	out := mustMarshal(o)
	inv.Observation = out
	inv.Duration = time.Since(t0)
	b.commit(inv)
	return string(out)
}

func (b *Boundary) playbookNames() []string {
	var names []string
	for _, p := range b.reg.playbooks.List() {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

// stableCode keeps only the error codes the model may see.
func stableCode(code string) string {
	switch code {
	case tools.CodeInvalidInput, tools.CodeNotReadOnly, tools.CodeNotAllowed, tools.CodeTimeout, tools.CodeCancelled, tools.CodeUnavailable, tools.CodeUnrecorded, tools.CodeNotRecorded, tools.CodeInternal:
		return code
	}
	return tools.CodeInternal
}

// projection marshals an adapter result and passes it through the one
// masking pass of the boundary (pkg/egress, shown: secret shapes, secret-named
// members, terminal escapes, control characters), keeping member order.
func projection(result any) (json.RawMessage, error) {
	raw, err := tools.MarshalJSON(result)
	if err != nil {
		return nil, fmt.Errorf("marshal projection: %w", err)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("projection is not a JSON object")
	}
	out, err := egress.MaskJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("mask projection: %w", err)
	}
	return out.Shown().Bytes(), nil
}

func mustMarshal(v any) json.RawMessage {
	b, err := tools.MarshalJSON(v)
	if err != nil {
		// Only fixed observation structs are marshalled here.
		panic(fmt.Sprintf("marshal observation: %v", err))
	}
	return b
}

// boundedRaw keeps at most 4 KiB of raw arguments for the audit.
func boundedRaw(b []byte) json.RawMessage {
	if json.Valid(b) && len(b) <= 4096 {
		return append(json.RawMessage(nil), b...)
	}
	s, _ := json.Marshal(egress.Mask(string(b[:min(len(b), 4096)])).String())
	return s
}

package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ToolCallID is the Tool Call ID of a direct tool call, as the harness
// would assign to the first call of a run whose server gave none.
const ToolCallID = "call_1"

// ToolCallRequest is one evidence tool (or read_skill) called directly, not
// by the agent: `superbiz tools call`, or an MCP client.
type ToolCallRequest struct {
	Tool string
	// Arguments are the call's arguments as the boundary takes them (the
	// envelope of an evidence tool, read_skill's own object).
	Arguments json.RawMessage
	// SessionID is the session an audited call is stored under: it must
	// exist; "" creates one (ToolCallOutput.SessionID names it).
	SessionID string
	// Unaudited runs the call without storing anything (`tools call`);
	// otherwise Deps.Store must be set and the call is a stored run.
	Unaudited bool
}

// ToolCallOutput is a finished direct tool call.
type ToolCallOutput struct {
	// SessionID and RunID name the stored run; "" when not audited.
	SessionID, RunID string
	// Observation is the JSON exactly as the model would see it.
	Observation json.RawMessage
	// Invocation is the boundary's record of the call (its Detail holds the
	// redacted reason of a refusal or failure).
	Invocation harness.Invocation
	// Class says whether the call was served, rejected or failed.
	Class ToolCallClass
	// Code is the stable code of a rejected or failed call.
	Code string
	// Status is the run status the call is stored with.
	Status runrecord.RunStatus
}

// ToolCallClass is what became of a direct tool call, read from its
// observation: the one rule behind `tools call`'s exit code and an
// audited call's run status.
type ToolCallClass string

// The classes of a direct tool call.
const (
	// ToolCallServed: EVIDENCE_FOUND, NO_EVIDENCE, or a playbook served.
	ToolCallServed ToolCallClass = "SERVED"
	// ToolCallRejected: the input was refused (INVALID_INPUT, NOT_READ_ONLY,
	// NOT_ALLOWED, arguments that are not one JSON object, an unknown playbook).
	ToolCallRejected ToolCallClass = "REJECTED"
	// ToolCallFailed: the backend failed (TIMEOUT, UNAVAILABLE, INTERNAL) or
	// the call was not executed.
	ToolCallFailed ToolCallClass = "FAILED"
)

// observationHead is the part of an observation that decides its class.
type observationHead struct {
	EvidenceStatus string `json:"evidence_status"`
	Control        string `json:"control"`
	ErrorCode      string `json:"error_code"`
	// Error is set by read_skill for a malformed call or an unknown name.
	Error string `json:"error"`
}

// ClassifyObservation classes the observation of a direct call of tool and
// returns the stable code of a rejection or failure (for read_skill's
// errors, INVALID_INPUT) and, for read_skill, its error text.
func ClassifyObservation(tool string, obs json.RawMessage) (class ToolCallClass, code, skillErr string, err error) {
	var h observationHead
	if err := json.Unmarshal(obs, &h); err != nil {
		return "", "", "", fmt.Errorf("%s: read the observation: %w", tool, err)
	}
	switch {
	case h.EvidenceStatus == string(tools.EvidenceFound), h.EvidenceStatus == string(tools.NoEvidence):
		return ToolCallServed, "", "", nil
	case h.EvidenceStatus == string(tools.StatusError):
		if h.ErrorCode == tools.CodeInvalidInput || h.ErrorCode == tools.CodeNotReadOnly || h.ErrorCode == tools.CodeNotAllowed {
			return ToolCallRejected, h.ErrorCode, "", nil
		}
		return ToolCallFailed, h.ErrorCode, "", nil
	case h.Control == runrecord.ControlRepair:
		return ToolCallRejected, h.ErrorCode, "", nil
	case h.Control != "":
		return ToolCallFailed, h.Control, "", nil
	case tool == harness.ReadSkillTool && h.Error != "":
		return ToolCallRejected, tools.CodeInvalidInput, h.Error, nil
	case tool == harness.ReadSkillTool:
		return ToolCallServed, "", "", nil
	}
	return "", "", "", fmt.Errorf("%s: unexpected observation %s", tool, obs)
}

// maxToolCallQuery bounds the one-line query of an audited tool call.
const maxToolCallQuery = 512

// toolCallQuery is the stored query of an audited call: the tool and its
// arguments on one line (the input of an evidence tool's envelope), bounded.
func toolCallQuery(tool string, args json.RawMessage) string {
	in := args
	var env struct {
		Input json.RawMessage `json:"input"`
	}
	if json.Unmarshal(args, &env) == nil && len(env.Input) > 0 {
		in = env.Input
	}
	line := strings.Join(strings.Fields(termsafe.Strip(string(in))), " ")
	return textclip.Bytes(tool+" "+line, maxToolCallQuery)
}

// CallTool runs one tool call through a fresh RunContext and Boundary over
// the toolset, exactly as a run would (budget, clock, observation limit,
// redaction). Audited (req.Unaudited false), it is a stored run of its own with the
// intent TOOL_CALL under req.SessionID: its one invocation is recorded as
// an agent's is, and the run ends SUCCESS (COMPLETED) when the call was
// served, FAILED (lifecycle FAILED, INPUT_REJECTED or INTERNAL_ERROR, the
// call's code as error_code) when it was not, CANCELLED when ctx ended it;
// nothing is released, so it has no release outcome; a call whose ctx has
// already ended is stored CANCELLED without running. Unaudited (`tools
// call`), nothing is stored. The returned error is for failures outside the
// call (the store).
func (d *Deps) CallTool(ctx context.Context, req ToolCallRequest) (ToolCallOutput, error) {
	out := ToolCallOutput{}
	var rc *harness.RunContext
	var err error
	switch {
	case req.Unaudited:
		opts := harness.RunOptions{SessionID: "s_tools", RunID: NewID("r_tools_"), Budget: d.Budget, Clock: d.Clock, Events: d.Events}
		if rc, err = harness.NewRunContext(ctx, opts); err != nil {
			return out, fmt.Errorf("start the tool call: %w", err)
		}
	case d.Store == nil:
		return out, errors.New("start the tool call: no run store to audit it in (set Unaudited to store nothing)")
	default:
		// The call was accepted: it is stored even when its caller already
		// cancelled it (queued for a slot), and then ends CANCELLED.
		if out.SessionID, err = d.resolveSession(context.WithoutCancel(ctx), req.SessionID, false); err != nil {
			return out, err
		}
		if rc, err = d.openRun(ctx, out.SessionID, toolCallQuery(req.Tool, req.Arguments), runrecord.IntentToolCall, "", nil); err != nil {
			return out, err
		}
		out.RunID = rc.RunID()
	}
	defer rc.Release()
	b := harness.NewBoundary(rc, d.Tools, d.Limits.Observation)
	out.Observation = json.RawMessage(b.Handle(model.ToolCall{ID: ToolCallID, Name: req.Tool, Arguments: req.Arguments}))
	if invs := b.Invocations(); len(invs) > 0 {
		out.Invocation = invs[len(invs)-1]
	}
	if out.Class, out.Code, _, err = ClassifyObservation(req.Tool, out.Observation); err != nil {
		return out, err
	}
	reason, proposed := runrecord.StopCompleted, runrecord.OutcomeSuccess
	switch {
	case rc.Interrupted() == runrecord.StopCancelled:
		reason, proposed = runrecord.StopCancelled, runrecord.OutcomeCancelled
	case out.Class == ToolCallRejected:
		reason, proposed = runrecord.StopInputRejected, runrecord.OutcomeFailed
	case out.Class == ToolCallFailed:
		reason, proposed = runrecord.StopInternal, runrecord.OutcomeFailed
	}
	end := rc.End(reason, proposed)
	out.Status = end.Outcome.Status()
	if req.Unaudited {
		return out, nil
	}
	return out, d.finishToolCall(rc, end, out)
}

// finishToolCall stores an audited call's terminal record: no release
// outcome (nothing was released), the call's code and redacted reason.
func (d *Deps) finishToolCall(rc *harness.RunContext, end harness.Ending, out ToolCallOutput) error {
	u := rc.Usage()
	u.DurationMS = rc.Elapsed().Milliseconds()
	fin := runstore.Finish{Status: out.Status, StopReason: end.Reason, Lifecycle: end.Lifecycle, Usage: u}
	if out.Status != runrecord.RunStatusSuccess {
		fin.ErrorCode = out.Code
		fin.ErrorMessage = termsafe.Strip(out.Invocation.Detail)
		if end.Reason == runrecord.StopCancelled {
			fin.ErrorCode, fin.ErrorMessage = string(runrecord.StopCancelled), "the client cancelled the call"
		}
	}
	auditErr := rc.AuditError()
	if err := d.Store.FinishRun(context.WithoutCancel(rc.Context()), rc.RunID(), fin); err != nil {
		return errors.Join(auditErr, fmt.Errorf("store the tool call's result: %w", err))
	}
	rc.Emit(harness.RunFinished{Meta: rc.Meta(), Lifecycle: end.Lifecycle, StopReason: end.Reason, Usage: u, Duration: rc.Elapsed(), Outcome: end.Outcome})
	return auditErr
}

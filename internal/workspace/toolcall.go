package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// ToolCall is one direct tool call: the use case's output and, for the
// verdict's message, why the input was not JSON.
type ToolCall struct {
	usecase.ToolCallOutput
	Tool string
	// SyntaxErr says why the input is not JSON, for the message on stderr
	// (the boundary's own reason is about the envelope it could not decode).
	SyntaxErr error
}

// Audit says whether CallTool stores the call: as a TOOL_CALL run under
// SessionID ("" creates a session), or, with Off, not at all (`tools call`);
// and who watches it.
type Audit struct {
	Off       bool
	SessionID string
	// Events, when set, receives the call's run events (MCP: the tool's
	// progress, harness.ToolCallProgress).
	Events harness.Sink
}

// NoAudit is `tools call`'s choice: nothing is stored.
var NoAudit = Audit{Off: true}

// CallTool runs one tool call through the use case over the workspace's
// tools, exactly as a run would (budget, clock, observation limit,
// redaction); audit says whether it is stored as a TOOL_CALL run (MCP) or
// not (`tools call`). For an evidence tool, input is the business input and
// is wrapped in the envelope; read_skill takes its arguments as they are.
// An unknown or unconfigured tool is a usage error listing the tools,
// before any call.
func (w *Workspace) CallTool(ctx context.Context, name string, input []byte, audit Audit) (ToolCall, error) {
	res := ToolCall{Tool: name}
	args := json.RawMessage(input)
	_, evidence := w.Tools.Adapter(name)
	switch {
	case evidence:
		if json.Valid(input) {
			env, err := json.Marshal(struct {
				Input json.RawMessage `json:"input"`
			}{json.RawMessage(input)})
			if err != nil {
				return res, fmt.Errorf("wrap the input in the envelope: %w", err)
			}
			args = env
		}
		// JSON that does not parse is passed on unwrapped: wrapping it could
		// make it parse by accident, and the model's own broken arguments
		// reach the boundary as they are, which answers INVALID_ENVELOPE.
		var v any
		if err := json.Unmarshal(input, &v); err != nil {
			res.SyntaxErr = fmt.Errorf("the input is not valid JSON: %w", err)
		}
	case name == harness.ReadSkillTool && w.Tools.Playbooks() != nil:
	default:
		return res, unknownTool(name, w.Tools)
	}
	d := w.Deps()
	// No model answers a direct call: the run names none.
	d.Model, d.ModelName, d.Host, d.Provider = nil, "", "", ""
	d.Events = audit.Events
	req := usecase.ToolCallRequest{Tool: name, Arguments: args, SessionID: audit.SessionID, Unaudited: audit.Off}
	out, err := d.CallTool(ctx, req)
	res.ToolCallOutput = out
	if err != nil {
		return res, w.StoreFailure(err)
	}
	return res, nil
}

// unknownTool is the usage error for a name the tools do not hold, listing
// them and saying how to configure a known but absent one.
func unknownTool(name string, reg *harness.Toolset) error {
	names := reg.Names()
	if reg.Playbooks() != nil {
		names = append(names, harness.ReadSkillTool)
	}
	if hint := registry.Setup(name); hint != "" {
		return exitcode.Usagef("tool %q is not configured: %s, or use --demo; the tools are %s", name, hint, strings.Join(names, ", "))
	}
	return &notfound.Error{Kind: "tool", Name: name, Valid: names}
}

// Verdict is the call's exit (docs/SPEC.md#superbiz-tools-call), nil for
// evidence or its honest absence; else an *exitcode.Error with the
// boundary's redacted reason: 2 for a rejected input, 4 when the tool's
// source could not be reached or read (UNAVAILABLE, as a model or
// Alertmanager that cannot be reached is 4), 1 for any other backend
// error, 130 when ctx ended the call. The MCP service shows its message.
func (r ToolCall) Verdict(ctx context.Context) error {
	class, code, skillErr, err := usecase.ClassifyObservation(r.Tool, r.Observation)
	if err != nil {
		return err
	}
	// The message is our words around the boundary's reason, which passed
	// the egress door when it was recorded and passes it again here.
	var reason egress.Text
	if d := r.Invocation.Detail; d != "" {
		reason = egress.Sprintf(": %s", egress.Mask(d).Shown())
	}
	if r.SyntaxErr != nil {
		reason = egress.Sprintf(": %s", egress.Error(r.SyntaxErr).Shown())
	}
	switch {
	case class == usecase.ToolCallServed:
		return nil
	case skillErr != "":
		return &exitcode.Error{Code: exitcode.Usage, Err: egress.Errorf("%s: %s", r.Tool, skillErr)}
	case class == usecase.ToolCallRejected && r.Invocation.Control == runrecord.ControlRepair:
		return &exitcode.Error{Code: exitcode.Usage, Err: egress.Errorf("%s: the input must be one JSON object (%s)%s", r.Tool, code, reason)}
	case class == usecase.ToolCallRejected:
		return &exitcode.Error{Code: exitcode.Usage, Err: egress.Errorf("%s rejected the input (%s)%s", r.Tool, code, reason)}
	case ctx.Err() != nil:
		// A stop signal ended the call: its outcome is CANCELLED whichever
		// step the stop caught (the boundary's STOP_REQUIRED control when
		// it came before the backend ran); the root makes the exit 130, 143
		// or 129.
		return &exitcode.Error{Code: exitcode.Cancelled, Err: egress.Errorf("%s was cancelled (%s)", r.Tool, tools.CodeCancelled)}
	case r.Invocation.Control != "":
		return &exitcode.Error{Code: exitcode.Failed, Err: egress.Errorf("%s was not executed (%s)%s", r.Tool, code, reason)}
	}
	exit := exitcode.Failed
	if code == tools.CodeUnavailable {
		exit = exitcode.Unavailable
	}
	return &exitcode.Error{Code: exit, Err: egress.Errorf("%s failed (%s)%s", r.Tool, code, reason)}
}

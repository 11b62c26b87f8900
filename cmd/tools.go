package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/internal/config"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// maxToolInputBytes bounds the JSON read for `tools call NAME -` from stdin;
// more is refused (exit 2), never cut; the boundary applies the real
// per-tool limits after that.
const maxToolInputBytes = 1 << 20

func (a *app) newToolsCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "tools",
		Short: "Show the tool definitions the model receives, or run one tool by hand",
		Long: `tools shows the evidence tools exactly as the model receives them and runs
one of them by hand on the configured sources (or the demo workspace with
--demo), through the same boundary, bounds and redaction as a diagnosis run.`,
		Args: subcommandArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.newToolsListCmd(), a.newToolsCallCmd(nil))
	return c
}

func (a *app) newToolsListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Print the tool definitions exactly as the model receives them",
		Long: `list prints the tools declared to the model for the current configuration:
each evidence tool's parameters wrapped in the progress envelope, plus the
read_skill guidance tool. -o json prints the definitions as one JSON array.`,
		Example: `  superbiz tools list --demo
  superbiz tools list -o json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w, err := a.openWorkspace(cmd, config.Overrides{})
			if err != nil {
				return err
			}
			defer w.Close()
			return a.printDefinitions(w.toolset.Definitions())
		},
	}
}

// printDefinitions writes the tool definitions: the JSON array with -o json,
// else each tool's name, description and parameter schema.
func (a *app) printDefinitions(defs []model.Tool) error {
	if a.flags.output == outputJSON {
		return writeJSON(a.io.Out, defs)
	}
	var b strings.Builder
	for i, d := range defs {
		if i > 0 {
			b.WriteString("\n")
		}
		var params bytes.Buffer
		if err := json.Indent(&params, d.Parameters, "    ", "  "); err != nil {
			return fmt.Errorf("tool %s: parameters schema: %w", d.Name, err)
		}
		fmt.Fprintf(&b, "%s\n  %s\n  parameters:\n    %s\n", d.Name, d.Description, params.String())
	}
	_, err := io.WriteString(a.io.Out, b.String())
	return err
}

// toolsCallOptions are what `tools call` was given: the tool and its input.
type toolsCallOptions struct {
	Name  string
	Input []byte
}

// newToolsCallCmd is `superbiz tools call`; runF replaces runToolsCall
// (tests), nil runs it.
func (a *app) newToolsCallCmd(runF func(*cobra.Command, *toolsCallOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "call NAME JSON|-",
		Short: "Run one tool on a business input and print the observation the model would see",
		Long: `call runs one tool's adapter on a business input (the "input" object of the
tool's envelope; "-" reads it from stdin) against the configured sources, or the
demo workspace with --demo, exactly as the agent would: the input is wrapped in
the envelope and goes through the same boundary, bounds and redaction as a run.
It prints the observation the model would see: pretty JSON, or with -o json the
observation object itself, whatever the outcome. No run is stored.

Exit codes: 0 for EVIDENCE_FOUND or NO_EVIDENCE, 2 for a rejected input
(INVALID_INPUT, NOT_READ_ONLY, NOT_ALLOWED, arguments that are not a JSON object, an unknown
tool), 1 for a backend error (TIMEOUT, UNAVAILABLE, INTERNAL), 130 for a call
cancelled by Ctrl-C (CANCELLED; 143 for SIGTERM, 129 for SIGHUP).`,
		Example: `  superbiz tools call --demo query_logs '{"service":"payment-service","level":"ERROR","since":"1h"}'
  superbiz tools call --demo query_mysql '{"sql":"SELECT status, count(*) FROM orders GROUP BY status"}'
  superbiz tools call lookup_knowledge '{"query":"redis timeout","top_k":2}'
  superbiz tools call read_skill '{"name":"diagnose-redis-timeout"}'`,
		Args: exactArgs(2, "a tool NAME and a JSON input (or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &toolsCallOptions{Name: args[0], Input: []byte(args[1])}
			if args[1] == "-" {
				b, err := io.ReadAll(io.LimitReader(a.io.In, maxToolInputBytes+1))
				if err != nil {
					return fmt.Errorf("read the tool input from stdin: %w", err)
				}
				if len(b) > maxToolInputBytes {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the tool input on stdin has more than %d bytes (1 MiB), the most that is read", maxToolInputBytes)}
				}
				opts.Input = bytes.TrimSpace(b)
			}
			if runF != nil {
				return runF(cmd, opts)
			}
			return a.runToolsCall(cmd, opts)
		},
	}
}

// runToolsCall runs one tool by hand, unaudited, and prints its observation.
func (a *app) runToolsCall(cmd *cobra.Command, opts *toolsCallOptions) error {
	w, err := a.openWorkspace(cmd, config.Overrides{})
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.callTool(cmd.Context(), opts.Name, opts.Input, noAudit)
	if err != nil {
		return err
	}
	if err := a.printObservation(res.Observation); err != nil {
		return err
	}
	return res.exit(cmd.Context())
}

// toolCallResult is one direct tool call: the use case's output and, for
// `tools call`'s message, why the input was not JSON.
type toolCallResult struct {
	usecase.ToolCallOutput
	Tool string
	// SyntaxErr says why the input is not JSON, for the message on stderr
	// (the boundary's own reason is about the envelope it could not decode).
	SyntaxErr error
}

// toolAudit says whether callTool stores the call: as a TOOL_CALL run under
// SessionID ("" creates a session), or, with Off, not at all (`tools call`).
type toolAudit struct {
	Off       bool
	SessionID string
}

// noAudit is `tools call`'s choice: nothing is stored.
var noAudit = toolAudit{Off: true}

// callTool runs one tool call through the use case over the workspace's
// toolset, exactly as a run would (budget, clock, observation limit,
// redaction); audit says whether it is stored as a TOOL_CALL run (MCP) or
// not (`tools call`). For an evidence tool, input is the
// business input and is wrapped in the envelope; read_skill takes its
// arguments as they are. An unknown or unconfigured tool is a usage error
// listing the tools, before any call.
func (w *workspace) callTool(ctx context.Context, name string, input []byte, audit toolAudit) (toolCallResult, error) {
	res := toolCallResult{Tool: name}
	args := json.RawMessage(input)
	_, evidence := w.toolset.Adapter(name)
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
	case name == harness.ReadSkillTool && w.toolset.Playbooks() != nil:
	default:
		return res, unknownTool(name, w.toolset)
	}
	d := w.deps()
	// No model answers a direct call: the run names none.
	d.Model, d.ModelName, d.Host, d.Provider = nil, "", "", ""
	req := usecase.ToolCallRequest{Tool: name, Arguments: args, SessionID: audit.SessionID, Unaudited: audit.Off}
	out, err := d.CallTool(ctx, req)
	res.ToolCallOutput = out
	if err != nil {
		return res, storeFailure(w.cfg.DBPath, err)
	}
	return res, nil
}

// unknownTool is the usage error for a name the toolset does not hold,
// listing the tools and saying how to configure a known but absent one.
func unknownTool(name string, reg *harness.Toolset) error {
	names := reg.Names()
	if reg.Playbooks() != nil {
		names = append(names, harness.ReadSkillTool)
	}
	if hint := registry.Setup(name); hint != "" {
		return usageErrorf("tool %q is not configured: %s, or use --demo; the tools are %s", name, hint, strings.Join(names, ", "))
	}
	return &notfound.Error{Kind: "tool", Name: name, Valid: names}
}

// exit maps the call's class to the exit code of docs/SPEC.md#superbiz-tools-call: 0 for
// evidence or its honest absence, 2 for a rejected input, 1 for a backend
// error, with the boundary's redacted reason on stderr.
func (r toolCallResult) exit(ctx context.Context) error {
	class, code, skillErr, err := usecase.ClassifyObservation(r.Tool, r.Observation)
	if err != nil {
		return err
	}
	reason := ""
	if d := r.Invocation.Detail; d != "" {
		reason = ": " + redact.StripControl(d)
	}
	if r.SyntaxErr != nil {
		reason = ": " + redact.Clean(r.SyntaxErr.Error())
	}
	switch {
	case class == usecase.ToolCallServed:
		return nil
	case skillErr != "":
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: %s", r.Tool, skillErr)}
	case class == usecase.ToolCallRejected && r.Invocation.Control == runrecord.ControlRepair:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s: the input must be one JSON object (%s)%s", r.Tool, code, reason)}
	case class == usecase.ToolCallRejected:
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s rejected the input (%s)%s", r.Tool, code, reason)}
	case ctx.Err() != nil:
		// a stop signal ended the call (CANCELLED, or STOP_REQUIRED when it
		// came before the backend ran): the root makes it 130, 143 or 129
		return &ExitError{Code: ExitCancelled, Err: fmt.Errorf("%s was cancelled (%s)%s", r.Tool, code, reason)}
	case r.Invocation.Control != "":
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s was not executed (%s)%s", r.Tool, code, reason)}
	}
	return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%s failed (%s)%s", r.Tool, code, reason)}
}

// printObservation writes the observation: with -o json the exact bytes the
// model would see on one line, else indented for reading.
func (a *app) printObservation(obs json.RawMessage) error {
	if a.flags.output == outputJSON {
		_, err := fmt.Fprintf(a.io.Out, "%s\n", obs)
		if err != nil {
			return fmt.Errorf("write the observation: %w", err)
		}
		return nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, obs, "", "  "); err != nil {
		return fmt.Errorf("indent the observation: %w", err)
	}
	b.WriteByte('\n')
	if _, err := a.io.Out.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write the observation: %w", err)
	}
	return nil
}

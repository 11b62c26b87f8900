package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	wsp "github.com/superbiz/superbiz/internal/workspace"

	"github.com/spf13/cobra"

	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
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
	c.AddCommand(a.newToolsListCmd(nil), a.newToolsCallCmd(nil))
	return c
}

// toolsListOptions are what `tools list` was given: the global flags
// (the workspace and -o).
type toolsListOptions struct {
	globalOptions
}

// newToolsListCmd is `superbiz tools list`; runF replaces runToolsList
// (tests), nil runs it.
func (a *app) newToolsListCmd(runF func(context.Context, *toolsListOptions) error) *cobra.Command {
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
			opts := &toolsListOptions{globalOptions: a.flags.options(cmd)}
			return runWith(cmd.Context(), opts, runF, a.runToolsList)
		},
	}
}

// runToolsList prints the tool definitions of the configured workspace.
func (a *app) runToolsList(ctx context.Context, opts *toolsListOptions) error {
	w, err := a.openEvidenceWorkspaceOf(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	return a.printDefinitions(w.Tools.Definitions(), opts.Output)
}

// printDefinitions writes the tool definitions: the JSON array with -o json,
// else each tool's name, description and parameter schema.
func (a *app) printDefinitions(defs []model.Tool, output outputFormat) error {
	if output == outputJSON {
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
	err := printPage(a.io.Out, b.String())
	return err
}

// toolsCallOptions are what `tools call` was given: the tool, its input
// and the global flags (the workspace and -o).
type toolsCallOptions struct {
	globalOptions
	Name  string
	Input []byte
}

// newToolsCallCmd is `superbiz tools call`; runF replaces runToolsCall
// (tests), nil runs it.
func (a *app) newToolsCallCmd(runF func(context.Context, *toolsCallOptions) error) *cobra.Command {
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
tool), 4 when the tool's source could not be reached or read (UNAVAILABLE), 1 for
another backend error (TIMEOUT, INTERNAL), 130 for a call
cancelled by Ctrl-C (CANCELLED; 143 for SIGTERM, 129 for SIGHUP).`,
		Example: `  superbiz tools call --demo query_logs '{"service":"payment-service","level":"ERROR","since":"1h"}'
  superbiz tools call --demo query_mysql '{"sql":"SELECT status, count(*) FROM orders GROUP BY status"}'
  superbiz tools call lookup_knowledge '{"query":"redis timeout","top_k":2}'
  superbiz tools call read_skill '{"name":"diagnose-redis-timeout"}'`,
		Args: exactArgs(2, "a tool NAME and a JSON input (or - for stdin)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts := &toolsCallOptions{globalOptions: a.flags.options(cmd), Name: args[0], Input: []byte(args[1])}
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
			return runWith(cmd.Context(), opts, runF, a.runToolsCall)
		},
	}
}

// runToolsCall runs one tool by hand, unaudited, and prints its observation.
func (a *app) runToolsCall(ctx context.Context, opts *toolsCallOptions) error {
	w, err := a.openEvidenceWorkspaceOf(ctx, opts.globalOptions)
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.CallTool(ctx, opts.Name, opts.Input, wsp.NoAudit)
	if err != nil {
		return err
	}
	if err := a.printObservation(res.Observation, opts.Output); err != nil {
		return err
	}
	return res.Verdict(ctx)
}

// printObservation writes the observation: with -o json the exact bytes the
// model would see on one line, else indented for reading.
func (a *app) printObservation(obs json.RawMessage, output outputFormat) error {
	doc, err := egress.MaskJSON(obs)
	if err != nil {
		return fmt.Errorf("write the observation: %w", err)
	}
	if output == outputJSON {
		err = a.io.Out.Printf("%s\n", doc)
	} else {
		err = a.io.Out.JSON(doc)
	}
	if err != nil {
		return fmt.Errorf("write the observation: %w", err)
	}
	return nil
}

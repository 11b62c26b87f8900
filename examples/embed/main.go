// Command embed runs superbiz's diagnosis agent inside another Go program,
// through the public packages only (github.com/superbiz/superbiz/pkg/...):
// the program brings its own evidence tool (disk usage of its hosts) and its
// own model (here a scripted one; a real program wraps its model client in
// model.ChatModel), the harness bounds and audits the run, and the release
// guards decide what is published.
//
// It is its own Go module with a replace of superbiz, so it builds the way
// an outside program does: Go refuses another module's internal/ packages,
// and this program stops compiling if the public API ever names one.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/toolschema"
)

func main() {
	if err := run(context.Background(), os.Stdout, script("orders-db-1")); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// query is the incident the agent diagnoses.
const query = "orders-db writes fail since 09:00"

// run diagnoses query with the disk tool and a model playing turns, and
// prints the published outcome. Anything but a published SUCCESS is an
// error: the script cites real tool results, so a guard refusing it is a
// regression.
func run(ctx context.Context, w io.Writer, turns []model.Message) error {
	reg, err := harness.NewToolset([]tools.Adapter{diskTool{usage: map[string]int{"orders-db-1": 100, "orders-db-2": 41}}}, nil)
	if err != nil {
		return fmt.Errorf("register the tools: %w", err)
	}
	rc, err := harness.NewRunContext(ctx, harness.RunOptions{
		SessionID: "embed-session", RunID: "embed-run-1",
		Budget: harness.DefaultBudget(),
		Clock:  harness.FixedClock{T: time.Date(2026, 12, 4, 9, 30, 0, 0, time.UTC)},
	})
	if err != nil {
		return fmt.Errorf("start the run: %w", err)
	}
	defer rc.Release()

	m := &scriptedModel{turns: turns}
	limits := agent.DefaultLimits()
	res := agent.Run(rc, agent.Config{Model: m, Tools: reg, Limits: limits, Language: "en", Reserved: 1}, agent.Input{Query: query})
	dec := release.Release(rc, release.Config{Model: m, Language: "en", ObservationLimit: limits.Observation}, query, res)

	fmt.Fprintf(w, "outcome: %s (stop reason %s)\n", dec.Outcome, dec.StopReason)
	for _, inv := range res.Invocations {
		fmt.Fprintf(w, "tool call %s %s: %s\n", inv.ToolCallID, inv.Tool, inv.Status)
	}
	if dec.Outcome != runrecord.OutcomeSuccess || dec.Published == nil {
		return fmt.Errorf("the run was not published: %s %s: %s", dec.Outcome, dec.StopReason, dec.ErrorMessage)
	}
	out, err := json.MarshalIndent(dec.Published, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the published result: %w", err)
	}
	fmt.Fprintf(w, "published:\n%s\n", out)
	return nil
}

// diskTool is this program's own evidence tool: the disk usage of a host,
// read here from a fixed table (a real one would ask the hosts).
type diskTool struct{ usage map[string]int }

// diskInput is the tool's business input, as the model sends it.
type diskInput struct {
	Host string `json:"host" jsonschema:"required,minLength=1" jsonschema_description:"host name"`
}

// diskResult is the whitelisted projection the model sees.
type diskResult struct {
	Host        string `json:"host"`
	UsedPercent int    `json:"used_percent"`
}

func (diskTool) Definition() model.Tool {
	return model.Tool{
		Name:        "disk_usage",
		Description: "The used share of a host's data disk, in percent.",
		Parameters:  toolschema.For[diskInput](),
	}
}

func (diskTool) Canonical(input json.RawMessage) (tools.Canonical, error) {
	var in diskInput
	dec := json.NewDecoder(strings.NewReader(string(input)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return tools.Canonical{}, tools.InvalidInput("disk_usage input: %v", err)
	}
	if in.Host = strings.TrimSpace(in.Host); in.Host == "" {
		return tools.Canonical{}, tools.InvalidInput("host is required")
	}
	canon, err := tools.EncodeCanonical(in)
	if err != nil {
		return tools.Canonical{}, err
	}
	return tools.Canonical{Input: canon, Summary: "disk usage of " + in.Host}, nil
}

func (t diskTool) Execute(_ context.Context, call tools.Call) tools.Outcome {
	var in diskInput
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Failed(tools.CodeInternal, fmt.Errorf("decode canonical input: %w", err))
	}
	used, ok := t.usage[in.Host]
	if !ok {
		return tools.Outcome{Status: tools.NoEvidence, Result: diskResult{Host: in.Host}}
	}
	return tools.Outcome{Status: tools.EvidenceFound, Result: diskResult{Host: in.Host, UsedPercent: used}}
}

// scriptedModel plays fixed answers in order, one per round: it implements
// the model port (model.ChatModel) the way a program's own client would.
type scriptedModel struct {
	turns []model.Message
	next  int
}

func (m *scriptedModel) Chat(ctx context.Context, _ model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	if m.next >= len(m.turns) {
		return model.Response{}, errors.New("scripted model: no turn left")
	}
	msg := m.turns[m.next]
	m.next++
	return model.Response{Message: msg, Usage: model.Usage{PromptTokens: 900, CompletionTokens: 80}, DoneReason: "stop", Model: "scripted"}, nil
}

// script is the model's side of the run: a tool call asking the disk usage
// of host, the diagnosis draft citing it as showing orders-db-1 full, and
// the SemanticGuard's verdict.
func script(host string) []model.Message {
	return []model.Message{
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_disk0001", Name: "disk_usage", Arguments: json.RawMessage(`{"input":{"host":` + strconv.Quote(host) + `}}`)}}},
		{Role: model.RoleAssistant, Content: `{"conclusion":{"summary":"orders-db-1's data disk is full, so writes to orders-db fail.","root_cause":"The data disk of orders-db-1 is at 100% use.","confidence":"MEDIUM"},` +
			`"analysis":[{"type":"FINDING","claim":"orders-db-1's data disk is 100% used.","scope":"disk usage of orders-db-1 at 09:30","tool_call_ids":["call_disk0001"]}],` +
			`"action_plan":[{"priority":"P0","step":"Free space on orders-db-1 (old binary logs first) or grow its data disk.","risk":"MEDIUM"}],` +
			`"recommendations":["Alert when a database disk passes 85%."],` +
			`"limitations":{"scope":"the disk usage of orders-db-1 only.","missing_info":["the database's own error log"]}}`},
		{Role: model.RoleAssistant, Content: `{"verdict":"SUPPORTED","reasons":["The finding restates the cited observation."]}`},
	}
}

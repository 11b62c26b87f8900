// Package mcpservice is what `superbiz mcp` serves: it implements
// mcpserver.Service over one open workspace, through the same use cases and
// views as the command line (`tools call`, `diagnose`, `alerts`, `runs`).
// mcpserver owns the protocol; internal/workspace owns what a call means
// (its verdict, the diagnosis's preparation) and internal/runview the JSON
// of a run, called here directly as cmd calls them; cmd owns the flags.
package mcpservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	alertsource "github.com/superbiz/superbiz/internal/integration/alerts"
	"github.com/superbiz/superbiz/internal/timeline"

	"github.com/superbiz/superbiz/internal/exitcode"
	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/internal/runview"
	"github.com/superbiz/superbiz/internal/usecase"
	"github.com/superbiz/superbiz/internal/workspace"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Options are where the service writes what a command would print.
type Options struct {
	// Lines prints a diagnosis's run events as lines (stderr).
	Lines harness.Sink
	// Notes receives the notes a command would print (stderr).
	Notes egress.Writer
}

// Service implements mcpserver.Service over one open workspace.
type Service struct {
	w *workspace.Workspace
	o Options
	// mu guards session: the one session this server stores its clients'
	// direct tool calls under, created at the first one.
	mu      sync.Mutex
	session string
}

// New is the service over the open workspace w.
func New(w *workspace.Workspace, o Options) *Service { return &Service{w: w, o: o} }

var _ mcpserver.Service = (*Service)(nil)

// Tools are the evidence tools with their business input schemas (the
// agent's envelope left out), and read_skill when playbooks are loaded.
func (s *Service) Tools() []mcpserver.Tool {
	var out []mcpserver.Tool
	for _, name := range s.w.Tools.Names() {
		ad, _ := s.w.Tools.Adapter(name)
		d := ad.Definition()
		out = append(out, mcpserver.Tool{Name: d.Name, Description: d.Description, Input: d.Parameters})
	}
	for _, d := range s.w.Tools.Definitions() {
		if d.Name == harness.ReadSkillTool {
			out = append(out, mcpserver.Tool{Name: d.Name, Description: d.Description, Input: d.Parameters})
		}
	}
	return out
}

// CallTool runs the tool exactly as `tools call` does, and audits it: each
// call is a stored TOOL_CALL run, under one session per server; each part
// of it that finishes (build_timeline: a detector) is progress. A rejected
// input or a failure is an error result with the message `tools call`
// prints. A call whose context already ended (cancelled while it waited for
// a slot) is stored CANCELLED without running.
func (s *Service) CallTool(ctx context.Context, name string, input json.RawMessage, progress func(mcpserver.Progress)) (mcpserver.Result, error) {
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	session, err := s.toolSession(context.WithoutCancel(ctx))
	if err != nil {
		return mcpserver.Result{}, err
	}
	call, err := s.w.CallTool(ctx, name, input, workspace.Audit{SessionID: session, Events: stepSink(progress)})
	if err != nil {
		return mcpserver.Result{IsError: true, Text: egress.Error(err)}, nil
	}
	return toolResult(call.Observation, call.Verdict(ctx))
}

// toolResult is a direct call's MCP result: the observation, and when the
// call was not served an isError result with the verdict's message, both
// through the door (a password in a driver's error never reaches the
// client).
func toolResult(observation json.RawMessage, verdict error) (mcpserver.Result, error) {
	obs, err := egress.MaskJSON(observation)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("mask the observation: %w", err)
	}
	r := mcpserver.Result{Structured: obs}
	if verdict != nil {
		r.IsError, r.Text = true, egress.Error(verdict)
	}
	return r, nil
}

// toolSession is the session of this server's audited tool calls, created
// at the first one.
func (s *Service) toolSession(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == "" {
		id := s.w.Store.NewID("s_")
		if err := s.w.Store.CreateSession(ctx, id); err != nil {
			return "", s.w.StoreFailure(fmt.Errorf("create the session of the tool calls: %w", err))
		}
		s.session = id
	}
	return s.session, nil
}

// Diagnose runs one diagnosis prepared by the workspace, as
// `superbiz diagnose -o json` does, sending each budget snapshot as
// progress and the run's events as lines.
func (s *Service) Diagnose(ctx context.Context, in mcpserver.DiagnoseInput, progress func(mcpserver.Progress)) (mcpserver.Result, error) {
	prep, err := s.w.PrepareDiagnosis(ctx, workspace.Diagnosis{Query: in.Query, Alert: in.Alert, FromAlert: in.Alert != ""})
	if err != nil {
		return mcpserver.Result{IsError: true, Text: egress.Error(err)}, nil
	}
	if prep.Note != "" {
		_ = s.o.Notes.Printf("superbiz: %s\n", prep.Note) // a note that cannot be printed does not stop the diagnosis
	}
	d := prep.Deps
	d.Events = harness.Sinks{s.o.Lines, progressSink(progress)}
	out, err := d.Diagnose(ctx, usecase.DiagnoseRequest{Query: prep.Query, SessionID: in.Session})
	if err != nil {
		return mcpserver.Result{}, s.w.StoreFailure(err)
	}
	r, err := structured(out)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("encode the diagnosis: %w", err)
	}
	r.Text = egress.Mask(out.Answer)
	// An honest FALLBACK is a result, not an error, to the client.
	if xerr := workspace.RunVerdict(out, s.w.Config); xerr != nil && exitcode.OfRun(out) != exitcode.Fallback {
		r.IsError = true
		r.Text = egress.Sprintf("%s\n\n%s", xerr, r.Text)
	}
	return r, nil
}

// progressSink turns the run's budget snapshots into progress: the model
// and tool calls used of their maxima, and the phase (the last model
// round's purpose or tool called); a tool's finished part (a
// build_timeline detector) is a progress of its own at the same count,
// saying what it found.
func progressSink(progress func(mcpserver.Progress)) harness.Sink {
	phase := "starting"
	var last mcpserver.Progress
	return harness.SinkFunc(func(ev harness.Event) {
		switch e := ev.(type) {
		case harness.ModelRoundStarted:
			phase = "model " + string(e.Purpose)
		case harness.ToolCallStarted:
			phase = "tool " + e.Tool
		case harness.ToolCallProgress:
			if line, ok := stepLine(e); ok {
				progress(mcpserver.Progress{Used: last.Used, Max: last.Max, Message: egress.Sprintf("tool %s: %s", e.Tool, line)})
			}
		case harness.BudgetChanged:
			last = mcpserver.Progress{
				Used: e.Usage.ModelCalls + e.Usage.ToolCalls, Max: e.Budget.MaxModelCalls + e.Budget.MaxToolCalls,
				Message: egress.Sprintf("%s: %d/%d model calls, %d/%d tool calls", phase, e.Usage.ModelCalls, e.Budget.MaxModelCalls, e.Usage.ToolCalls, e.Budget.MaxToolCalls),
			}
			progress(last)
		}
	})
}

// stepSink turns a direct tool call's finished parts into progress: a
// build_timeline call's detectors finished of the coverage lines it gives
// (timeline.Detected.Lines), the last one's result in words, masked.
func stepSink(progress func(mcpserver.Progress)) harness.Sink {
	if progress == nil {
		return nil
	}
	done := 0
	return harness.SinkFunc(func(ev harness.Event) {
		e, ok := ev.(harness.ToolCallProgress)
		if !ok {
			return
		}
		line, ok := stepLine(e)
		if !ok {
			return
		}
		done++
		d, _ := e.Step.(timeline.Detected)
		progress(mcpserver.Progress{Used: done, Max: max(d.Lines, done), Message: line})
	})
}

// stepLine is one finished part of a tool call in words, through the
// egress door; false for a step this service does not know.
func stepLine(e harness.ToolCallProgress) (egress.Text, bool) {
	d, ok := e.Step.(timeline.Detected)
	if !ok {
		return egress.Text{}, false
	}
	return egress.Mask(d.Line()), true
}

// ListAlerts is `superbiz alerts -o json`.
func (s *Service) ListAlerts(ctx context.Context) (mcpserver.Result, error) {
	if !alertsource.Configured(s.w.Config) {
		return mcpserver.Result{IsError: true, Text: egress.Const("no Alertmanager configured")}, nil
	}
	v, err := s.w.FiringAlerts(ctx)
	if err != nil {
		return mcpserver.Result{IsError: true, Text: egress.Error(err)}, nil
	}
	return structured(v)
}

// ListRuns is `superbiz runs -o json` as {"runs": […]}.
func (s *Service) ListRuns(ctx context.Context, in mcpserver.RunsListInput) (mcpserver.Result, error) {
	store := s.w.Store
	if in.Session != "" {
		if _, err := store.GetSession(ctx, in.Session); err != nil {
			if errors.Is(err, runstore.ErrNotFound) {
				return mcpserver.Result{IsError: true, Text: egress.Sprintf("no session %s in %s (runs_list without session lists the sessions of recent runs)", in.Session, store.Path())}, nil
			}
			return mcpserver.Result{}, err
		}
	}
	runs, err := store.ListRuns(ctx, runstore.ListFilter{SessionID: in.Session, Limit: in.Limit})
	if err != nil {
		return mcpserver.Result{}, err
	}
	return structured(map[string]any{"runs": runview.Runs(runs)})
}

// ShowRun is `superbiz runs show RUN_ID --offset N --limit N -o json`.
func (s *Service) ShowRun(ctx context.Context, in mcpserver.RunShowInput) (mcpserver.Result, error) {
	d, err := runview.RunPage(ctx, s.w.Store, in.RunID, runstore.InvocationPage{Offset: in.Offset, Limit: in.Limit})
	if err != nil {
		return mcpserver.Result{IsError: true, Text: egress.Error(err)}, nil
	}
	return structured(runview.DetailOf(d))
}

// Runbooks lists the indexed runbooks, none without [knowledge] paths, each
// named by its path inside the configured root (RunbookName).
func (s *Service) Runbooks(ctx context.Context) ([]mcpserver.Document, error) {
	if s.w.Index == nil {
		return nil, nil
	}
	books, err := s.w.Index.Runbooks(ctx)
	if err != nil {
		return nil, err
	}
	root := s.w.Index.SoleRoot()
	out := make([]mcpserver.Document, 0, len(books))
	for _, b := range books {
		out = append(out, mcpserver.Document{Name: RunbookName(root, b.Path), Title: egress.Mask(b.Title)})
	}
	return out, nil
}

// RunbookName is a runbook's resource name: its source (as lookup_knowledge
// cites it) without the root's id when one root is configured, so that the
// URI is superbiz://runbooks/<path inside the root>; with several roots the
// id stays, telling them apart.
func RunbookName(root, source string) string {
	if root == "" {
		return source
	}
	if rest, ok := strings.CutPrefix(source, root+"/"); ok {
		return rest
	}
	return source
}

// Runbook is one indexed runbook's text, masked like every observation.
func (s *Service) Runbook(ctx context.Context, name string) (mcpserver.Document, bool, error) {
	if s.w.Index == nil {
		return mcpserver.Document{}, false, nil
	}
	source := name
	if root := s.w.Index.SoleRoot(); root != "" {
		source = root + "/" + name
	}
	b, ok, err := s.w.Index.ReadRunbook(ctx, source)
	if err != nil || !ok {
		return mcpserver.Document{}, ok, err
	}
	return mcpserver.Document{Name: name, Title: egress.Mask(b.Title), Text: egress.Mask(b.Text)}, true, nil
}

// Skills are the loaded playbooks, masked.
func (s *Service) Skills() []mcpserver.Document {
	if s.w.Playbooks == nil {
		return nil
	}
	var out []mcpserver.Document
	for _, p := range s.w.Playbooks.List() {
		out = append(out, mcpserver.Document{Name: p.Name, Title: egress.Mask(p.Name), Description: egress.Mask(p.Description), Text: egress.Mask(p.Body)})
	}
	return out
}

// structured is a successful result holding v as JSON, through the door.
func structured(v any) (mcpserver.Result, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("encode the result: %w", err)
	}
	masked, err := egress.MaskJSON(body)
	if err != nil {
		return mcpserver.Result{}, fmt.Errorf("mask the result: %w", err)
	}
	return mcpserver.Result{Structured: masked}, nil
}

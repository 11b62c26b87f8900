package mcpservice

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/demo"
	logsource "github.com/superbiz/superbiz/internal/integration/logs"
	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/internal/registry"
	"github.com/superbiz/superbiz/internal/workspace"
	"github.com/superbiz/superbiz/pkg/egress"
)

// A call that was not served is an isError result whose text is masked: a
// password in a driver's error never reaches the MCP client.
func TestToolResultMasksFailures(t *testing.T) {
	obs := json.RawMessage(`{"evidence_status":"ERROR"}`)
	r, err := toolResult(obs, errors.New("query_mysql failed (UNAVAILABLE): dial db: password=hunter2 refused"))
	if err != nil || !r.IsError || strings.Contains(r.Text.String(), "hunter2") || !strings.Contains(r.Text.String(), egress.Marker) || string(r.Structured.Bytes()) != string(obs) {
		t.Errorf("failed call: %+v; want an isError result with the password masked and the observation kept", r)
	}
	if r, err := toolResult(obs, nil); err != nil || r.IsError || !r.Text.IsZero() {
		t.Errorf("served call: %+v; want a plain result", r)
	}
}

// A tool call goes through the workspace as `tools call` does: served, a
// rejected input with tools call's message, an unknown tool naming the
// tools; each served or rejected call is a stored TOOL_CALL run that
// runs_list lists.
func TestCallToolThroughWorkspace(t *testing.T) {
	ctx := context.Background()
	svc := New(openDemo(t), Options{})
	r, err := svc.CallTool(ctx, "query_logs", json.RawMessage(`{"service":"payment-service","level":"ERROR","since":"1h"}`), nil)
	if err != nil || r.IsError || !strings.Contains(string(r.Structured.Bytes()), `"evidence_status":"EVIDENCE_FOUND"`) {
		t.Fatalf("served call: %+v, %v; want the observation with evidence", r, err)
	}
	r, err = svc.CallTool(ctx, "query_logs", json.RawMessage(`{"level":"LOUD"}`), nil)
	if err != nil || !r.IsError || !strings.Contains(r.Text.String(), "query_logs rejected the input (INVALID_INPUT)") {
		t.Errorf("rejected call: %+v, %v; want tools call's message", r, err)
	}
	r, err = svc.CallTool(ctx, "query_redis", nil, nil)
	if err != nil || !r.IsError || !strings.Contains(r.Text.String(), "query_logs") {
		t.Errorf("unknown tool: %+v, %v; want an isError result listing the tools", r, err)
	}
	// The workspace's own error names the tool: masked like the rest.
	r, err = svc.CallTool(ctx, "password=hunter2", nil, nil)
	if err != nil || !r.IsError || strings.Contains(r.Text.String(), "hunter2") || !strings.Contains(r.Text.String(), egress.Marker) {
		t.Errorf("unknown tool with a password in its name: %+v, %v; want it masked", r, err)
	}
	r, err = svc.ListRuns(ctx, mcpserver.RunsListInput{})
	if err != nil || r.IsError || strings.Count(string(r.Structured.Bytes()), `"intent":"TOOL_CALL"`) != 2 {
		t.Errorf("runs_list: %s, %v; want the two calls as TOOL_CALL runs", r.Structured, err)
	}
}

// runs_list with a session the store does not hold is an isError result
// naming the session and how to find one, not a failure of the call.
func TestListRunsUnknownSession(t *testing.T) {
	svc := New(openDemo(t), Options{})
	r, err := svc.ListRuns(context.Background(), mcpserver.RunsListInput{Session: "s_nope"})
	if err != nil || !r.IsError || !strings.Contains(r.Text.String(), "no session s_nope") {
		t.Errorf("unknown session: %+v, %v; want an isError result naming it", r, err)
	}
}

// openDemo opens a workspace over the built-in demo's logs and a fresh run
// store, closed when the test ends.
func openDemo(t *testing.T) *workspace.Workspace {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ws, err := demo.Materialize(ctx, filepath.Join(dir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := registry.Defaults()
	cfg.DBPath = filepath.Join(dir, "superbiz.db")
	logsource.SetEntries(&cfg, ws.LogSources...)
	cfg.Now = demo.Now()
	w, err := workspace.Open(ctx, &cfg, workspace.Env{Getenv: func(string) string { return "" }, Warn: func(m string) { t.Log(m) }, Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

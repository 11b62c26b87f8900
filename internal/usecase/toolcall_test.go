package usecase

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// Auditing a direct tool call is an explicit choice of the request: with
// the store wired, Unaudited stores nothing, the default stores one
// TOOL_CALL run, a call whose context already ended is stored CANCELLED
// without running, and asking for an audit without a store is an error,
// never a silent unaudited call.
func TestCallToolAudit(t *testing.T) {
	d, _, _ := demoDeps(t, nil)
	d.Model = nil
	ctx := context.Background()
	args := json.RawMessage(`{"input":{"service":"payment-service","level":"ERROR","since":"1h"}}`)
	count := func() int {
		t.Helper()
		runs, err := d.Store.ListRuns(ctx, runstore.ListFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}

	out, err := d.CallTool(ctx, ToolCallRequest{Tool: "query_logs", Arguments: args, Unaudited: true})
	if err != nil || out.RunID != "" || out.Class != ToolCallServed || count() != 0 {
		t.Fatalf("unaudited: run %q class %s, %v, %d runs stored", out.RunID, out.Class, err, count())
	}

	out, err = d.CallTool(ctx, ToolCallRequest{Tool: "query_logs", Arguments: args})
	if err != nil || out.RunID == "" || out.Status != runrecord.RunStatusSuccess || count() != 1 {
		t.Fatalf("audited: run %q status %s, %v, %d runs stored", out.RunID, out.Status, err, count())
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	out, err = d.CallTool(cancelled, ToolCallRequest{Tool: "query_logs", Arguments: args, SessionID: out.SessionID})
	if err != nil || out.RunID == "" || out.Status != runrecord.RunStatusCancelled || count() != 2 {
		t.Fatalf("cancelled before it ran: run %q status %s, %v, %d runs stored", out.RunID, out.Status, err, count())
	}
	run, err := d.Store.GetRun(ctx, out.RunID)
	if err != nil || run.Status != runrecord.RunStatusCancelled {
		t.Fatalf("stored run: %v", err)
	}

	d.Store = nil
	if _, err := d.CallTool(ctx, ToolCallRequest{Tool: "query_logs", Arguments: args}); err == nil {
		t.Fatal("an audited call without a store ran")
	}
}

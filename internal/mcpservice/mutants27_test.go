package mcpservice

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/mcpserver"
	"github.com/superbiz/superbiz/pkg/redact"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// A tool call that fails, or answers with a problem, is an isError result
// whose text is masked: a password in a driver's error never reaches the
// MCP client.
func TestCallToolMasksFailures(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, tt := range []struct {
		name          string
		fail, problem error
	}{
		{"the call failed", errors.New("dial db: password=hunter2 refused"), nil},
		{"the answer's problem", nil, errors.New("query failed: password=hunter2 refused")},
	} {
		svc := New(Deps{
			Store:        st,
			StoreFailure: func(e error) error { return e },
			Tool: func(context.Context, string, json.RawMessage, string) (ToolAnswer, error) {
				return ToolAnswer{Observation: json.RawMessage(`{}`), Problem: tt.problem}, tt.fail
			},
		})
		r, err := svc.CallTool(ctx, "query_sql", nil)
		if err != nil || !r.IsError || strings.Contains(r.Text.String(), "hunter2") || !strings.Contains(r.Text.String(), redact.Marker) {
			t.Errorf("%s: %+v, %v; want an isError result with the password masked", tt.name, r, err)
		}
	}
}

// runs_list with a session the store does not hold is an isError result
// naming the session and how to find one, not a failure of the call.
func TestListRunsUnknownSession(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(Deps{Store: st, RunSummary: func(r runstore.RunSummary) any { return r.ID }})
	r, err := svc.ListRuns(ctx, mcpserver.RunsListInput{Session: "s_nope"})
	if err != nil || !r.IsError || !strings.Contains(r.Text.String(), "no session s_nope") {
		t.Errorf("unknown session: %+v, %v; want an isError result naming it", r, err)
	}
}

// openStore opens a fresh run store, closed when the test ends.
func openStore(t *testing.T) *runstore.Store {
	t.Helper()
	st, err := runstore.Open(context.Background(), filepath.Join(t.TempDir(), "superbiz.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

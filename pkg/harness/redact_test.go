package harness

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// sqlEcho is a query tool whose summary is the statement, as query_mysql's
// is; it remembers the input it was executed with.
type sqlEcho struct {
	mu   sync.Mutex
	last string
}

func (*sqlEcho) Definition() model.Tool {
	return model.Tool{Name: "sql_echo", Description: "sql", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (*sqlEcho) Canonical(in json.RawMessage) (tools.Canonical, error) {
	var v struct {
		SQL string `json:"sql"`
	}
	if err := json.Unmarshal(in, &v); err != nil {
		return tools.Canonical{}, err
	}
	return tools.Canonical{Input: in, Summary: "orders: " + v.SQL}, nil
}

func (s *sqlEcho) Execute(_ context.Context, c tools.Call) tools.Outcome {
	s.mu.Lock()
	s.last = string(c.Input)
	s.mu.Unlock()
	return tools.Outcome{Status: tools.NoEvidence, Result: map[string]any{"rows": []any{}}}
}

// TestToolCallRecordIsRedacted: the SQL the model wrote runs as written, but
// every record of it (the invocation, the ToolCallFinished event the
// progress line and TUI print, the checks) carries it redacted.
func TestToolCallRecordIsRedacted(t *testing.T) {
	const secret = "Hunt3rPw42"
	tool := &sqlEcho{}
	reg, err := NewToolset([]tools.Adapter{tool}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var events Collector
	rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s_1", RunID: "r_1", Budget: DefaultBudget(), Events: &events})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Release()
	b := NewBoundary(rc, reg, 8192)
	args := `{"input":{"sql":"SELECT id FROM users WHERE password = '` + secret + `'"}}`
	b.Handle(model.ToolCall{ID: "call_1", Name: "sql_echo", Arguments: json.RawMessage(args)})
	// A refused call (bad envelope) keeps its raw arguments in the record too.
	b.Handle(model.ToolCall{ID: "call_2", Name: "sql_echo", Arguments: json.RawMessage(`{"sql":"SELECT 1 -- password=` + secret + `"}`)})

	if !strings.Contains(tool.last, secret) {
		t.Fatalf("the adapter did not get the real input: %s", tool.last)
	}
	invs := b.Invocations()
	if len(invs) != 2 {
		t.Fatalf("invocations = %d", len(invs))
	}
	if got := invs[0].Summary; got != "orders: SELECT id FROM users WHERE password = '[REDACTED]'" {
		t.Errorf("summary = %q", got)
	}
	var finished int
	for _, ev := range events.Events() {
		if f, ok := ev.(ToolCallFinished); ok {
			finished++
			rec, _ := json.Marshal(f.Invocation)
			if strings.Contains(string(rec), secret) {
				t.Errorf("secret in the ToolCallFinished event: %s", rec)
			}
		}
	}
	if finished != 2 {
		t.Fatalf("ToolCallFinished events = %d", finished)
	}
	for _, inv := range invs {
		if !json.Valid(inv.Input) {
			t.Errorf("recorded input is not JSON: %s", inv.Input)
		}
	}
	for _, c := range b.Snapshot("").Checks {
		if strings.Contains(c.Summary, secret) {
			t.Errorf("secret in check summary %q", c.Summary)
		}
	}
}

package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

// tallyEcho is an evidence tool whose tally is the text it was built with.
type tallyEcho struct{ tally string }

func (tallyEcho) Definition() model.Tool {
	return model.Tool{Name: "tally_echo", Description: "tally", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (tallyEcho) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: "echo"}, nil
}
func (tallyEcho) Execute(context.Context, tools.Call) tools.Outcome {
	return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"n": 1}}
}
func (e tallyEcho) Tally(json.RawMessage) string { return e.tally }

// TestTallyRecorded: the adapter's tally is recorded whole up to
// maxTallyBytes (the longest an adapter of this repository says fits),
// cut with a marker past it, and redacted and stripped of control
// characters like every text a screen shows.
func TestTallyRecorded(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct{ name, tally, want string }{
		{"a knowledge tally at its longest", "top: payment-timeout.md#runbook-payment-ti… (3.25)", "top: payment-timeout.md#runbook-payment-ti… (3.25)"},
		{"a logs tally on another day", "2147483647 matched, first 11-27 23:58:01", "2147483647 matched, first 11-27 23:58:01"},
		{"too long: cut", long, long[:maxTallyBytes-len("…")] + "…"},
		{"a secret masked", "token=abcdefghijklmnopqrstuvwx", "token=[REDACTED]"},
		{"control characters dropped", "3 rows\x1b[31m", "3 rows"},
		{"nothing said", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewToolset([]tools.Adapter{tallyEcho{tc.tally}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := NewRunContext(context.Background(), RunOptions{SessionID: "s_1", RunID: "r_1", Budget: DefaultBudget()})
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Release()
			b := NewBoundary(rc, reg, 8192)
			b.Handle(model.ToolCall{ID: "call_1", Name: "tally_echo", Arguments: json.RawMessage(`{"input":{}}`)})
			invs := b.Invocations()
			if len(invs) != 1 || invs[0].Tally != tc.want {
				t.Fatalf("recorded tally %q, want %q (%+v)", invs[0].Tally, tc.want, invs)
			}
		})
	}
}

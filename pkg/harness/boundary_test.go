package harness

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/tools"
)

func TestDecodeEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		ok         bool
	}{
		{"input only", `{"input":{"q":"x"}}`, true},
		{"with evaluation", `{"previous_observation":{"tool_call_id":"call_1","evaluation":"NO_GAIN"},"input":{}}`, true},
		{"missing input", `{"previous_observation":{"tool_call_id":"call_1","evaluation":"GAINED"}}`, false},
		{"flat", `{"q":"x"}`, false},
		{"input not object", `{"input":"q"}`, false},
		{"duplicate", `{"input":{},"input":{}}`, false},
		{"wrong case", `{"Input":{}}`, false},
		{"trailing", `{"input":{}} {}`, false},
		{"bad evaluation", `{"previous_observation":{"tool_call_id":"call_1","evaluation":"MAYBE"},"input":{}}`, false},
		{"unknown in prev", `{"previous_observation":{"tool_call_id":"c","evaluation":"GAINED","x":1},"input":{}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeEnvelope([]byte(tc.args))
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(`{"input":{"q":"x"}}`)
	f.Add(`{"previous_observation":{"tool_call_id":"call_1","evaluation":"GAINED"},"input":{"a":[1,2]}}`)
	f.Add(`{"input":{}} trailing`)
	f.Fuzz(func(t *testing.T, args string) {
		prev, input, err := decodeEnvelope([]byte(args))
		if err != nil {
			return
		}
		if !json.Valid(input) || input[0] != '{' {
			t.Fatalf("accepted a non-object input %q", input)
		}
		if prev != nil && (prev.ToolCallID == "" || (prev.Evaluation != Gained && prev.Evaluation != NoGain)) {
			t.Fatalf("accepted previous observation %+v", prev)
		}
	})
}

func TestToolsetRefusesDuplicates(t *testing.T) {
	a := echoTool{}
	if _, err := NewToolset([]tools.Adapter{a, a}, nil); err == nil {
		t.Fatal("duplicate tool accepted")
	}
	if _, err := NewToolset([]tools.Adapter{nil}, nil); err == nil {
		t.Fatal("nil adapter accepted")
	}
	r, err := NewToolset([]tools.Adapter{a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defs := r.Definitions()
	if len(defs) != 1 || !json.Valid(defs[0].Parameters) || !strings.Contains(string(defs[0].Parameters), `"previous_observation"`) {
		t.Fatalf("definitions = %+v", defs)
	}
}

// TestProjectionMasks: the boundary's one pass masks secret shapes and
// secret-named members and strips escapes, keeping member order.
func TestProjectionMasks(t *testing.T) {
	out, err := projection(map[string]any{"b": "Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "a": "\x1b[31mred", "n": 1, "password": "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "abcdefghijklmnop") || strings.Contains(s, `\u001b`) || strings.Contains(s, "hunter2") || !strings.HasPrefix(s, `{"a":`) {
		t.Fatalf("projection = %s", s)
	}
}

// echoTool answers EVIDENCE_FOUND with a small result, at zero latency.
type echoTool struct{}

func (echoTool) Definition() model.Tool {
	return model.Tool{Name: "echo", Description: "echo", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (echoTool) Canonical(in json.RawMessage) (tools.Canonical, error) {
	return tools.Canonical{Input: in, Summary: "echo"}, nil
}
func (echoTool) Execute(_ context.Context, c tools.Call) tools.Outcome {
	return tools.Outcome{Status: tools.EvidenceFound, Result: map[string]any{"echo": string(c.Input), "rows": []int{1, 2, 3}}}
}

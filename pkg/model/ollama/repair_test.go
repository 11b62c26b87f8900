package ollama

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/pkg/model"
)

// Tool-call arguments sent as a JSON string (OpenAI-style proxies) are
// accepted when the string holds a JSON object, member order kept; any
// other string is a PROTOCOL error that says what was wrong.
func TestStringArguments(t *testing.T) {
	tests := []struct {
		name  string
		calls []ollamatest.ToolCall
		split bool
		want  []string // arguments of each call, byte for byte
		bad   string   // error fragment when the turn must fail
	}{
		{"object in a string", []ollamatest.ToolCall{{ID: "call_1", Name: "query_logs", Args: `{"since":"15m","limit":20,"contains":["<x>"]}`, ArgsAsString: true}}, false,
			[]string{`{"since":"15m","limit":20,"contains":["<x>"]}`}, ""},
		{"member order kept", []ollamatest.ToolCall{{ID: "call_1", Name: "q", Args: `{"z":1,"a":{"y":2,"b":3},"m":null}`, ArgsAsString: true}}, false,
			[]string{`{"z":1,"a":{"b":3,"y":2},"m":null}`}, ""},
		{"blank string is no arguments", []ollamatest.ToolCall{{ID: "call_1", Name: "q", Args: "  ", ArgsAsString: true}}, false, []string{`{}`}, ""},
		{"mixed with an object, split", []ollamatest.ToolCall{{ID: "call_1", Name: "a", Args: `{"k":"v"}`}, {ID: "call_2", Name: "b", Args: `{"n":2}`, ArgsAsString: true}}, true,
			[]string{`{"k":"v"}`, `{"n":2}`}, ""},
		{"string that is no JSON", []ollamatest.ToolCall{{ID: "call_1", Name: "query_logs", Args: "since=15m", ArgsAsString: true}}, false, nil,
			`tool call 0 (query_logs) sent its arguments as a JSON string that is not a JSON object: "since=15m"`},
		{"string holding an array", []ollamatest.ToolCall{{ID: "call_1", Name: "q", Args: `[1,2]`, ArgsAsString: true}}, false, nil, "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.Script(ollamatest.Turn{Content: []string{"checking"}, ToolCalls: tc.calls, SplitToolCalls: tc.split})
			c := newClient(t, s, nil)
			resp, err := c.Chat(context.Background(), userReq("q"))
			if tc.bad != "" {
				wantKind(t, err, model.ErrProtocol, tc.bad)
				return
			}
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			if len(resp.Message.ToolCalls) != len(tc.want) {
				t.Fatalf("tool calls %+v, want %d", resp.Message.ToolCalls, len(tc.want))
			}
			// The same arguments sent as objects give the same calls.
			plain := ollamatest.New(t)
			objs := append([]ollamatest.ToolCall(nil), tc.calls...)
			for i := range objs {
				objs[i].ArgsAsString = false
			}
			plain.Script(ollamatest.Turn{Content: []string{"checking"}, ToolCalls: objs, SplitToolCalls: tc.split})
			want, err := newClient(t, plain, nil).Chat(context.Background(), userReq("q"))
			if err != nil {
				t.Fatalf("Chat with object arguments: %v", err)
			}
			for i, w := range tc.want {
				got := string(resp.Message.ToolCalls[i].Arguments)
				if got != string(want.Message.ToolCalls[i].Arguments) {
					t.Errorf("call %d arguments %s, sent as an object they are %s", i, got, want.Message.ToolCalls[i].Arguments)
				}
				if strings.ReplaceAll(strings.ReplaceAll(got, `\u003c`, "<"), `\u003e`, ">") != w {
					t.Errorf("call %d arguments %s, want %s", i, got, w)
				}
			}
			if resp.Message.Content != "checking" {
				t.Errorf("content %q", resp.Message.Content)
			}
		})
	}
}

// An HTML page where the API's JSON belongs is named as such, with the
// HTTP status, the page's title and the host.
func TestHTMLBodies(t *testing.T) {
	tests := []struct {
		fault  ollamatest.Fault
		kind   model.ErrorKind
		status int
		frags  []string
	}{
		{ollamatest.FaultProxyHTML, model.ErrServer, 502, []string{"HTTP 502 with an HTML page (\"502 Bad Gateway\")", "a proxy or web server answered, not Ollama"}},
		{ollamatest.FaultHTMLPage, model.ErrProtocol, 200, []string{"HTTP 200 with an HTML page (\"Welcome to the intranet\")", "not Ollama"}},
	}
	for _, tc := range tests {
		t.Run(tc.fault.String(), func(t *testing.T) {
			s := ollamatest.New(t)
			s.Script(ollamatest.Turn{Fault: tc.fault})
			c := newClient(t, s, nil)
			_, err := c.Chat(context.Background(), userReq("q"))
			me := modelErr(t, err, tc.kind, append(tc.frags, s.URL())...)
			if me.Status != tc.status {
				t.Errorf("status %d, want %d", me.Status, tc.status)
			}
			if strings.Contains(err.Error(), "<") {
				t.Errorf("error repeats HTML: %v", err)
			}
		})
	}
}

// Every HTTP failure carries its status for the caller's hint.
func TestErrorStatus(t *testing.T) {
	for fault, status := range map[ollamatest.Fault]int{
		ollamatest.FaultHTTP500Body: 500, ollamatest.FaultHTTP500Empty: 500, ollamatest.FaultUnauthorized: 401,
		ollamatest.FaultBadRequest: 400, ollamatest.FaultModelNotFound: 404, ollamatest.FaultCutMidStream: 0,
	} {
		s := ollamatest.New(t)
		s.Script(ollamatest.Turn{Content: []string{"a"}, Fault: fault})
		c := newClient(t, s, nil)
		_, err := c.Chat(context.Background(), userReq("q"))
		if me := model.AsError(err); me == nil || me.Status != status {
			t.Errorf("%s: error %v has status %v, want %d", fault, err, me, status)
		}
	}
}

// FuzzRepairArguments: the repair never panics, and what it changes is
// still one JSON object whose arguments are objects.
func FuzzRepairArguments(f *testing.F) {
	f.Add([]byte(`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"a","arguments":"{\"x\":1}"}}]},"done":false}`))
	f.Add([]byte(`{"message":{"tool_calls":[{"function":{"arguments":"nope"}}]}}`))
	f.Add([]byte(`{"message":{"tool_calls":"x"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fixed, _, changed := repairArguments(line)
		if !changed {
			return
		}
		var chunk struct {
			Message struct {
				ToolCalls []struct {
					Function struct {
						Arguments json.RawMessage `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		}
		if err := json.Unmarshal(fixed, &chunk); err != nil {
			t.Fatalf("repaired line is not JSON: %v\n%s", err, fixed)
		}
	})
}

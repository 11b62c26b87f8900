package ollamatest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/goldenfile"
)

var fixed = WithClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) })

// post sends body and returns the status and the whole response body.
func post(t *testing.T, url, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("read %s: %v", path, err)
	}
	return resp.StatusCode, b
}

func TestWireGolden(t *testing.T) {
	turn := Turn{
		Thinking:        []string{"Let me ", "check."},
		Content:         []string{"Check", "ing logs"},
		ToolCalls:       []ToolCall{{ID: "call_ab12cd34", Name: "query_logs", Args: `{"z": 1, "a": {"y": 2.50, "b": [1, "x"]}}`}, {Name: "lookup_knowledge", Args: `{"query":"pool"}`}},
		PromptEvalCount: 120, EvalCount: 33,
	}
	for _, tc := range []struct {
		name, body string
		status     int
		turn       Turn
	}{
		{"stream.golden", `{"model":"qwen3:8b","messages":[{"role":"user","content":"hi"}]}`, 200, turn},
		{"whole.golden", `{"model":"qwen3:8b","messages":[],"stream":false}`, 200, turn},
		{"error_line.golden", `{"model":"qwen3:8b","messages":[]}`, 200, Turn{Content: []string{"a"}, Fault: FaultErrorLineMidStream}},
		{"malformed.golden", `{"model":"qwen3:8b","messages":[]}`, 200, Turn{Content: []string{"a"}, Fault: FaultMalformedLine, EvalCount: 1}},
		{"no_done.golden", `{"model":"qwen3:8b","messages":[]}`, 200, Turn{Content: []string{"a"}, Fault: FaultNoDone}},
		{"cut.golden", `{"model":"qwen3:8b","messages":[]}`, 200, Turn{Content: []string{"a", "b"}, Fault: FaultCutMidStream}},
		{"500_body.golden", `{"model":"qwen3:8b","messages":[]}`, 500, Turn{Fault: FaultHTTP500Body}},
		{"500_empty.golden", `{"model":"qwen3:8b","messages":[]}`, 500, Turn{Fault: FaultHTTP500Empty}},
		{"404.golden", `{"model":"qwen3:8b","messages":[]}`, 404, Turn{Fault: FaultModelNotFound}},
		{"400_tools.golden", `{"model":"qwen3:8b","messages":[]}`, 400, Turn{Fault: FaultToolsNotSupported}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(t, fixed)
			s.Script(tc.turn)
			status, b := post(t, s.URL(), "/api/chat", tc.body)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			goldenfile.Check(t, tc.name, b)
		})
	}
}

func TestScriptHandleAndExhaustion(t *testing.T) {
	s := NewServer(fixed)
	defer s.Close()
	s.Script(Turn{Content: []string{"one"}})
	s.Handle(func(req ChatRequest) Turn {
		last := req.Messages[len(req.Messages)-1]
		return Turn{Content: []string{"echo " + last.ToolCallID}}
	})
	_, b := post(t, s.URL(), "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"user","content":"q"}],"stream":false}`)
	if !strings.Contains(string(b), `"content":"one"`) {
		t.Errorf("first turn: %s", b)
	}
	_, b = post(t, s.URL(), "/api/chat", `{"model":"qwen3:8b","messages":[{"role":"tool","content":"{}","tool_name":"f","tool_call_id":"call_7"}],"stream":false}`)
	if !strings.Contains(string(b), `"content":"echo call_7"`) {
		t.Errorf("handled turn: %s", b)
	}
	if len(s.Problems()) != 0 {
		t.Errorf("problems %v", s.Problems())
	}
	s.Handle(nil)
	status, b := post(t, s.URL(), "/api/chat", `{"model":"qwen3:8b","messages":[]}`)
	if status != 500 || !strings.Contains(string(b), "script exhausted") {
		t.Errorf("exhausted: %d %s", status, b)
	}
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], "call 3") {
		t.Errorf("problems %v", p)
	}
	s.Script(Turn{ToolCalls: []ToolCall{{Name: "f", Args: `[1]`}}})
	status, _ = post(t, s.URL(), "/api/chat", `{"model":"qwen3:8b","messages":[]}`)
	if status != 500 || len(s.Problems()) != 2 || !strings.Contains(s.Problems()[1], "Args must be a JSON object") {
		t.Errorf("invalid args: %d %v", status, s.Problems())
	}
	if s.ChatCount() != 4 || s.Pending() != 0 {
		t.Errorf("ChatCount %d Pending %d", s.ChatCount(), s.Pending())
	}
}

func TestRecording(t *testing.T) {
	s := New(t, fixed)
	s.Script(Turn{Content: []string{"ok"}})
	body := `{"model":"qwen3:8b","messages":[{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"index":0,"name":"f","arguments":{"b":1,"a":2}}}]}],` +
		`"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}],` +
		`"format":{"type":"object"},"options":{"num_ctx":4096,"temperature":0},"think":false,"stream":true,"keep_alive":"5m"}`
	post(t, s.URL(), "/api/chat", body)
	post(t, s.URL(), "/api/chat", `not json`)
	reqs := s.Requests()
	if len(reqs) != 2 || string(reqs[0].Body) != body || reqs[0].Status != 200 || reqs[1].Status != 400 || reqs[1].Chat != nil {
		t.Fatalf("recorded %+v", reqs)
	}
	crs := s.ChatRequests()
	if len(crs) != 1 {
		t.Fatalf("chat requests %d", len(crs))
	}
	c := crs[0]
	if c.ThinkText() != "false" || !c.Streaming() || string(c.Format) != `{"type":"object"}` || c.Options["num_ctx"] != float64(4096) ||
		string(c.KeepAlive) != `"5m"` || len(c.Tools) != 1 || string(c.Tools[0].Function.Parameters) != `{"type":"object","properties":{}}` ||
		string(c.Messages[0].ToolCalls[0].Function.Arguments) != `{"b":1,"a":2}` || c.Messages[0].ToolCalls[0].ID != "call_1" {
		t.Errorf("decoded %+v", c)
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := New(t, fixed, WithVersion("9.9.9"), WithModels(Model{Name: "a:1b", Capabilities: []string{"completion"}}, Model{Name: "b:latest", Capabilities: []string{"completion", "tools"}}))
	get := func(path string) (int, string) {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := get("/"); code != 200 || b != "Ollama is running" {
		t.Errorf("GET / = %d %q", code, b)
	}
	resp, err := http.Head(s.URL() + "/")
	if err != nil {
		t.Fatalf("HEAD /: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("HEAD / = %d", resp.StatusCode)
	}
	if code, b := get("/api/version"); code != 200 || b != "{\"version\":\"9.9.9\"}\n" {
		t.Errorf("version = %d %q", code, b)
	}
	code, b := get("/api/tags")
	goldenfile.Check(t, "tags.golden", []byte(b))
	if code != 200 {
		t.Errorf("tags status %d", code)
	}
	status, sb := post(t, s.URL(), "/api/show", `{"model":"b"}`)
	if status != 200 || !strings.Contains(string(sb), `"capabilities":["completion","tools"]`) {
		t.Errorf("show b = %d %s", status, sb)
	}
	status, sb = post(t, s.URL(), "/api/show", `{"model":"zz"}`)
	if status != 404 || string(sb) != "{\"error\":\"model 'zz' not found\"}\n" {
		t.Errorf("show zz = %d %s", status, sb)
	}
	if n := len(s.Requests()); n != 6 {
		t.Errorf("recorded %d requests, want 6", n)
	}
}

func TestConcurrentChats(t *testing.T) {
	s := New(t)
	const n = 16
	for range n {
		s.Script(Turn{Content: []string{"x"}})
	}
	done := make(chan int, n)
	for range n {
		go func() {
			resp, err := http.Post(s.URL()+"/api/chat", "application/json", strings.NewReader(`{"model":"qwen3:8b","messages":[]}`))
			if err != nil {
				done <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	for range n {
		if c := <-done; c != 200 {
			t.Errorf("status %d", c)
		}
	}
	if s.ChatCount() != n || s.Pending() != 0 {
		t.Errorf("ChatCount %d Pending %d", s.ChatCount(), s.Pending())
	}
}

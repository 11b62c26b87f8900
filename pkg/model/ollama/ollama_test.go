package ollama

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
)

func newClient(t *testing.T, s *ollamatest.Server, mod func(*Options)) *Client {
	t.Helper()
	o := Options{Host: s.URL(), Model: ollamatest.DefaultModel, NumCtx: 16384, Temperature: 0, RequestTimeout: 5 * time.Second}
	if mod != nil {
		mod(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

func userReq(text string) model.Request {
	return model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: text}}}
}

func TestChatAccumulates(t *testing.T) {
	s := ollamatest.New(t)
	s.Script(ollamatest.Turn{
		Thinking:        []string{"Pool ", "looks ", "full."},
		Content:         []string{"The ", "pool ", "is ", "exhausted."},
		PromptEvalCount: 321, EvalCount: 45, DoneReason: "length",
	})
	c := newClient(t, s, nil)
	resp, err := c.Chat(context.Background(), userReq("why?"))
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if got, want := resp.Message.Content, "The pool is exhausted."; got != want {
		t.Errorf("content %q, want %q", got, want)
	}
	if got, want := resp.Message.Thinking, "Pool looks full."; got != want {
		t.Errorf("thinking %q, want %q", got, want)
	}
	if resp.Message.Role != model.RoleAssistant {
		t.Errorf("role %q", resp.Message.Role)
	}
	if resp.Usage != (model.Usage{PromptTokens: 321, CompletionTokens: 45}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if resp.DoneReason != "length" || resp.Model != ollamatest.DefaultModel {
		t.Errorf("done_reason %q model %q", resp.DoneReason, resp.Model)
	}
	if len(resp.Message.ToolCalls) != 0 {
		t.Errorf("unexpected tool calls %+v", resp.Message.ToolCalls)
	}
}

func TestChatToolCalls(t *testing.T) {
	history := []model.Message{
		{Role: model.RoleSystem, Content: "sys"},
		{Role: model.RoleUser, Content: "q"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_1", Name: "lookup_knowledge", Arguments: json.RawMessage(`{"query":"x"}`)}, {ID: "call_3", Name: "query_logs", Arguments: json.RawMessage(`{}`)}}},
		{Role: model.RoleTool, Content: "{}", ToolName: "lookup_knowledge", ToolCallID: "call_1"},
		{Role: model.RoleTool, Content: "{}", ToolName: "query_logs", ToolCallID: "call_3"},
	}
	tests := []struct {
		name    string
		turn    ollamatest.Turn
		history []model.Message
		want    []model.ToolCall
	}{
		{
			name: "one call with id kept exactly",
			turn: ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_ab12cd34", Name: "query_logs", Args: `{"since":"15m","limit":20}`}}},
			want: []model.ToolCall{{ID: "call_ab12cd34", Name: "query_logs", Arguments: json.RawMessage(`{"since":"15m","limit":20}`)}},
		},
		{
			name: "several calls in separate chunks, ids kept, order kept",
			turn: ollamatest.Turn{SplitToolCalls: true, ToolCalls: []ollamatest.ToolCall{
				{ID: "call_zz99yy88", Name: "query_mysql", Args: `{"sql":"SELECT 1","max_rows":5}`},
				{ID: "call_00aa11bb", Name: "lookup_knowledge", Args: `{"query":"pool","top_k":3}`},
			}},
			want: []model.ToolCall{
				{ID: "call_zz99yy88", Name: "query_mysql", Arguments: json.RawMessage(`{"sql":"SELECT 1","max_rows":5}`)},
				{ID: "call_00aa11bb", Name: "lookup_knowledge", Arguments: json.RawMessage(`{"query":"pool","top_k":3}`)},
			},
		},
		{
			name: "no ids on a fresh conversation",
			turn: ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "a", Args: `{}`}, {Name: "b"}}},
			want: []model.ToolCall{{ID: "call_1", Name: "a", Arguments: json.RawMessage(`{}`)}, {ID: "call_2", Name: "b", Arguments: json.RawMessage(`{}`)}},
		},
		{
			name:    "no ids never collide with history",
			history: history,
			turn:    ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{Name: "a"}, {ID: "call_4", Name: "b"}, {Name: "c"}}},
			// prior=2: first → call_3 (taken) → call_4 (taken by this response) → call_5; third → call_5 taken → call_6.
			want: []model.ToolCall{{ID: "call_5", Name: "a", Arguments: json.RawMessage(`{}`)}, {ID: "call_4", Name: "b", Arguments: json.RawMessage(`{}`)}, {ID: "call_6", Name: "c", Arguments: json.RawMessage(`{}`)}},
		},
		{
			name: "numeric and nested arguments keep their values, top-level order kept",
			turn: ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_n", Name: "f", Args: `{"z": 3, "a": 2.5, "neg": -1e3, "big": 9007199254740992, "nested": {"y": [1, 2.25, {"k": true}], "b": null}, "s": "<&>"}`}}},
			want: []model.ToolCall{{ID: "call_n", Name: "f", Arguments: json.RawMessage(`{"z":3,"a":2.5,"neg":-1000,"big":9007199254740992,"nested":{"b":null,"y":[1,2.25,{"k":true}]},"s":"\u003c\u0026\u003e"}`)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.Script(tc.turn)
			c := newClient(t, s, nil)
			req := userReq("q")
			if tc.history != nil {
				req.Messages = tc.history
			}
			resp, err := c.Chat(context.Background(), req)
			if err != nil {
				t.Fatalf("Chat: %v", err)
			}
			got := resp.Message.ToolCalls
			if len(got) != len(tc.want) {
				t.Fatalf("got %d calls %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if got[i].ID != tc.want[i].ID || got[i].Name != tc.want[i].Name || string(got[i].Arguments) != string(tc.want[i].Arguments) {
					t.Errorf("call %d = {%s %s %s}, want {%s %s %s}", i, got[i].ID, got[i].Name, got[i].Arguments, tc.want[i].ID, tc.want[i].Name, tc.want[i].Arguments)
				}
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	for _, think := range []bool{false, true} {
		t.Run(map[bool]string{false: "think false", true: "think true"}[think], func(t *testing.T) {
			s := ollamatest.New(t)
			s.Script(ollamatest.Turn{Content: []string{"ok"}})
			c := newClient(t, s, func(o *Options) { o.Think = think; o.NumCtx = 8192; o.Temperature = 0.2 })
			schema := json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string","enum":["A","B"]}},"required":["intent"]}`)
			req := model.Request{
				Messages: []model.Message{
					{Role: model.RoleSystem, Content: "sys"},
					{Role: model.RoleUser, Content: "q"},
					{Role: model.RoleAssistant, Content: "", Thinking: "hmm", ToolCalls: []model.ToolCall{{ID: "call_ab12cd34", Name: "query_logs", Arguments: json.RawMessage(`{"since":"5m","limit":2}`)}}},
					{Role: model.RoleTool, Content: `{"evidence_status":"NO_EVIDENCE"}`, ToolName: "query_logs", ToolCallID: "call_ab12cd34"},
				},
				Tools: []model.Tool{{Name: "query_logs", Description: "Search logs.", Parameters: json.RawMessage(
					`{"type":"object","properties":{"since":{"type":"string","description":"window"},"limit":{"type":"integer"},"level":{"type":"string","enum":["ERROR","WARN"]}},"required":["since"]}`)}},
				Format: schema,
			}
			if _, err := c.Chat(context.Background(), req); err != nil {
				t.Fatalf("Chat: %v", err)
			}
			reqs := s.ChatRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d chat requests", len(reqs))
			}
			got := reqs[0]
			if got.Model != ollamatest.DefaultModel {
				t.Errorf("model %q", got.Model)
			}
			if want := map[bool]string{false: "false", true: "true"}[think]; got.ThinkText() != want {
				t.Errorf("think %q, want %q", got.ThinkText(), want)
			}
			if !got.Streaming() || got.Stream == nil {
				t.Errorf("stream not explicitly true: %v", got.Stream)
			}
			if got.Options["num_ctx"] != float64(8192) || got.Options["temperature"] != 0.2 {
				t.Errorf("options %v", got.Options)
			}
			if string(got.Format) != string(schema) {
				t.Errorf("format %s", got.Format)
			}
			if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Function.Name != "query_logs" || got.Tools[0].Function.Description != "Search logs." {
				t.Fatalf("tools %+v", got.Tools)
			}
			var params struct {
				Type       string                     `json:"type"`
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(got.Tools[0].Function.Parameters, &params); err != nil {
				t.Fatal(err)
			}
			if params.Type != "object" || len(params.Required) != 1 || params.Required[0] != "since" ||
				string(params.Properties["level"]) != `{"type":"string","enum":["ERROR","WARN"]}` ||
				string(params.Properties["since"]) != `{"type":"string","description":"window"}` {
				t.Errorf("parameters %s", got.Tools[0].Function.Parameters)
			}
			if len(got.Messages) != 4 {
				t.Fatalf("messages %+v", got.Messages)
			}
			a := got.Messages[2]
			if a.Role != "assistant" || a.Thinking != "hmm" || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_ab12cd34" ||
				a.ToolCalls[0].Function.Name != "query_logs" || string(a.ToolCalls[0].Function.Arguments) != `{"since":"5m","limit":2}` {
				t.Errorf("assistant message %+v", a)
			}
			tm := got.Messages[3]
			if tm.Role != "tool" || tm.ToolName != "query_logs" || tm.ToolCallID != "call_ab12cd34" || tm.Content != `{"evidence_status":"NO_EVIDENCE"}` {
				t.Errorf("tool message %+v", tm)
			}
		})
	}
}

// wantKind fails the test unless err is a *model.Error of kind whose message
// holds every fragment.
func wantKind(t *testing.T, err error, kind model.ErrorKind, frags ...string) {
	t.Helper()
	_ = modelErr(t, err, kind, frags...)
}

// modelErr is wantKind returning the error, for tests that look further.
func modelErr(t *testing.T, err error, kind model.ErrorKind, frags ...string) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *model.Error", err, err)
	}
	if me.Kind != kind || model.KindOf(err) != kind {
		t.Fatalf("kind %s, want %s (error: %v)", me.Kind, kind, err)
	}
	if me.Host == "" || me.Model == "" {
		t.Errorf("error does not name host and model: %+v", me)
	}
	t.Logf("%s: %v", kind, err)
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
	return me
}

func TestChatFaults(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name  string
		turn  ollamatest.Turn
		tools bool
		kind  model.ErrorKind
		frags []string
	}{
		{"500 with body", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body}, false, model.ErrServer, []string{"HTTP 500", ollamatest.DefaultServerError}},
		{"500 empty", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Empty}, false, model.ErrServer, []string{"HTTP 500 with an empty body"}},
		{"404 model not found", ollamatest.Turn{Fault: ollamatest.FaultModelNotFound}, false, model.ErrModelNotFound, []string{"HTTP 404", `not found, try pulling it first`}},
		{"400 tools not supported", ollamatest.Turn{Fault: ollamatest.FaultToolsNotSupported}, true, model.ErrToolsNotSupported, []string{"does not support tools"}},
		{"other 400", ollamatest.Turn{Fault: ollamatest.FaultBadRequest}, false, model.ErrBadRequest, []string{"HTTP 400", "invalid format"}},
		{"401", ollamatest.Turn{Fault: ollamatest.FaultUnauthorized}, false, model.ErrBadRequest, []string{"HTTP 401", "unauthorized"}},
		{"error line mid-stream", ollamatest.Turn{Content: []string{"a", "b"}, Fault: ollamatest.FaultErrorLineMidStream}, false, model.ErrServer, []string{"mid-stream", ollamatest.DefaultMidStreamError}},
		{"cut mid-stream", ollamatest.Turn{Content: []string{"a", "b"}, Fault: ollamatest.FaultCutMidStream}, false, model.ErrProtocol, []string{"stream cut after 2 chunks", "unexpected EOF"}},
		{"malformed line", ollamatest.Turn{Content: []string{"a"}, Fault: ollamatest.FaultMalformedLine}, false, model.ErrProtocol, []string{"malformed line", "this line is not JSON"}},
		{"no done", ollamatest.Turn{Content: []string{"a"}, ToolCalls: []ollamatest.ToolCall{{Name: "x"}}, Fault: ollamatest.FaultNoDone}, false, model.ErrProtocol, []string{"stream ended without done", "after 2 chunks"}},
		{"long body truncated", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body, ErrorMessage: long}, false, model.ErrServer, []string{"HTTP 500", "xxx…"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ollamatest.New(t)
			s.Script(tc.turn)
			c := newClient(t, s, nil)
			req := userReq("q")
			if tc.tools {
				req.Tools = []model.Tool{{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
			}
			resp, err := c.Chat(context.Background(), req)
			wantKind(t, err, tc.kind, tc.frags...)
			if resp.Message.Content != "" || resp.Message.ToolCalls != nil {
				t.Errorf("partial response returned with error: %+v", resp)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error text is %d bytes: %.100s…", len(err.Error()), err)
			}
		})
	}
}

func TestChatRealServerChecks(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithModels(ollamatest.Model{Name: "llama2:7b", Capabilities: []string{"completion"}}))
	t.Run("model not pulled", func(t *testing.T) {
		c := newClient(t, s, func(o *Options) { o.Model = "qwen3:8b" })
		_, err := c.Chat(context.Background(), userReq("q"))
		wantKind(t, err, model.ErrModelNotFound, `model "qwen3:8b" not found`)
	})
	t.Run("tools on a model without tools", func(t *testing.T) {
		c := newClient(t, s, func(o *Options) { o.Model = "llama2:7b" })
		req := userReq("q")
		req.Tools = []model.Tool{{Name: "t"}}
		_, err := c.Chat(context.Background(), req)
		wantKind(t, err, model.ErrToolsNotSupported, "registry.ollama.ai/library/llama2:7b does not support tools")
	})
	t.Run("think on a model without thinking", func(t *testing.T) {
		c := newClient(t, s, func(o *Options) { o.Model = "llama2:7b"; o.Think = true })
		_, err := c.Chat(context.Background(), userReq("q"))
		wantKind(t, err, model.ErrBadRequest, "does not support thinking")
	})
	if n := s.ChatCount(); n != 3 {
		t.Errorf("ChatCount %d, want 3", n)
	}
}

func TestChatTimeoutAndCancel(t *testing.T) {
	t.Run("slow first byte beyond request_timeout", func(t *testing.T) {
		s := ollamatest.New(t)
		s.Script(ollamatest.Turn{Content: []string{"late"}, FirstByteDelay: 2 * time.Second})
		c := newClient(t, s, func(o *Options) { o.RequestTimeout = 100 * time.Millisecond })
		_, err := c.Chat(context.Background(), userReq("q"))
		wantKind(t, err, model.ErrTimeout, "model.request_timeout", "100ms")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("timeout does not wrap context.DeadlineExceeded: %v", err)
		}
	})
	t.Run("request_timeout mid-stream", func(t *testing.T) {
		s := ollamatest.New(t)
		s.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}, ChunkDelay: time.Second})
		c := newClient(t, s, func(o *Options) { o.RequestTimeout = 150 * time.Millisecond })
		_, err := c.Chat(context.Background(), userReq("q"))
		wantKind(t, err, model.ErrTimeout, "model.request_timeout")
	})
	t.Run("caller cancels mid-stream", func(t *testing.T) {
		s := ollamatest.New(t)
		s.Script(ollamatest.Turn{Content: []string{"a", "b", "c"}, ChunkDelay: time.Second})
		// Cancel once the first bytes of the streamed answer arrived: the
		// transport says so, no sleep guesses it.
		first := &firstBytes{rt: http.DefaultTransport, got: make(chan struct{})}
		c := newClient(t, s, func(o *Options) { o.HTTPClient = &http.Client{Transport: first} })
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-first.got
			cancel()
		}()
		_, err := c.Chat(ctx, userReq("q"))
		wantKind(t, err, model.ErrCancelled)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancel does not wrap context.Canceled: %v", err)
		}
	})
	t.Run("caller's own deadline", func(t *testing.T) {
		s := ollamatest.New(t)
		s.Script(ollamatest.Turn{Content: []string{"late"}, FirstByteDelay: 2 * time.Second})
		c := newClient(t, s, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := c.Chat(ctx, userReq("q"))
		wantKind(t, err, model.ErrTimeout, "caller's deadline")
	})
}

func TestUnreachable(t *testing.T) {
	addr := strings.TrimPrefix(testenv.ClosedURL(t), "http://") // connection refused
	c, err := New(Options{Host: addr, Model: "qwen3:8b", NumCtx: 1024, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = c.Chat(ctx, userReq("q"))
	me := modelErr(t, err, model.ErrUnreachable, "http://"+addr, "connection refused")
	if me.Host != "http://"+addr {
		t.Errorf("host %q", me.Host)
	}
	_, err = c.Version(ctx)
	wantKind(t, err, model.ErrUnreachable, addr)
	_, err = c.Show(ctx, "")
	wantKind(t, err, model.ErrUnreachable, addr)
	_, err = c.HasModel(ctx)
	wantKind(t, err, model.ErrUnreachable, addr)
}

func TestDoctorCalls(t *testing.T) {
	s := ollamatest.New(t, ollamatest.WithVersion("0.17.4"), ollamatest.WithModels(
		ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}},
		ollamatest.Model{Name: "gemma:latest", Capabilities: []string{"completion"}},
	))
	ctx := context.Background()
	c := newClient(t, s, nil)
	v, err := c.Version(ctx)
	if err != nil || v != "0.17.4" {
		t.Errorf("Version = %q, %v", v, err)
	}
	caps, err := c.Show(ctx, "")
	if err != nil || strings.Join(caps, ",") != "completion,tools,thinking" {
		t.Errorf("Show = %v, %v", caps, err)
	}
	caps, err = c.Show(ctx, "gemma")
	if err != nil || strings.Join(caps, ",") != "completion" {
		t.Errorf("Show(gemma) = %v, %v", caps, err)
	}
	_, err = c.Show(ctx, "nope:1b")
	wantKind(t, err, model.ErrModelNotFound, "nope:1b")
	if names, err := c.Models(ctx); err != nil || strings.Join(names, ",") != "qwen3:8b,gemma:latest" {
		t.Errorf("Models = %v, %v; want the pulled names in /api/tags order", names, err)
	}
	for _, tc := range []struct {
		name string
		want bool
	}{{"qwen3:8b", true}, {"gemma", true}, {"gemma:2b", false}, {"llama3:8b", false}} {
		c := newClient(t, s, func(o *Options) { o.Model = tc.name })
		got, err := c.HasModel(ctx)
		if err != nil || got != tc.want {
			t.Errorf("HasModel(%s) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	ok := Options{Host: "127.0.0.1:11434", Model: "m", NumCtx: 1, RequestTimeout: time.Second}
	tests := []struct {
		name string
		mod  func(*Options)
		frag string
	}{
		{"empty host", func(o *Options) { o.Host = " " }, "Options.Host"},
		{"bad scheme", func(o *Options) { o.Host = "ftp://x" }, "http:// or https://"},
		{"bad port", func(o *Options) { o.Host = "http://x:99999" }, "invalid port"},
		{"query", func(o *Options) { o.Host = "http://x:1/?a=b" }, "query"},
		{"half-bracketed IPv6", func(o *Options) { o.Host = "http://[::1:11434" }, "both brackets"},
		{"no model", func(o *Options) { o.Model = "" }, "Options.Model"},
		{"no num_ctx", func(o *Options) { o.NumCtx = 0 }, "model.num_ctx"},
		{"no timeout", func(o *Options) { o.RequestTimeout = 0 }, "model.request_timeout"},
		{"negative temperature", func(o *Options) { o.Temperature = -1 }, "model.temperature"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.mod(&o)
			_, err := New(o)
			if err == nil || !strings.Contains(err.Error(), tc.frag) {
				t.Errorf("New error %v, want one naming %q", err, tc.frag)
			}
		})
	}
}

func TestChatRejectsBadRequestLocally(t *testing.T) {
	s := ollamatest.New(t)
	c := newClient(t, s, nil)
	tests := []struct {
		name string
		req  model.Request
		frag string
	}{
		{"unknown role", model.Request{Messages: []model.Message{{Role: "bot"}}}, `role "bot"`},
		{"non-object arguments", model.Request{Messages: []model.Message{{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{Name: "f", Arguments: json.RawMessage(`[1]`)}}}}}, "not a JSON object"},
		{"tool schema not object", model.Request{Tools: []model.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"string"}`)}}}, `want "object"`},
		{"tool schema not JSON", model.Request{Tools: []model.Tool{{Name: "f", Parameters: json.RawMessage(`{`)}}}, "not a JSON Schema"},
		{"format not JSON", model.Request{Format: json.RawMessage(`{x`)}, "format is not valid JSON"},
		{"format array", model.Request{Format: json.RawMessage(`[]`)}, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Chat(context.Background(), tc.req)
			wantKind(t, err, model.ErrBadRequest, tc.frag)
		})
	}
	if n := s.ChatCount(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

func TestNotAnOllamaServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := New(Options{Host: srv.URL, Model: "qwen3:8b", NumCtx: 1024, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), userReq("q"))
	wantKind(t, err, model.ErrBadRequest, "HTTP 404", "404 page not found", "Ollama server?")
	_, err = c.Version(context.Background())
	wantKind(t, err, model.ErrBadRequest, "HTTP 404")
}

func TestCredentialsNeverShown(t *testing.T) {
	s := ollamatest.New(t)
	s.Script(ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body})
	u := strings.Replace(s.URL(), "http://", "http://bob:hunter2@", 1)
	c, err := New(Options{Host: u, Model: ollamatest.DefaultModel, NumCtx: 1024, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Host(), "hunter2") {
		t.Errorf("Host() = %q shows the password", c.Host())
	}
	_, err = c.Chat(context.Background(), userReq("q"))
	wantKind(t, err, model.ErrServer, "bob:"+egress.Marker+"@")
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error shows the password: %v", err)
	}
	if _, err := New(Options{Host: "http://bob:hunter2@x:1/?q=1", Model: "m", NumCtx: 1, RequestTimeout: time.Second}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad host error %v", err)
	}
}

// TestEchoedHostPasswordScrubbed: a proxy in front of Ollama that echoes
// model.host's password (as written, URL-encoded, or the base64 of
// user:password from the Authorization header) in its error body or HTML
// title never gets it into the error (issue 17, finding 3).
func TestEchoedHostPasswordScrubbed(t *testing.T) {
	const user, pw = "bob", "Hunter2/Secret"
	for _, html := range []bool{false, true} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			echo := r.Header.Get("Authorization") + " " + pw + " " + url.QueryEscape(pw)
			if html {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				_, _ = w.Write([]byte("<html><head><title>denied " + echo + "</title></head></html>"))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			b, _ := json.Marshal(map[string]string{"error": "denied " + echo})
			_, _ = w.Write(b)
		}))
		u := strings.Replace(srv.URL, "http://", "http://"+url.UserPassword(user, pw).String()+"@", 1)
		c, err := New(Options{Host: u, Model: "qwen3:8b", NumCtx: 1024, RequestTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Chat(context.Background(), userReq("q"))
		srv.Close()
		if err == nil {
			t.Fatal("no error")
		}
		for _, leak := range []string{"Hunter2", base64.StdEncoding.EncodeToString([]byte(user + ":" + pw))} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("html %v: error %q holds %q", html, err, leak)
			}
		}
		if !strings.Contains(err.Error(), "denied") {
			t.Errorf("html %v: error %q lost the server's words", html, err)
		}
	}
}

// firstBytes is a transport that closes got when the first bytes of an
// /api/chat answer's body are read: the event a mid-stream cancel waits for.
type firstBytes struct {
	rt   http.RoundTripper
	once sync.Once
	got  chan struct{}
}

func (f *firstBytes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := f.rt.RoundTrip(r)
	if err == nil && r.URL.Path == "/api/chat" {
		resp.Body = &signalBody{ReadCloser: resp.Body, f: f}
	}
	return resp, err
}

// signalBody is a body that tells firstBytes when it gave its first bytes.
type signalBody struct {
	io.ReadCloser
	f *firstBytes
}

func (b *signalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.f.once.Do(func() { close(b.f.got) })
	}
	return n, err
}

package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

// sse frames data lines as a server-sent event stream.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String()
}

// TestRawWire answers the adapter with bytes as real servers and proxies
// send them, byte for byte, for the shapes no scripted turn produces: each
// row is a behaviour a mutant of the adapter got past before (issue 27).
func TestRawWire(t *testing.T) {
	const chunk = `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	delta := func(d, finish string) string { return fmt.Sprintf(chunk, d, finish) }
	whole := func(msg string) string {
		return `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":` + msg + `,"finish_reason":"stop"}]}`
	}
	for _, tt := range []struct {
		name        string
		stream      bool
		hold        bool // keep the connection open after the body
		status      int
		contentType string
		body        string
		kind        model.ErrorKind // "" wants an answer
		check       func(t *testing.T, r model.Response)
	}{
		{
			name: "clean EOF without finish_reason or [DONE] is a cut answer", stream: true,
			body: sse(delta(`{"role":"assistant","content":"The pool "}`, "null"), delta(`{"content":"is full"}`, "null")),
			kind: model.ErrProtocol,
		},
		{
			name: "a repeated function name is taken once", stream: true,
			body: sse(
				delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":""}}]}`, "null"),
				delta(`{"tool_calls":[{"index":0,"function":{"name":"query_logs","arguments":"{\"input\":"}}]}`, "null"),
				delta(`{"tool_calls":[{"index":0,"function":{"name":"query_logs","arguments":"{}}"}}]}`, "null"),
				delta(`{}`, `"tool_calls"`), "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if len(r.Message.ToolCalls) != 1 || r.Message.ToolCalls[0].Name != "query_logs" || string(r.Message.ToolCalls[0].Arguments) != `{"input":{}}` {
					t.Errorf("calls %+v: want one query_logs with {\"input\":{}}", r.Message.ToolCalls)
				}
			},
		},
		{
			name: `"arguments": "" is {}`,
			body: whole(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"query_logs","arguments":""}}]}`),
			check: func(t *testing.T, r model.Response) {
				if len(r.Message.ToolCalls) != 1 || string(r.Message.ToolCalls[0].Arguments) != "{}" {
					t.Errorf("calls %+v: want arguments {}", r.Message.ToolCalls)
				}
			},
		},
		{
			name: "array arguments are a protocol error",
			body: whole(`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"query_logs","arguments":"[1,2]"}}]}`),
			kind: model.ErrProtocol,
		},
		{
			name: "scalar arguments are a protocol error",
			body: whole(`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"query_logs","arguments":42}}]}`),
			kind: model.ErrProtocol,
		},
		{
			name: "streamed array arguments are a protocol error", stream: true,
			body: sse(delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":[1]}}]}`, "null"), delta(`{}`, `"tool_calls"`), "[DONE]"),
			kind: model.ErrProtocol,
		},
		{
			name: "a proxy's HTML 500 is the server's fault, not the protocol's", status: 500, contentType: "text/html",
			body: "<html><head><title>500 Internal Server Error</title></head><body><center><h1>500 Internal Server Error</h1></center><hr><center>nginx</center></body></html>",
			kind: model.ErrServer,
		},
		{
			name: `"error": null in a chunk is no error`, stream: true,
			body: sse(`{"id":"c","object":"chat.completion.chunk","model":"m","error":null,"choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":"stop"}]}`, "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if r.Message.Content != "fine" {
					t.Errorf("content %q, want fine", r.Message.Content)
				}
			},
		},
		// rows a hand mutation pass (docs/MUTATION.md) added
		{
			name: "data: [DONE] ends the answer though the server holds the stream open", stream: true, hold: true,
			body: sse(delta(`{"role":"assistant","content":"pool full"}`, `"stop"`), "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if r.Message.Content != "pool full" {
					t.Errorf("content %q", r.Message.Content)
				}
			},
		},
		{
			name: "a finish_reason then a clean EOF without [DONE] is a whole answer", stream: true,
			body: sse(delta(`{"role":"assistant","content":"pool "}`, "null"), delta(`{"content":"full"}`, `"stop"`)),
			check: func(t *testing.T, r model.Response) {
				if r.Message.Content != "pool full" {
					t.Errorf("content %q", r.Message.Content)
				}
			},
		},
		{
			name: "a chunk without a model name keeps the one named before", stream: true,
			body: sse(`{"id":"c","object":"chat.completion.chunk","model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":"pool "},"finish_reason":null}]}`, `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"full"},"finish_reason":"stop"}]}`, "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if r.Model != "qwen3:8b" {
					t.Errorf("model %q, want qwen3:8b", r.Model)
				}
			},
		},
		{
			name: "the last usage counts, as servers that report it cumulatively send it", stream: true,
			body: sse(
				`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"pool "},"finish_reason":null}],"usage":{"prompt_tokens":40,"completion_tokens":1}}`,
				`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"full"},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":2}}`,
				"[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if r.Usage.PromptTokens != 40 || r.Usage.CompletionTokens != 2 {
					t.Errorf("usage %+v, want 40 prompt and 2 completion tokens", r.Usage)
				}
			},
		},
		{
			name: `"arguments": null is no arguments yet, not a protocol error`, stream: true,
			body: sse(
				delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":null}}]}`, "null"),
				delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"since\":\"1h\"}"}}]}`, "null"),
				delta(`{}`, `"tool_calls"`), "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if len(r.Message.ToolCalls) != 1 || string(r.Message.ToolCalls[0].Arguments) != `{"since":"1h"}` {
					t.Errorf("calls %+v: want one query_logs with {\"since\":\"1h\"}", r.Message.ToolCalls)
				}
			},
		},
		{
			name: "a function name of spaces is a protocol error",
			body: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"  ","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
			kind: model.ErrProtocol,
		},
		{
			name: "streamed arguments that never close their object are a protocol error", stream: true,
			body: sse(
				delta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":"{\"since\":"}}]}`, "null"),
				delta(`{}`, `"tool_calls"`), "[DONE]"),
			kind: model.ErrProtocol,
		},
		{
			name: "a whole 200 {} is a protocol error",
			body: `{}`,
			kind: model.ErrProtocol,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				ct := tt.contentType
				if ct == "" {
					ct = "application/json"
					if tt.stream {
						ct = "text/event-stream"
					}
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(max(tt.status, http.StatusOK))
				_, _ = io.WriteString(w, tt.body)
				if tt.hold {
					w.(http.Flusher).Flush()
					<-r.Context().Done()
				}
			}))
			t.Cleanup(srv.Close)
			c, err := openai.New(openai.Options{URL: srv.URL + "/v1", Model: "m", Stream: tt.stream, RequestTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Tools: diagTools})
			if tt.kind != "" {
				if model.KindOf(err) != tt.kind {
					t.Fatalf("err = %v (kind %q), want kind %s", err, model.KindOf(err), tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, resp)
		})
	}
}

// A hint must name the real fault: a redirect off model.url's host is an
// address to fix, not a server to start; an error document in a whole
// (non-streamed) answer is not "mid-stream" (issue 27 #16).
func TestFaultWording(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was asked, Authorization %q", r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	redirect := httptest.NewServer(http.RedirectHandler(strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/v1/chat/completions", http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	errDoc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"error":{"message":"upstream model crashed","type":"server_error"}}`)
	}))
	t.Cleanup(errDoc.Close)
	for _, tt := range []struct {
		name, url string
		kind      model.ErrorKind
		says, not string
	}{
		{"cross-host redirect", redirect.URL, model.ErrBadRequest, "set model.url to the address it redirects to", "cannot connect"},
		{"error in a whole answer", errDoc.URL, model.ErrServer, "upstream model crashed", "mid-stream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := openai.New(openai.Options{URL: tt.url + "/v1", Model: "m", APIKey: "sk-test-key", RequestTimeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
			if model.KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.says) || strings.Contains(err.Error(), tt.not) {
				t.Errorf("err = %v (kind %s): want kind %s saying %q, never %q", err, model.KindOf(err), tt.kind, tt.says, tt.not)
			}
		})
	}
}

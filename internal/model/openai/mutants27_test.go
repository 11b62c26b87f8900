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

	"github.com/superbiz/superbiz/internal/model/openai"
	"github.com/superbiz/superbiz/pkg/model"
)

// rawServer answers every request with body as it is (a stream when stream
// is set); hold keeps the connection open after the body until the client
// goes away, as a server or proxy that never closes a finished stream.
func rawServer(t *testing.T, stream, hold bool, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		_, _ = io.WriteString(w, body)
		if hold {
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Stream shapes a hand mutation pass (docs/MUTATION.md) found no test
// holding: each row fails with one planted mutant of stream.go or errors.go.
func TestStreamMutationPass(t *testing.T) {
	const chunk = `{"id":"c","object":"chat.completion.chunk","model":%q,"choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	delta := func(model, d, finish string) string { return fmt.Sprintf(chunk, model, d, finish) }
	for _, tt := range []struct {
		name         string
		hold, stream bool
		body         string
		kind         model.ErrorKind // "" wants an answer
		check        func(t *testing.T, r model.Response)
	}{
		{
			name: "data: [DONE] ends the answer though the server holds the stream open", stream: true, hold: true,
			body: sse(delta("m", `{"role":"assistant","content":"pool full"}`, `"stop"`), "[DONE]"),
			check: func(t *testing.T, r model.Response) {
				if r.Message.Content != "pool full" {
					t.Errorf("content %q", r.Message.Content)
				}
			},
		},
		{
			name: "a finish_reason then a clean EOF without [DONE] is a whole answer", stream: true,
			body: sse(delta("m", `{"role":"assistant","content":"pool "}`, "null"), delta("m", `{"content":"full"}`, `"stop"`)),
			check: func(t *testing.T, r model.Response) {
				if r.Message.Content != "pool full" {
					t.Errorf("content %q", r.Message.Content)
				}
			},
		},
		{
			name: "a chunk without a model name keeps the one named before", stream: true,
			body: sse(delta("qwen3:8b", `{"role":"assistant","content":"pool "}`, "null"), delta("", `{"content":"full"}`, `"stop"`), "[DONE]"),
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
				delta("m", `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":null}}]}`, "null"),
				delta("m", `{"tool_calls":[{"index":0,"function":{"arguments":"{\"since\":\"1h\"}"}}]}`, "null"),
				delta("m", `{}`, `"tool_calls"`), "[DONE]"),
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
				delta("m", `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"query_logs","arguments":"{\"since\":"}}]}`, "null"),
				delta("m", `{}`, `"tool_calls"`), "[DONE]"),
			kind: model.ErrProtocol,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.stream, tt.hold, tt.body)
			// short: a stream read past its end waits for this timeout
			c, err := openai.New(openai.Options{URL: srv.URL + "/v1", Model: "m", Stream: tt.stream, RequestTimeout: 5 * time.Second})
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

// An error whose code is an empty string is classified by its type: a 400
// typed model_not_found is MODEL_NOT_FOUND, not a bad request.
func TestErrorTypeWhenCodeEmpty(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"other","object":"model"}]}`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"no such deployment","type":"model_not_found","code":""}}`)
	}))
	t.Cleanup(srv.Close)
	c, err := openai.New(openai.Options{URL: srv.URL + "/v1", Model: "m", RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if model.KindOf(err) != model.ErrModelNotFound {
		t.Errorf("err = %v (kind %q), want MODEL_NOT_FOUND", err, model.KindOf(err))
	}
}

package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/internal/reliability"
	"github.com/superbiz/superbiz/internal/testenv"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

func newClient(t *testing.T, srv *openaitest.Server, stream bool, mod ...func(*openai.Options)) *openai.Client {
	t.Helper()
	o := openai.Options{URL: srv.URL(), Model: openaitest.DefaultModel, Stream: stream, RequestTimeout: 10 * time.Second}
	for _, m := range mod {
		m(&o)
	}
	c, err := openai.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var diagTools = []model.Tool{
	{Name: "query_logs", Description: "read logs", Parameters: json.RawMessage(`{"type":"object","properties":{"source":{"type":"string"}},"required":["source"]}`)},
	{Name: "run_sql", Description: "query", Parameters: json.RawMessage(`{"type":"object","properties":{"sql":{"type":"string"}}}`)},
}

// toolTurn has two calls, one with multibyte text and nested JSON, so that
// splitting at any byte and member order are both exercised.
var toolTurn = openaitest.Turn{
	Thinking:     []string{"The disk ", "is full?"},
	Content:      []string{"Checking ", "logs."},
	ToolCalls:    []openaitest.ToolCall{{ID: "call_a1", Name: "query_logs", Args: `{"source":"app","since":"15m","q":"磁盘 full"}`}, {ID: "call_b2", Name: "run_sql", Args: `{"sql":"SELECT 1","opts":{"z":1,"a":[1,2]}}`}},
	PromptTokens: 120, CompletionTokens: 30,
}

// Every quirk, streamed at several split sizes and whole, assembles the same answer.
func TestToolCallsUnderEveryQuirk(t *testing.T) {
	for _, q := range openaitest.Quirks {
		for _, stream := range []bool{true, false} {
			for _, split := range []int{0, 1, 7} {
				t.Run(fmt.Sprintf("%s/stream=%v/split=%d", q, stream, split), func(t *testing.T) {
					srv := openaitest.New(t, openaitest.WithQuirk(q), openaitest.WithSplit(split))
					srv.Script(toolTurn)
					resp, err := newClient(t, srv, stream).Chat(context.Background(), model.Request{
						Messages: []model.Message{{Role: model.RoleUser, Content: "why is checkout failing?"}}, Tools: diagTools,
					})
					if err != nil {
						t.Fatal(err)
					}
					m := resp.Message
					if m.Content != "Checking logs." || m.Thinking != "The disk is full?" {
						t.Errorf("content %q thinking %q", m.Content, m.Thinking)
					}
					if len(m.ToolCalls) != 2 {
						t.Fatalf("tool calls = %+v, want 2", m.ToolCalls)
					}
					for i, want := range toolTurn.ToolCalls {
						got := m.ToolCalls[i]
						if got.ID != want.ID || got.Name != want.Name || string(got.Arguments) != want.Args {
							t.Errorf("call %d = %s %s %s, want %s %s %s", i, got.ID, got.Name, got.Arguments, want.ID, want.Name, want.Args)
						}
					}
					if q == openaitest.QuirkNoUsage {
						if !resp.Usage.Estimated || resp.Usage.PromptTokens == 0 || resp.Usage.CompletionTokens == 0 {
							t.Errorf("usage %+v: want estimated, non-zero counts", resp.Usage)
						}
					} else if resp.Usage != (model.Usage{PromptTokens: 120, CompletionTokens: 30}) {
						t.Errorf("usage %+v, want the server's 120/30", resp.Usage)
					}
				})
			}
		}
	}
}

// Calls without ids get call_<n> after the history's calls, as on Ollama.
func TestAssignsMissingIDs(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithQuirk(openaitest.QuirkNone))
	srv.Script(openaitest.Turn{ToolCalls: []openaitest.ToolCall{{Name: "query_logs", Args: `{"source":"a"}`}, {Name: "query_logs", Args: `{"source":"b"}`}}})
	history := []model.Message{
		{Role: model.RoleUser, Content: "q"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "call_1", Name: "query_logs", Arguments: json.RawMessage(`{}`)}}},
		{Role: model.RoleTool, Content: "obs", ToolName: "query_logs", ToolCallID: "call_1"},
	}
	resp, err := newClient(t, srv, true).Chat(context.Background(), model.Request{Messages: history, Tools: diagTools})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[0].ID != "call_2" || resp.Message.ToolCalls[1].ID != "call_3" {
		t.Errorf("calls %+v, want call_2 and call_3", resp.Message.ToolCalls)
	}
	if resp.Message.ToolCalls[1].Name != "query_logs" || string(resp.Message.ToolCalls[1].Arguments) != `{"source":"b"}` {
		t.Errorf("second call merged wrongly: %+v", resp.Message.ToolCalls[1])
	}
}

// A diagnosis round sends tools with tool_choice auto and asks for usage;
// the history's calls go as JSON strings, tool results with their call id,
// and thinking is never sent back.
func TestRequestShape(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.Turn{Content: []string{"ok"}})
	c := newClient(t, srv, true, func(o *openai.Options) { o.APIKey = "sk-test-123" })
	_, err := c.Chat(context.Background(), model.Request{Tools: diagTools, Messages: []model.Message{
		{Role: model.RoleSystem, Content: "sys"},
		{Role: model.RoleUser, Content: "q"},
		{Role: model.RoleAssistant, Thinking: "secret thoughts", ToolCalls: []model.ToolCall{{ID: "call_x", Name: "run_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)}}},
		{Role: model.RoleTool, Content: "1 row", ToolName: "run_sql", ToolCallID: "call_x"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rec := srv.Requests()[0]
	req := rec.Chat
	if rec.Authorization != "Bearer sk-test-123" {
		t.Errorf("Authorization %q", rec.Authorization)
	}
	if string(req.ToolChoice) != `"auto"` || len(req.Tools) != 2 || req.Tools[0].Type != "function" || req.Tools[0].Function.Name != "query_logs" {
		t.Errorf("tools %+v choice %s", req.Tools, req.ToolChoice)
	}
	if !req.Stream || string(req.StreamOptions) != `{"include_usage":true}` || len(req.ResponseFormat) != 0 {
		t.Errorf("stream %v options %s format %s", req.Stream, req.StreamOptions, req.ResponseFormat)
	}
	a := req.Messages[2]
	if a.Content != nil || len(a.ToolCalls) != 1 || a.ToolCalls[0].Function.Arguments != `{"sql":"SELECT 1"}` || a.ToolCalls[0].ID != "call_x" || a.ToolCalls[0].Type != "function" {
		t.Errorf("assistant message %+v", a)
	}
	if tm := req.Messages[3]; tm.Role != "tool" || tm.ToolCallID != "call_x" || tm.Text() != "1 row" {
		t.Errorf("tool message %+v", tm)
	}
	if strings.Contains(string(rec.Body), "secret thoughts") {
		t.Error("thinking was sent back to the server")
	}
}

// A structured round sends response_format json_schema (strict) by
// default, json_object plus the schema in the prompt, or only the prompt;
// never response_format together with tools.
func TestStructuredModes(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`)
	for _, tt := range []struct {
		mode, format string
		inPrompt     bool
		tools        bool
	}{
		{openai.StructuredJSONSchema, `{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":` + string(schema) + `}}`, false, false},
		{openai.StructuredJSONObject, `{"type":"json_object"}`, true, false},
		{openai.StructuredNone, ``, true, false},
		{openai.StructuredJSONSchema, ``, true, true},
	} {
		t.Run(tt.mode+fmt.Sprint(tt.tools), func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.Turn{Content: []string{`{"a":"b"}`}})
			req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Format: schema}
			if tt.tools {
				req.Tools = diagTools
			}
			resp, err := newClient(t, srv, false, func(o *openai.Options) { o.Structured = tt.mode }).Chat(context.Background(), req)
			if err != nil || resp.Message.Content != `{"a":"b"}` {
				t.Fatalf("%v %q", err, resp.Message.Content)
			}
			got := srv.ChatRequests()[0]
			if string(got.ResponseFormat) != tt.format {
				t.Errorf("response_format %s, want %s", got.ResponseFormat, tt.format)
			}
			last := got.Messages[len(got.Messages)-1]
			if inPrompt := last.Role == "system" && strings.Contains(last.Text(), string(schema)); inPrompt != tt.inPrompt {
				t.Errorf("schema in prompt = %v, want %v (%q)", inPrompt, tt.inPrompt, last.Text())
			}
		})
	}
}

// Each fault is the same class of *model.Error as on Ollama, with the HTTP
// status and words a person can act on.
func TestFaults(t *testing.T) {
	for _, tt := range []struct {
		fault  openaitest.Fault
		kind   model.ErrorKind
		status int
		says   []string
	}{
		{openaitest.FaultUnauthorized, model.ErrBadRequest, 401, []string{"HTTP 401", "$OPENAI_API_KEY is not set"}},
		{openaitest.FaultForbidden, model.ErrBadRequest, 403, []string{"HTTP 403", "$OPENAI_API_KEY"}},
		{openaitest.FaultModelNotFound, model.ErrModelNotFound, 404, []string{"HTTP 404", "its /models lists: " + openaitest.DefaultModel}},
		{openaitest.FaultRateLimited, model.ErrServer, 429, []string{"HTTP 429", "rate limited (Retry-After 0), still after 3 retries"}},
		{openaitest.FaultServerError, model.ErrServer, 500, []string{"HTTP 500", openaitest.DefaultServerError}},
		{openaitest.FaultProxyHTML, model.ErrServer, 502, []string{"HTTP 502", `"502 Bad Gateway"`, "a proxy"}},
		{openaitest.FaultCutStream, model.ErrProtocol, 0, []string{"stream cut"}},
		{openaitest.FaultErrorInStream, model.ErrServer, 0, []string{openaitest.DefaultStreamError}},
		{openaitest.FaultMalformedData, model.ErrProtocol, 0, []string{"malformed", openaitest.MalformedData}},
		{openaitest.FaultContextLength, model.ErrBadRequest, 400, []string{"HTTP 400", "context window", "limits.observation"}},
		{openaitest.FaultToolChoice, model.ErrToolsNotSupported, 400, []string{"--enable-auto-tool-choice", "vLLM: start it with"}},
		{openaitest.FaultServerErrorEmpty, model.ErrServer, 500, []string{"HTTP 500 with an empty body"}},
		{openaitest.FaultBadRequest, model.ErrBadRequest, 400, []string{"HTTP 400", openaitest.DefaultBadRequest}},
	} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.fault, stream), func(t *testing.T) {
				srv := openaitest.New(t)
				turn := openaitest.Turn{Content: []string{"partial"}, Fault: tt.fault, RetryAfter: "0"}
				srv.Script(turn, turn, turn, turn)
				_, err := newClient(t, srv, stream).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Tools: diagTools})
				me := model.AsError(err)
				if me == nil || me.Kind != tt.kind {
					t.Fatalf("err = %v, want kind %s", err, tt.kind)
				}
				if tt.status != 0 && me.Status != tt.status {
					t.Errorf("status %d, want %d", me.Status, tt.status)
				}
				for _, s := range tt.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				if !strings.Contains(err.Error(), srv.URL()) {
					t.Errorf("error %q does not name the URL", err)
				}
			})
		}
	}
}

// A 429 with a Retry-After that fits the deadline is retried; one that
// does not is not waited for.
func TestRateLimitRetry(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.Turn{Fault: openaitest.FaultRateLimited, RetryAfter: "1"}, openaitest.Turn{Content: []string{"fine"}})
	start := time.Now()
	resp, err := newClient(t, srv, true).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if err != nil || resp.Message.Content != "fine" {
		t.Fatalf("%v %q", err, resp.Message.Content)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %s, before the Retry-After of 1s", d)
	}
	if n := len(srv.ChatRequests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}

	srv2 := openaitest.New(t)
	srv2.Script(openaitest.Turn{Fault: openaitest.FaultRateLimited, RetryAfter: "3600"})
	start = time.Now()
	_, err = newClient(t, srv2, true).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if me := model.AsError(err); me == nil || me.Status != 429 || time.Since(start) > 5*time.Second {
		t.Errorf("Retry-After past the deadline: %v after %s, want 429 at once", err, time.Since(start))
	}
}

// The key is sent, never shown: not in an error even when the server echoes it.
func TestKeyNeverShown(t *testing.T) {
	const key = "sk-live-SECRETSECRET"
	srv := openaitest.New(t, openaitest.WithAPIKey("sk-other"))
	_, err := newClient(t, srv, true, func(o *openai.Options) { o.APIKey, o.APIKeyEnv = key, "MY_KEY" }).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if err == nil || strings.Contains(err.Error(), "SECRETSECRET") || !strings.Contains(err.Error(), "refused the API key from $MY_KEY") {
		t.Errorf("err = %v: want the variable named and the key absent", err)
	}
	ok := openaitest.New(t, openaitest.WithAPIKey(key))
	ok.Script(openaitest.Turn{Content: []string{"hi"}})
	if _, err := newClient(t, ok, true, func(o *openai.Options) { o.APIKey = key }).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}}); err != nil {
		t.Errorf("with the right key: %v", err)
	}
}

// A cancel while the server holds the answer is CANCELLED; the request
// timeout is TIMEOUT; a closed port is UNREACHABLE.
func TestContextAndTransport(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.Turn{Content: []string{"a", "b"}, ChunkDelay: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := newClient(t, srv, true).Chat(ctx, model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if model.KindOf(err) != model.ErrCancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	srv.Script(openaitest.Turn{Content: []string{"a"}, FirstByteDelay: 5 * time.Second})
	_, err = newClient(t, srv, true, func(o *openai.Options) { o.RequestTimeout = 200 * time.Millisecond }).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if model.KindOf(err) != model.ErrTimeout || !strings.Contains(err.Error(), "model.request_timeout") {
		t.Errorf("timed out: %v", err)
	}
	closed := testenv.ClosedURL(t) + "/v1"
	c, err := openai.New(openai.Options{URL: closed, Model: "m", RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
	if model.KindOf(err) != model.ErrUnreachable {
		t.Errorf("closed port: %v", err)
	}
}

// /models lists the ids; /embeddings answers one vector per input in order.
func TestModelsAndEmbeddings(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithModels("m1", "embed-1"))
	c := newClient(t, srv, true, func(o *openai.Options) { o.Model = "embed-1" })
	ids, err := c.Models(context.Background())
	if err != nil || strings.Join(ids, ",") != "m1,embed-1" {
		t.Errorf("models %v %v", ids, err)
	}
	vecs, err := c.Embed(context.Background(), []string{"disk full", "slow query"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) == 0 || len(vecs[0]) != len(vecs[1]) {
		t.Fatalf("embed: %v %d", err, len(vecs))
	}
	srv.FailEmbeddings(openaitest.FaultServerError)
	if _, err := c.Embed(context.Background(), []string{"x"}); model.KindOf(err) != model.ErrServer {
		t.Errorf("failed embed: %v", err)
	}
}

// New refuses what cannot work, naming the option (or key) to fix; the URL's password is masked.
func TestNewValidates(t *testing.T) {
	for _, tt := range []struct {
		o    openai.Options
		says string
	}{
		{openai.Options{URL: "ftp://x", Model: "m", RequestTimeout: time.Second}, "Options.URL"},
		{openai.Options{URL: "http://x/v1?a=b", Model: "m", RequestTimeout: time.Second}, "query"},
		{openai.Options{URL: "http://x/v1", RequestTimeout: time.Second}, "Options.Model"},
		{openai.Options{URL: "http://x/v1", Model: "m", RequestTimeout: time.Second, Structured: "xml"}, "structured"},
	} {
		if _, err := openai.New(tt.o); err == nil || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("New(%+v) = %v, want an error saying %q", tt.o, err, tt.says)
		}
	}
	c, err := openai.New(openai.Options{URL: "http://u:hunter2@example.com:8000/v1", Model: "m", RequestTimeout: time.Second})
	if err != nil || strings.Contains(c.Host(), "hunter2") || !strings.Contains(c.Host(), "example.com:8000/v1") {
		t.Errorf("host %q, %v", c.Host(), err)
	}
}

// The answer's length is bounded by the request's MaxOutputTokens as
// max_completion_tokens; a server that refuses that name (400 naming it)
// gets the same round again with max_tokens, and every later round of the
// client sends max_tokens at once. No bound sends neither.
func TestOutputBound(t *testing.T) {
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, MaxOutputTokens: 880}
	t.Run("max_completion_tokens", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Script(openaitest.Turn{Content: []string{"ok"}}, openaitest.Turn{Content: []string{"ok"}})
		c := newClient(t, srv, true)
		if _, err := c.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		unbounded := req
		unbounded.MaxOutputTokens = 0
		if _, err := c.Chat(context.Background(), unbounded); err != nil {
			t.Fatal(err)
		}
		reqs := srv.ChatRequests()
		if len(reqs) != 2 || reqs[0].MaxCompletionTokens != 880 || reqs[0].MaxTokens != 0 {
			t.Fatalf("requests %+v, want one with max_completion_tokens 880 and no max_tokens", reqs)
		}
		if reqs[1].MaxCompletionTokens != 0 || reqs[1].MaxTokens != 0 {
			t.Errorf("an unbounded round sent max_completion_tokens %d, max_tokens %d", reqs[1].MaxCompletionTokens, reqs[1].MaxTokens)
		}
	})
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprintf("max_tokens fallback/stream=%v", stream), func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithQuirk(openaitest.QuirkMaxTokensOnly))
			srv.Script(openaitest.Turn{Content: []string{"first"}}, openaitest.Turn{Content: []string{"second"}})
			c := newClient(t, srv, stream)
			resp, err := c.Chat(context.Background(), req)
			if err != nil || resp.Message.Content != "first" {
				t.Fatalf("first round: %q, %v", resp.Message.Content, err)
			}
			later := req
			later.MaxOutputTokens = 700
			if resp, err = c.Chat(context.Background(), later); err != nil || resp.Message.Content != "second" {
				t.Fatalf("second round: %q, %v", resp.Message.Content, err)
			}
			reqs, recs := srv.ChatRequests(), srv.Requests()
			if len(reqs) != 3 || recs[0].Status != 400 {
				t.Fatalf("%d chat requests (want 3: refused, retried, next), first answered %d", len(reqs), recs[0].Status)
			}
			if reqs[0].MaxCompletionTokens != 880 || reqs[1].MaxTokens != 880 || reqs[1].MaxCompletionTokens != 0 || reqs[2].MaxTokens != 700 || reqs[2].MaxCompletionTokens != 0 {
				t.Errorf("bounds sent: %d/%d, %d/%d, %d/%d (max_completion_tokens/max_tokens)", reqs[0].MaxCompletionTokens, reqs[0].MaxTokens, reqs[1].MaxCompletionTokens, reqs[1].MaxTokens, reqs[2].MaxCompletionTokens, reqs[2].MaxTokens)
			}
		})
	}
	t.Run("another 400 is not retried", func(t *testing.T) {
		srv := openaitest.New(t)
		srv.Script(openaitest.Turn{Fault: openaitest.FaultBadRequest}, openaitest.Turn{Content: []string{"unused"}})
		_, err := newClient(t, srv, true).Chat(context.Background(), req)
		if model.KindOf(err) != model.ErrBadRequest || len(srv.ChatRequests()) != 1 || srv.Pending() != 1 {
			t.Fatalf("err %v after %d requests, want BAD_REQUEST after 1", err, len(srv.ChatRequests()))
		}
	})
}

// /embeddings answers past model.MaxEmbedDim dimensions or model.MaxEmbedAnswer
// bytes are PROTOCOL; a vector at the bound is accepted.
func TestEmbeddingsBounds(t *testing.T) {
	wide := func(dims int) func(string, string) []float32 {
		return func(string, string) []float32 {
			v := make([]float32, dims)
			for i := range v {
				v[i] = -1.2345678e-30
			}
			return v
		}
	}
	for _, tt := range []struct {
		name         string
		dims, inputs int
		says         string
	}{
		{"at the bound", model.MaxEmbedDim, 2, ""},
		{"one dimension more", model.MaxEmbedDim + 1, 1, "more than 8192 dimensions"},
		{"a million dimensions", 1_000_000, 1, "more than 8192 dimensions"},
		{"answer over 16 MiB", model.MaxEmbedDim, 150, "16 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithModels("embed-1"), openaitest.WithEmbed(wide(tt.dims)))
			// a long timeout: a 17 MiB answer under a loaded CI machine
			c := newClient(t, srv, false, func(o *openai.Options) { o.Model, o.RequestTimeout = "embed-1", time.Minute })
			vecs, err := c.Embed(context.Background(), make([]string, tt.inputs))
			if tt.says == "" {
				if err != nil || len(vecs) != tt.inputs || len(vecs[1]) != tt.dims {
					t.Fatalf("embed: %v (%d vectors)", err, len(vecs))
				}
				return
			}
			if model.KindOf(err) != model.ErrProtocol || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("err %v (kind %q), want PROTOCOL saying %q", err, model.KindOf(err), tt.says)
			}
		})
	}
}

// A server that echoes the configured API key (literal, URL-encoded or
// base64) in its content, reasoning, tool-call arguments, a non-object
// argument text or its /models ids never gets the key past the adapter:
// everything it returns is scrubbed before anything reads it (issue 27 #6).
func TestEchoedKeyScrubbed(t *testing.T) {
	const key = "sk-live-Echo/Key+9Z"
	forms := []string{key, "sk-live-Echo%2FKey%2B9Z", "c2stbGl2ZS1FY2hvL0tleSs5Wg=="}
	planted, leaked := 0, 0
	check := func(t *testing.T, what, text string) {
		t.Helper()
		// A cut that splits the key must not leave its head either.
		for _, f := range append(forms, key[:10]) {
			planted++
			if strings.Contains(text, f) {
				leaked++
				t.Errorf("%s holds the key form %q: %s", what, f, text)
			}
		}
	}
	defer func() {
		reliability.Record(t, reliability.SectionSecrets, "OpenAI-compatible server echoing the API key (content, reasoning, arguments, /models, errors)", map[string]any{"checks": planted, "leaked": leaked})
	}()
	for _, tc := range []struct {
		stream bool
		quirk  openaitest.Quirk
	}{{true, openaitest.QuirkNone}, {false, openaitest.QuirkNone}, {true, openaitest.QuirkArgsObject}, {false, openaitest.QuirkArgsObject}} {
		stream := tc.stream
		t.Run(fmt.Sprintf("stream=%v/%v", stream, tc.quirk), func(t *testing.T) {
			srv := openaitest.New(t, openaitest.WithAPIKey(key), openaitest.WithQuirk(tc.quirk), openaitest.WithModels("m-"+forms[0], openaitest.DefaultModel))
			c := newClient(t, srv, stream, func(o *openai.Options) { o.APIKey = key })
			req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Tools: diagTools}
			srv.Script(openaitest.Turn{
				Thinking:  []string{"the key is ", forms[1]},
				Content:   []string{"use ", forms[0], " or ", forms[2]},
				ToolCalls: []openaitest.ToolCall{{ID: "call_1", Name: "query_logs", Args: `{"source":"` + forms[0] + `"}`}},
			})
			resp, err := c.Chat(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Message.Content, "[REDACTED]") {
				t.Errorf("content %q: want the key replaced by the marker", resp.Message.Content)
			}
			check(t, "content", resp.Message.Content)
			check(t, "thinking", resp.Message.Thinking)
			for _, tc := range resp.Message.ToolCalls {
				check(t, "arguments", string(tc.Arguments))
				if !json.Valid(tc.Arguments) {
					t.Errorf("scrubbed arguments are no longer JSON: %s", tc.Arguments)
				}
			}
			// Arguments that are not an object are quoted in the error.
			srv.Script(openaitest.Turn{ToolCalls: []openaitest.ToolCall{{ID: "call_2", Name: "query_logs", Args: `["` + strings.Repeat("x", 40) + forms[0] + `"]`, NotObject: true}}})
			_, err = c.Chat(context.Background(), req)
			if err == nil {
				t.Fatal("non-object arguments were accepted")
			}
			check(t, "error", err.Error())
			ids, err := c.Models(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			check(t, "/models ids", strings.Join(ids, ","))
		})
	}
}

// Without usage from the server, the estimate charges the answer's bytes
// (content, reasoning, each call's name and arguments) at model.EstimateTokens'
// rate, as one text: summing lengths gives the same figure as concatenating.
func TestUsageEstimate(t *testing.T) {
	srv := openaitest.New(t, openaitest.WithQuirk(openaitest.QuirkNoUsage))
	srv.Script(toolTurn)
	resp, err := newClient(t, srv, true).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Tools: diagTools})
	if err != nil {
		t.Fatal(err)
	}
	text := resp.Message.Content + resp.Message.Thinking
	for _, tc := range resp.Message.ToolCalls {
		text += tc.Name + string(tc.Arguments)
	}
	if !resp.Usage.Estimated || resp.Usage.CompletionTokens != model.EstimateTokens(text) || resp.Usage.PromptTokens == 0 {
		t.Errorf("usage %+v: want estimated, completion %d", resp.Usage, model.EstimateTokens(text))
	}
}

// A Retry-After too large for a Duration is not waited for and does not
// wrap into immediate retries; the error counts the retries really made
// (issue 27 #15).
func TestRateLimitRetryCount(t *testing.T) {
	limited := func(after string) openaitest.Turn {
		return openaitest.Turn{Fault: openaitest.FaultRateLimited, RetryAfter: after}
	}
	for _, tt := range []struct {
		name     string
		turns    []openaitest.Turn
		requests int
		says     string
	}{
		{"overflowing seconds", []openaitest.Turn{limited("9300000000"), limited("0"), limited("0"), limited("0")}, 1, "not retried"},
		{"past int64", []openaitest.Turn{limited("99999999999999999999"), limited("0")}, 1, "not retried"},
		{"three retries", []openaitest.Turn{limited("0"), limited("0"), limited("0"), limited("0")}, 4, "still after 3 retries"},
		{"one retry", []openaitest.Turn{limited("0"), limited("3600")}, 2, "still after 1 retry "},
		{"two retries", []openaitest.Turn{limited("0"), limited("0"), limited("3600")}, 3, "still after 2 retries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(tt.turns...)
			_, err := newClient(t, srv, true).Chat(context.Background(), model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}})
			if me := model.AsError(err); me == nil || me.Status != 429 || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("err = %v: want a 429 that says %q", err, tt.says)
			}
			if n := len(srv.ChatRequests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

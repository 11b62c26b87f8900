// Package openai is the ChatModel and Embedder adapter for any server that
// speaks OpenAI's Chat Completions wire (vLLM, llama.cpp's llama-server, LM
// Studio, LiteLLM, OpenRouter, OpenAI itself). It is plain net/http through
// internal/httpsource plus a small server-sent-events reader: it assembles
// streamed tool calls by index (falling back to id) under every quirk those
// servers have, reads reasoning fields as thinking, estimates usage a server
// did not report, and maps every failure to a typed *model.Error of the
// classes the Ollama adapter uses.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/superbiz/superbiz/internal/httpsource"
	"github.com/superbiz/superbiz/pkg/egress"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/modelhost"
)

// The structured-output modes of model.structured.
const (
	// StructuredJSONSchema sends response_format json_schema (strict).
	StructuredJSONSchema = "json_schema"
	// StructuredJSONObject sends response_format json_object and the schema in the prompt.
	StructuredJSONObject = "json_object"
	// StructuredNone sends no response_format; the schema goes in the prompt.
	StructuredNone = "none"
)

// DefaultAPIKeyEnv is the variable the key is read from unless model.api_key_env names another.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// maxAnswer bounds one answer read from the server, streamed or whole.
const maxAnswer = 16 << 20

// maxRetries bounds the retries of a round the server rate-limited (429).
const maxRetries = 3

// maxRetryWait caps one wait of a round without a deadline.
const maxRetryWait = time.Hour

// Options are everything a Client needs; nothing is read from the
// environment (cmd resolves flags, environment and file, and the key).
type Options struct {
	// URL is the base URL /chat/completions, /models and /embeddings are
	// appended to, e.g. "http://127.0.0.1:8000/v1".
	URL   string
	Model string
	// APIKey is sent as "Authorization: Bearer"; empty sends none.
	APIKey string
	// APIKeyEnv names the variable the key came from, for messages only.
	APIKeyEnv   string
	Temperature float64
	// Stream selects SSE streaming (true) or whole answers.
	Stream bool
	// Structured is one of the Structured* modes.
	Structured string
	// RequestTimeout bounds one whole round, retries included.
	RequestTimeout time.Duration
	// HTTPClient carries transport settings (proxy, TLS); nil means a plain client.
	HTTPClient *http.Client
}

// Client is an OpenAI-compatible model.ChatModel and model.Embedder plus
// the read-only checks `superbiz doctor` needs. It is safe for concurrent use.
type Client struct {
	opts Options
	base string // the base URL without credentials, no trailing slash
	host string // the base URL as messages show it (password masked)
	hs   *httpsource.Client
	// maxTokensOnly is set once the server refused max_completion_tokens;
	// every later round of this client sends max_tokens instead.
	maxTokensOnly atomic.Bool
}

var (
	_ model.ChatModel = (*Client)(nil)
	_ model.Embedder  = (*Client)(nil)
)

// EnvBaseURL is the variable OpenAI's own SDKs read the base URL from;
// superbiz reads it for model.url (a caller of New reads it itself).
const EnvBaseURL = "OPENAI_BASE_URL"

// New validates opts and builds a client; it makes no network call.
func New(opts Options) (*Client, error) {
	host, err := modelhost.Parse(opts.URL)
	if err != nil {
		return nil, &model.OptionError{Provider: "openai", Option: "URL", Err: err}
	}
	u, err := url.Parse(host.Reveal())
	if err != nil {
		// url.Error repeats the input, which may hold a password: not shown.
		return nil, fmt.Errorf("openai: model.url %s is not a valid URL", host.Redacted())
	}
	if strings.TrimSpace(opts.Model) == "" {
		return nil, &model.OptionError{Provider: "openai", Option: "Model", Err: errors.New("empty: give the id the server's /models lists")}
	}
	if opts.RequestTimeout <= 0 {
		return nil, fmt.Errorf("openai: request_timeout is %s: set model.request_timeout to a positive duration, e.g. \"180s\"", opts.RequestTimeout)
	}
	if opts.Temperature < 0 {
		return nil, fmt.Errorf("openai: temperature is %g: set model.temperature to 0 or more", opts.Temperature)
	}
	switch opts.Structured {
	case StructuredJSONSchema, StructuredJSONObject, StructuredNone:
	case "":
		opts.Structured = StructuredJSONSchema
	default:
		return nil, fmt.Errorf("openai: structured is %q: want json_schema, json_object or none", opts.Structured)
	}
	if opts.APIKeyEnv == "" {
		opts.APIKeyEnv = DefaultAPIKeyEnv
	}
	auth := httpsource.Auth{BearerToken: opts.APIKey}
	if u.User != nil {
		// A proxy's basic auth in the URL: sent as such, scrubbed like a key.
		auth.Username = u.User.Username()
		auth.Password, _ = u.User.Password()
		u.User = nil
	}
	hs, err := httpsource.New(httpsource.Options{Auth: auth, Timeout: opts.RequestTimeout, MaxBody: maxAnswer, HTTP: opts.HTTPClient})
	if err != nil {
		return nil, fmt.Errorf("openai: %w (an API key in $%s and a user:password in model.url)", err, opts.APIKeyEnv)
	}
	return &Client{opts: opts, base: strings.TrimSuffix(u.String(), "/"), host: host.Redacted(), hs: hs}, nil
}

// Host is the base URL, password masked, that errors and doctor name.
func (c *Client) Host() string { return c.host }

// Model is the configured model id.
func (c *Client) Model() string { return c.opts.Model }

// Chat runs one complete round: streamed (SSE) or whole as configured,
// retried only when the server rate-limits (429) and its Retry-After fits
// in the request timeout. Anything but a complete answer is a *model.Error.
func (c *Client) Chat(ctx context.Context, req model.Request) (model.Response, error) {
	body, err := c.buildRequest(req)
	if err != nil {
		return model.Response{}, c.fail(model.ErrBadRequest, err)
	}
	rctx, cancel := model.RoundContext(ctx, c.opts.RequestTimeout)
	defer cancel()
	acc := accumulator{literal: c.hs.Literal}
	read := func(stream bool, rd io.Reader) error {
		if stream {
			return acc.readStream(rd)
		}
		return acc.readWhole(rd)
	}
	err = c.post(ctx, rctx, "/chat/completions", body, read)
	if err != nil && req.MaxOutputTokens > 0 && !c.maxTokensOnly.Load() && refusesMaxCompletionTokens(err) {
		// Sent again once with max_tokens, and so for the rest of the run.
		c.maxTokensOnly.Store(true)
		if body, err = c.buildRequest(req); err != nil {
			return model.Response{}, c.fail(model.ErrBadRequest, err)
		}
		acc = accumulator{literal: c.hs.Literal}
		err = c.post(ctx, rctx, "/chat/completions", body, read)
	}
	if err != nil {
		return model.Response{}, err
	}
	return c.response(req, body.Bytes(), &acc)
}

// refusesMaxCompletionTokens reports a 400 that names max_completion_tokens:
// a server that knows only the older max_tokens.
func refusesMaxCompletionTokens(err error) bool {
	me := model.AsError(err)
	return me != nil && me.Status == http.StatusBadRequest && me.Err != nil && strings.Contains(me.Err.Error(), "max_completion_tokens")
}

// wireRequest is the body of POST /chat/completions.
type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []wireMessage   `json:"messages"`
	Tools          []wireTool      `json:"tools,omitempty"`
	ToolChoice     string          `json:"tool_choice,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	Temperature    float64         `json:"temperature"`
	Stream         bool            `json:"stream"`
	StreamOptions  *streamOptions  `json:"stream_options,omitempty"`
	// MaxCompletionTokens bounds the answer; MaxTokens is the older name,
	// sent instead once the server refused the newer one.
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
	MaxTokens           int `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireToolFunc `json:"function"`
}

type wireToolFunc struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// schemaNote introduces the schema a structured round without
// response_format json_schema carries in its prompt.
const schemaNote = "Answer with exactly one JSON object, and nothing else, that follows this JSON Schema:\n"

// buildRequest converts the port's request to the wire body. Thinking is
// never sent back; response_format is never sent together with tools (that
// silently stops tool calling on vLLM and Ollama), so a schema then goes in
// the prompt as with structured = "none". The body passes the egress door:
// post sends nothing else.
func (c *Client) buildRequest(req model.Request) (egress.JSON, error) {
	w := wireRequest{Model: c.opts.Model, Temperature: c.opts.Temperature, Stream: c.opts.Stream}
	if c.opts.Stream {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if n := req.MaxOutputTokens; n > 0 {
		if c.maxTokensOnly.Load() {
			w.MaxTokens = n
		} else {
			w.MaxCompletionTokens = n
		}
	}
	for i, m := range req.Messages {
		wm, err := messageToWire(i, m)
		if err != nil {
			return egress.JSON{}, err
		}
		w.Messages = append(w.Messages, wm)
	}
	for i, t := range req.Tools {
		if t.Name == "" {
			return egress.JSON{}, fmt.Errorf("tool %d has no name", i)
		}
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		if params[0] != '{' || !json.Valid(params) {
			return egress.JSON{}, fmt.Errorf("tool %s: parameters are not a JSON Schema object", t.Name)
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireToolFunc{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if len(w.Tools) > 0 {
		w.ToolChoice = "auto"
	}
	if f := bytes.TrimSpace(req.Format); len(f) > 0 {
		if !json.Valid(f) || (f[0] != '{' && string(f) != `"json"`) {
			return egress.JSON{}, fmt.Errorf("format %.40s is neither \"json\" nor a JSON Schema object", f)
		}
		mode := c.opts.Structured
		if len(w.Tools) > 0 {
			mode = StructuredNone
		}
		isSchema := f[0] == '{'
		switch {
		case mode == StructuredJSONSchema && isSchema:
			w.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchema{Name: "answer", Strict: true, Schema: f}}
		case mode == StructuredJSONSchema || mode == StructuredJSONObject:
			w.ResponseFormat = &responseFormat{Type: "json_object"}
		}
		if w.ResponseFormat == nil || w.ResponseFormat.Type == "json_object" {
			note := "Answer with exactly one JSON object and nothing else."
			if isSchema {
				note = schemaNote + string(f)
			}
			w.Messages = append(w.Messages, wireMessage{Role: "system", Content: &note})
		}
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return egress.JSON{}, err
	}
	return egress.MaskJSON(raw)
}

// messageToWire converts one message; an assistant message's tool calls
// carry their arguments as the JSON text OpenAI's wire wants.
func messageToWire(i int, m model.Message) (wireMessage, error) {
	content := m.Content
	wm := wireMessage{Role: string(m.Role), Content: &content}
	switch m.Role {
	case model.RoleSystem, model.RoleUser:
	case model.RoleAssistant:
		for j, tc := range m.ToolCalls {
			args := bytes.TrimSpace(tc.Arguments)
			if len(args) == 0 {
				args = []byte("{}")
			}
			if args[0] != '{' || !json.Valid(args) {
				return wm, fmt.Errorf("message %d tool call %d (%s): arguments are not a JSON object", i, j, tc.Name)
			}
			wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: tc.ID, Type: "function", Function: wireFunction{Name: tc.Name, Arguments: string(args)}})
		}
		if len(wm.ToolCalls) > 0 && content == "" {
			wm.Content = nil
		}
	case model.RoleTool:
		wm.ToolCallID, wm.Name = m.ToolCallID, m.ToolName
	default:
		return wm, fmt.Errorf("message %d has role %q: want system, user, assistant or tool", i, m.Role)
	}
	return wm, nil
}

// response builds the port's answer from what was assembled; usage the
// server did not report is estimated from the request and the answer.
func (c *Client) response(req model.Request, sent []byte, a *accumulator) (model.Response, error) {
	a.scrubAll()
	calls, err := a.toolCalls()
	if err != nil {
		return model.Response{}, c.fail(model.ErrProtocol, err)
	}
	model.AssignToolCallIDs(calls, req.Messages)
	resp := model.Response{
		Message: model.Message{
			Role:      model.RoleAssistant,
			Content:   a.content.String(),
			Thinking:  a.thinking.String(),
			ToolCalls: calls,
		},
		DoneReason: a.finish,
		Model:      a.model,
	}
	if a.usage != nil {
		resp.Usage = model.Usage{PromptTokens: a.usage.PromptTokens, CompletionTokens: a.usage.CompletionTokens}
	} else {
		// Lengths summed, not texts concatenated: an answer of 40,000
		// calls is estimated in linear time.
		n := len(resp.Message.Content) + len(resp.Message.Thinking)
		for _, tc := range calls {
			n += len(tc.Name) + len(tc.Arguments)
		}
		resp.Usage = model.Usage{PromptTokens: model.EstimateTokens(string(sent)), CompletionTokens: model.EstimateTokensOfBytes(n), Estimated: true}
	}
	return resp, nil
}

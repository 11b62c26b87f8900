package openaitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// ChatRequest is the body of one chat request as the client sent it.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []ToolDef `json:"tools,omitempty"`
	// ToolChoice, ResponseFormat and StreamOptions are the raw members.
	ToolChoice          json.RawMessage `json:"tool_choice,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       json.RawMessage `json:"stream_options,omitempty"`
	Temperature         *float64        `json:"temperature,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
}

// includeUsage reports whether stream_options.include_usage is true.
func (r ChatRequest) includeUsage() bool {
	var o struct {
		IncludeUsage bool `json:"include_usage"`
	}
	return json.Unmarshal(r.StreamOptions, &o) == nil && o.IncludeUsage
}

// Message is one chat message as the client sent it.
type Message struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
	// ReasoningContent is what a client sent back as reasoning; it must send none.
	ReasoningContent json.RawMessage `json:"reasoning_content,omitempty"`
}

// Text is the message's content, "" for null.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// WireToolCall is a tool call in a request's assistant message.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolDef is one entry of the request's tools.
type ToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	var req ChatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		i := s.record(r, body, nil)
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error", "")
		return
	}
	i := s.record(r, body, &req)
	if !s.authorized(w, r, i) {
		return
	}
	fail := func(status int, f Fault, msg, typ, code string) {
		s.setOutcome(i, status, f)
		writeError(w, status, msg, typ, code)
	}
	if !slices.Contains(s.models, req.Model) {
		fail(http.StatusNotFound, FaultModelNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model), "invalid_request_error", "model_not_found")
		return
	}
	if len(req.Tools) > 0 && len(req.ResponseFormat) > 0 {
		fail(http.StatusBadRequest, FaultNone, s.problem("request %d sends tools and response_format together", i), "invalid_request_error", "")
		return
	}
	if s.quirk == QuirkMaxTokensOnly && req.MaxCompletionTokens != 0 {
		// Refused before the script is read: the client's retry gets the turn.
		s.setOutcome(i, http.StatusBadRequest, FaultNone)
		writeParamError(w, MaxCompletionTokensUnsupported, "max_completion_tokens")
		return
	}
	turn, ok := s.nextTurn(req)
	if !ok {
		fail(http.StatusInternalServerError, FaultNone, s.problem("script exhausted: chat request %d has no scripted turn", i), "server_error", "")
		return
	}
	if !ollamatest.SleepCtx(r, turn.FirstByteDelay) {
		s.setOutcome(i, 0, turn.Fault)
		return
	}
	msg := func(def string) string {
		if turn.ErrorMessage != "" {
			return turn.ErrorMessage
		}
		return def
	}
	switch turn.Fault {
	case FaultUnauthorized:
		fail(http.StatusUnauthorized, turn.Fault, msg("Incorrect API key provided."), "invalid_request_error", "invalid_api_key")
		return
	case FaultForbidden:
		fail(http.StatusForbidden, turn.Fault, msg("You are not allowed to use this model."), "invalid_request_error", "")
		return
	case FaultModelNotFound:
		fail(http.StatusNotFound, turn.Fault, msg(fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model)), "invalid_request_error", "model_not_found")
		return
	case FaultRateLimited:
		if turn.RetryAfter != "" {
			w.Header().Set("Retry-After", turn.RetryAfter)
		}
		fail(http.StatusTooManyRequests, turn.Fault, msg("Rate limit reached for requests."), "requests", "rate_limit_exceeded")
		return
	case FaultServerError:
		fail(http.StatusInternalServerError, turn.Fault, msg(DefaultServerError), "server_error", "")
		return
	case FaultContextLength:
		fail(http.StatusBadRequest, turn.Fault, msg(DefaultContextLength), "invalid_request_error", "context_length_exceeded")
		return
	case FaultToolChoice:
		fail(http.StatusBadRequest, turn.Fault, msg(DefaultToolChoice), "BadRequestError", "")
		return
	case FaultBadRequest:
		fail(http.StatusBadRequest, turn.Fault, msg(DefaultBadRequest), "invalid_request_error", "")
		return
	case FaultServerErrorEmpty:
		s.setOutcome(i, http.StatusInternalServerError, turn.Fault)
		w.WriteHeader(http.StatusInternalServerError)
		return
	case FaultProxyHTML:
		s.setOutcome(i, http.StatusBadGateway, turn.Fault)
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, ProxyHTML)
		return
	}
	for k, c := range turn.ToolCalls {
		if a := strings.TrimSpace(c.Args); a != "" && (!json.Valid([]byte(a)) || (a[0] != '{' && !c.NotObject)) {
			fail(http.StatusInternalServerError, FaultNone, s.problem("invalid scripted turn: tool call %d (%s) Args %q is not a JSON object", k, c.Name, c.Args), "server_error", "")
			return
		}
	}
	s.setOutcome(i, http.StatusOK, turn.Fault)
	if req.Stream {
		s.writeStream(w, r, req, turn)
		return
	}
	s.writeWhole(w, req, turn)
}

func (t Turn) finish(q Quirk) string {
	switch {
	case t.FinishReason != "":
		return t.FinishReason
	case len(t.ToolCalls) > 0 && q != QuirkFinishStop:
		return "tool_calls"
	}
	return "stop"
}

func args(c ToolCall) string {
	if a := strings.TrimSpace(c.Args); a != "" {
		return a
	}
	return "{}"
}

func (s *Server) usage(t Turn) map[string]int {
	return map[string]int{"prompt_tokens": t.PromptTokens, "completion_tokens": t.CompletionTokens, "total_tokens": t.PromptTokens + t.CompletionTokens}
}

// writeWhole answers stream:false with one chat.completion document.
func (s *Server) writeWhole(w http.ResponseWriter, req ChatRequest, t Turn) {
	switch t.Fault {
	case FaultCutStream:
		ollamatest.Cut(w)
		return
	case FaultErrorInStream:
		writeError(w, http.StatusInternalServerError, orDefault(t.ErrorMessage, DefaultStreamError), "server_error", "")
		return
	case FaultMalformedData:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, MalformedData)
		return
	}
	msg := map[string]any{"role": "assistant", "content": strings.Join(t.Content, "")}
	if len(t.Thinking) > 0 {
		msg[s.reasoningField()] = strings.Join(t.Thinking, "")
	}
	if len(t.ToolCalls) > 0 {
		var calls []map[string]any
		for _, c := range t.ToolCalls {
			var a any = args(c)
			if s.quirk == QuirkArgsObject {
				a = json.RawMessage(args(c))
			}
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": a}})
		}
		msg["tool_calls"] = calls
	}
	doc := map[string]any{
		"id": "chatcmpl-openaitest", "object": "chat.completion", "created": Created, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": t.finish(s.quirk)}},
	}
	if s.quirk != QuirkNoUsage {
		doc["usage"] = s.usage(t)
	}
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(doc)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	s.writeSplit(w, buf.Bytes())
}

func (s *Server) reasoningField() string {
	if s.quirk == QuirkReasoningField {
		return "reasoning"
	}
	return "reasoning_content"
}

// writeSplit writes b in pieces of the configured size, each flushed.
func (s *Server) writeSplit(w http.ResponseWriter, b []byte) bool {
	rc := http.NewResponseController(w)
	n := s.split
	if n <= 0 {
		n = len(b)
	}
	for len(b) > 0 {
		k := min(n, len(b))
		if _, err := w.Write(b[:k]); err != nil {
			return false
		}
		if rc.Flush() != nil {
			return false
		}
		b = b[k:]
	}
	return true
}

// writeStream answers with server-sent events shaped by the quirk:
// role, thinking, content, tool calls, finish, usage, [DONE].
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req ChatRequest, t Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	first := true
	send := func(v any) bool {
		if !first && !ollamatest.SleepCtx(r, t.ChunkDelay) {
			return false
		}
		first = false
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		return s.writeSplit(w, []byte("data: "+string(b)+"\n\n"))
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-openaitest", "object": "chat.completion.chunk", "created": Created, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
	}
	if !s.writeSplit(w, []byte(": openaitest\n\n")) || !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	for _, th := range t.Thinking {
		if !send(chunk(map[string]any{s.reasoningField(): th}, nil)) {
			return
		}
	}
	for _, c := range t.Content {
		if !send(chunk(map[string]any{"content": c}, nil)) {
			return
		}
	}
	switch t.Fault {
	case FaultCutStream:
		ollamatest.Cut(w)
		return
	case FaultErrorInStream:
		send(map[string]any{"error": map[string]any{"message": orDefault(t.ErrorMessage, DefaultStreamError), "type": "server_error", "code": 500}})
		return
	case FaultMalformedData:
		s.writeSplit(w, []byte("data: "+MalformedData+"\n\n"))
		return
	}
	for k, c := range t.ToolCalls {
		for _, d := range s.callDeltas(k, c) {
			if !send(chunk(map[string]any{"tool_calls": []any{d}}, nil)) {
				return
			}
		}
	}
	if !send(chunk(map[string]any{}, t.finish(s.quirk))) {
		return
	}
	if req.includeUsage() && s.quirk != QuirkNoUsage {
		if !send(map[string]any{"id": "chatcmpl-openaitest", "object": "chat.completion.chunk", "created": Created, "model": req.Model, "choices": []any{}, "usage": s.usage(t)}) {
			return
		}
	}
	s.writeSplit(w, []byte("data: [DONE]\n\n"))
}

// callDeltas are the deltas of tool call k under the server's quirk.
func (s *Server) callDeltas(k int, c ToolCall) []map[string]any {
	a := args(c)
	fn := func(name string, arguments any) map[string]any {
		return map[string]any{"name": name, "arguments": arguments}
	}
	switch s.quirk {
	case QuirkArgsWhole:
		return []map[string]any{{"index": k, "id": c.ID, "type": "function", "function": fn(c.Name, a)}}
	case QuirkArgsObject:
		return []map[string]any{{"index": k, "id": c.ID, "type": "function", "function": fn(c.Name, json.RawMessage(a))}}
	case QuirkSameIndex:
		return []map[string]any{{"index": 0, "id": c.ID, "type": "function", "function": fn(c.Name, a)}}
	}
	out := []map[string]any{{"index": k, "id": c.ID, "type": "function", "function": fn(c.Name, "")}}
	if s.quirk == QuirkNoIndex {
		delete(out[0], "index")
	}
	for _, piece := range pieces(a, 3) {
		d := map[string]any{"index": k, "function": map[string]any{"arguments": piece}}
		switch s.quirk {
		case QuirkEmptyName:
			d["id"], d["type"], d["function"] = "", "function", fn("", piece)
		case QuirkNoIndex:
			delete(d, "index")
		}
		out = append(out, d)
	}
	return out
}

// pieces cuts s into pieces of at most n bytes (a rune may be cut: the
// wire's JSON strings carry whole runes, so cut at rune starts).
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && (s[k]&0xC0) == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

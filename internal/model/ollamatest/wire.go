package ollamatest

import (
	"bytes"
	"encoding/json"
	"time"
)

// ChatRequest is the body of one POST /api/chat as the client sent it,
// decoded into ollamatest's own types so tests in any package can assert
// exactly what the model was sent without importing Ollama's client.
type ChatRequest struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Tools are the function declarations offered to the model.
	Tools []ToolDef `json:"tools,omitempty"`
	// Format is the raw "format" member: "json" or a JSON Schema.
	Format json.RawMessage `json:"format,omitempty"`
	// Options is the raw options object (num_ctx, temperature, ...); JSON
	// numbers decode as float64.
	Options map[string]any `json:"options"`
	// Think is the raw "think" member (true, false, "high", ...) or nil
	// when the client did not send it.
	Think json.RawMessage `json:"think,omitempty"`
	// Stream is nil when the client did not send it (the server then streams).
	Stream    *bool           `json:"stream,omitempty"`
	KeepAlive json.RawMessage `json:"keep_alive,omitempty"`
}

// Streaming reports whether the server answers with NDJSON chunks, which is
// Ollama's default when "stream" is absent.
func (r ChatRequest) Streaming() bool { return r.Stream == nil || *r.Stream }

// ThinkText returns the raw think member as text ("false", "true", `"high"`),
// or "" when it was absent, so tests can assert it was set explicitly.
func (r ChatRequest) ThinkText() string { return string(bytes.TrimSpace(r.Think)) }

// Message is one chat message on the wire, in either direction.
type Message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Thinking   string         `json:"thinking,omitempty"`
	Images     []string       `json:"images,omitempty"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// WireToolCall is a tool call as Ollama encodes it (id is omitted when empty).
type WireToolCall struct {
	ID       string       `json:"id,omitempty"`
	Function WireFunction `json:"function"`
}

// WireFunction is the function part of a wire tool call; Arguments is the
// raw JSON object, member order as sent.
type WireFunction struct {
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolDef is one entry of the request's "tools" array.
type ToolDef struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction is a declared function; Parameters is its raw JSON Schema.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chatChunk mirrors api.ChatResponse's JSON encoding (field names, order and
// omitempty) so the stream is byte-for-byte shaped like the real server's.
type chatChunk struct {
	Model              string    `json:"model"`
	CreatedAt          time.Time `json:"created_at"`
	Message            Message   `json:"message"`
	Done               bool      `json:"done"`
	DoneReason         string    `json:"done_reason,omitempty"`
	TotalDuration      int64     `json:"total_duration,omitempty"`
	LoadDuration       int64     `json:"load_duration,omitempty"`
	PromptEvalCount    int       `json:"prompt_eval_count,omitempty"`
	PromptEvalDuration int64     `json:"prompt_eval_duration,omitempty"`
	EvalCount          int       `json:"eval_count,omitempty"`
	EvalDuration       int64     `json:"eval_duration,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
}

type modelDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

type listModel struct {
	Name       string       `json:"name"`
	Model      string       `json:"model"`
	ModifiedAt time.Time    `json:"modified_at"`
	Size       int64        `json:"size"`
	Digest     string       `json:"digest"`
	Details    modelDetails `json:"details"`
}

type showResponse struct {
	Modelfile    string         `json:"modelfile,omitempty"`
	Parameters   string         `json:"parameters,omitempty"`
	Template     string         `json:"template,omitempty"`
	Details      modelDetails   `json:"details"`
	ModelInfo    map[string]any `json:"model_info"`
	Capabilities []string       `json:"capabilities,omitempty"`
	ModifiedAt   time.Time      `json:"modified_at"`
}

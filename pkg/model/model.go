// Package model is the engine's port to a chat model: the messages, tools,
// tool calls and usage the harness and agent speak, with no dependency beyond
// the standard library. Adapters (pkg/model/ollama, internal/model/replay) translate
// these types to a provider; no provider type ever crosses this port.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Role says who wrote a message, so adapters can map it to the provider's roles.
type Role string

// The roles a conversation is made of.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of the conversation as the engine sees it.
type Message struct {
	Role     Role   `json:"role"`
	Content  string `json:"content"`
	Thinking string `json:"thinking,omitempty"`
	// ToolCalls are the calls an assistant message asked for, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolName and ToolCallID identify the call a tool message answers.
	ToolName   string `json:"tool_name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// toolCallIDShape matches the two Tool Call ID shapes of
// docs/SPEC.md#tool-call-ids: Ollama's call_ plus 8 of [a-z0-9], and the
// call_<n> the adapter (or a fixed executor) assigns.
// Compiled on first use, not at start-up.
var toolCallIDShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bcall_(?:[a-z0-9]{8}|[0-9]+)\b`)
})

// ReplaceToolCallIDs replaces everything in text shaped like a Tool Call ID
// with repl, so no ID of a run can reach published content.
func ReplaceToolCallIDs(text, repl string) string {
	return toolCallIDShape().ReplaceAllString(text, repl)
}

// ToolCall is one function call requested by the model, with the ID the
// provider gave it (or call_<n> assigned by the adapter when it gave none).
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the JSON object the model sent, member order preserved.
	Arguments json.RawMessage `json:"arguments"`
}

// Tool declares a function the model may call through native tool calling.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema (type object) of the arguments.
	Parameters json.RawMessage `json:"parameters"`
}

// Request is one model round: the whole conversation so far, the tools
// offered (none for a final answer) and an optional output JSON Schema.
type Request struct {
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools,omitempty"`
	// Format, when set, is a JSON Schema the answer must follow (Ollama format).
	Format json.RawMessage `json:"format,omitempty"`
	// MaxOutputTokens bounds the answer's length: what remains of the run's
	// token budget when the round starts (the harness sets it); 0 leaves
	// the length to the server.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
}

// Usage is what the provider reported for one round, for token budgets.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// Estimated is true when the provider reported no usage and the adapter
	// estimated both counts from the text (EstimateTokens), so the budget
	// still holds and the run shows the counts were not measured.
	Estimated bool `json:"estimated,omitempty"`
}

// EstimateTokens is the token count charged for text when a provider reports
// none: one token per 4 bytes, rounded up, the usual rule of thumb for
// English and code (CJK text is undercounted by it, never overcounted).
func EstimateTokens(text string) int { return EstimateTokensOfBytes(len(text)) }

// EstimateTokensOfBytes is EstimateTokens for a text of n bytes, so an
// answer made of many parts is estimated by summing their lengths.
func EstimateTokensOfBytes(n int) int { return (n + 3) / 4 }

// AssignToolCallIDs gives every call without an ID one, in place.
//
// ID rule: the server's ID is kept byte for byte. A call without one gets
// call_<n> with n = 1 + (number of tool calls already in history) + (its
// index in calls), moved up past any ID already used in the history or in
// calls. So IDs assigned over a conversation read call_1, call_2, ... and
// never collide with an earlier call's ID.
func AssignToolCallIDs(calls []ToolCall, history []Message) {
	used := map[string]bool{}
	prior := 0
	for _, m := range history {
		prior += len(m.ToolCalls)
		for _, tc := range m.ToolCalls {
			used[tc.ID] = true
		}
		if m.ToolCallID != "" {
			used[m.ToolCallID] = true
		}
	}
	for _, c := range calls {
		if c.ID != "" {
			used[c.ID] = true
		}
	}
	for i := range calls {
		if calls[i].ID != "" {
			continue
		}
		n := prior + i + 1
		for used["call_"+strconv.Itoa(n)] {
			n++
		}
		calls[i].ID = "call_" + strconv.Itoa(n)
		used[calls[i].ID] = true
	}
}

// Total is the sum the token budget is charged with.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Response is the assistant's complete answer to one Request.
type Response struct {
	Message    Message `json:"message"`
	Usage      Usage   `json:"usage"`
	DoneReason string  `json:"done_reason,omitempty"`
	Model      string  `json:"model,omitempty"`
}

// ChatModel is the single capability the engine needs from a model: one
// complete, non-retried round. Implementations must honour ctx and never
// return a partial Response with a nil error.
type ChatModel interface {
	Chat(ctx context.Context, req Request) (Response, error)
}

// OptionError is an Options value an adapter's New cannot use (a server
// URL that is no URL, an empty model name), named by the Options field: the
// caller says in its own words where the value came from (a file key, a
// flag), for no package of pkg/ names them.
type OptionError struct {
	// Provider is the adapter ("ollama", "openai"); Option, the Options
	// field ("Host", "URL", "Model").
	Provider, Option string
	Err              error
}

func (e *OptionError) Error() string {
	return e.Provider + ": Options." + e.Option + ": " + e.Err.Error()
}

func (e *OptionError) Unwrap() error { return e.Err }

// ErrorKind lets callers tell model failures apart without provider types.
type ErrorKind string

// The failure classes every adapter maps its errors to.
const (
	ErrUnreachable       ErrorKind = "UNREACHABLE"
	ErrModelNotFound     ErrorKind = "MODEL_NOT_FOUND"
	ErrToolsNotSupported ErrorKind = "TOOLS_NOT_SUPPORTED"
	ErrBadRequest        ErrorKind = "BAD_REQUEST"
	ErrTimeout           ErrorKind = "TIMEOUT"
	ErrCancelled         ErrorKind = "CANCELLED"
	ErrProtocol          ErrorKind = "PROTOCOL"
	ErrServer            ErrorKind = "SERVER"
)

// Error is the typed failure of a model round; Kind is stable, Err is for logs.
type Error struct {
	Kind  ErrorKind
	Host  string
	Model string
	// Status is the HTTP status the server answered with, 0 when the
	// failure came before or without one; callers pick their hint by it
	// (401/403: credentials; 5xx: the server or a proxy).
	Status int
	Err    error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("model %s", kindText(e.Kind))
	if e.Model != "" {
		msg += fmt.Sprintf(" (model %q", e.Model)
		if e.Host != "" {
			msg += " at " + e.Host
		}
		msg += ")"
	} else if e.Host != "" {
		msg += " (at " + e.Host + ")"
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func kindText(k ErrorKind) string {
	switch k {
	case ErrUnreachable:
		return "server unreachable"
	case ErrModelNotFound:
		return "not found"
	case ErrToolsNotSupported:
		return "does not support tools"
	case ErrBadRequest:
		return "rejected the request"
	case ErrTimeout:
		return "request timed out"
	case ErrCancelled:
		return "request cancelled"
	case ErrProtocol:
		return "protocol error"
	case ErrServer:
		return "server error"
	}
	return "error"
}

// AsError returns the model *Error in err's chain, or nil.
func AsError(err error) *Error {
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	return nil
}

// KindOf returns the ErrorKind of err, or "" when err is not a model *Error.
func KindOf(err error) ErrorKind {
	var me *Error
	if errors.As(err, &me) {
		return me.Kind
	}
	return ""
}

// Embedder turns texts into vectors, for semantic runbook search. It is a
// port like ChatModel: adapters (pkg/model/ollama) implement it, and no
// provider type crosses it.
type Embedder interface {
	// Embed returns one vector per input, in input order, all of one
	// dimension of at most MaxEmbedDim (the adapters check both, as
	// CheckVectors and while decoding, so callers need not); failures are
	// *Error values like Chat's.
	Embed(ctx context.Context, inputs []string) ([][]float32, error)
}

// errRequestTimeout is the cause of a round's own deadline (RoundContext),
// so it can be told apart from the caller's deadline.
var errRequestTimeout = errors.New("model.request_timeout elapsed")

// RoundContext is an adapter's own per-round context of
// model.request_timeout (rctx of ContextError), the one shape every
// provider bounds a round with.
func RoundContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, timeout, errRequestTimeout)
}

// ContextError classifies a round that ended because a context did: the
// caller's ctx (cancelled: ErrCancelled; deadline: ErrTimeout) wins over
// rctx, the adapter's own per-round context of model.request_timeout
// (ErrTimeout naming timeout). The kind is "" when neither context is done.
func ContextError(ctx, rctx context.Context, timeout time.Duration) (ErrorKind, error) {
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return ErrTimeout, fmt.Errorf("caller's deadline exceeded: %w", context.Cause(ctx))
		}
		cause := context.Cause(ctx)
		if cause == nil || cause == err {
			return ErrCancelled, err
		}
		return ErrCancelled, fmt.Errorf("%w: %w", err, cause)
	}
	if rctx.Err() != nil {
		return ErrTimeout, fmt.Errorf("no complete answer within %s (model.request_timeout): %w", timeout, context.DeadlineExceeded)
	}
	return "", nil
}

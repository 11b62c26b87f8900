package openaitest

import "time"

// Turn is one scripted answer to one POST /chat/completions.
type Turn struct {
	// Thinking is sent first (reasoning_content, or reasoning under
	// QuirkReasoningField), one delta per element.
	Thinking []string
	// Content is sent after the thinking, one delta per element.
	Content []string
	// ToolCalls are sent after the content as the server's quirk shapes them.
	ToolCalls []ToolCall
	// PromptTokens and CompletionTokens are the usage reported (the last
	// chunk of a stream that asked for it, or the whole answer's usage).
	PromptTokens     int
	CompletionTokens int
	// FinishReason defaults to "tool_calls" with calls, else "stop".
	FinishReason string
	// Fault injects a failure; see the Fault constants.
	Fault Fault
	// ErrorMessage overrides the text of a fault that carries one.
	ErrorMessage string
	// RetryAfter is the Retry-After header of FaultRateLimited ("" sends none).
	RetryAfter string
	// FirstByteDelay holds the response back before the status line is sent.
	FirstByteDelay time.Duration
	// ChunkDelay is slept between two events of a stream.
	ChunkDelay time.Duration
}

// ToolCall is one scripted function call.
type ToolCall struct {
	// ID is the call's id; empty means the server sends none.
	ID   string
	Name string
	// Args is the JSON text of the arguments, sent as the quirk says
	// (a string split in pieces, whole, or as an object); empty means {}.
	Args string
	// NotObject sends Args although it is valid JSON but not an object
	// (an array, a string), as a faulty server does; without it such Args
	// are a scripting mistake the server reports.
	NotObject bool
}

// Quirk is one way a real OpenAI-compatible server shapes its stream; the
// adapter must assemble the same answer under each.
type Quirk int

// The quirks a server can be set to.
const (
	// QuirkNone streams as OpenAI does: id, type and name with empty
	// arguments first, then the arguments in small pieces, each delta with
	// its index; finish_reason tool_calls; usage in a last chunk.
	QuirkNone Quirk = iota
	// QuirkArgsWhole sends each call whole (id, name, all arguments) in one delta.
	QuirkArgsWhole
	// QuirkEmptyName repeats "name":"" and "id":"" in every later delta (LM Studio).
	QuirkEmptyName
	// QuirkArgsObject sends the arguments as a JSON object, not a string.
	QuirkArgsObject
	// QuirkFinishStop ends a turn with tool calls with finish_reason "stop".
	QuirkFinishStop
	// QuirkNoUsage sends no usage at all, though the client asked for it.
	QuirkNoUsage
	// QuirkNoIndex sends deltas without index; only the first carries the id.
	QuirkNoIndex
	// QuirkSameIndex numbers every call index 0, each whole in its own
	// chunk with its own id (Ollama's /v1).
	QuirkSameIndex
	// QuirkReasoningField names the thinking "reasoning", not "reasoning_content".
	QuirkReasoningField
	// QuirkMaxTokensOnly answers a request that sets max_completion_tokens
	// 400 unsupported_parameter naming it, in OpenAI's error shape, as
	// servers that know only the older max_tokens do; max_tokens is served.
	QuirkMaxTokensOnly
)

// Quirks lists every quirk, for table-driven tests.
var Quirks = []Quirk{QuirkNone, QuirkArgsWhole, QuirkEmptyName, QuirkArgsObject, QuirkFinishStop, QuirkNoUsage, QuirkNoIndex, QuirkSameIndex, QuirkReasoningField, QuirkMaxTokensOnly}

// String names the quirk for test logs.
func (q Quirk) String() string {
	switch q {
	case QuirkNone:
		return "none"
	case QuirkArgsWhole:
		return "args-whole"
	case QuirkEmptyName:
		return "empty-name"
	case QuirkArgsObject:
		return "args-object"
	case QuirkFinishStop:
		return "finish-stop"
	case QuirkNoUsage:
		return "no-usage"
	case QuirkNoIndex:
		return "no-index"
	case QuirkSameIndex:
		return "same-index"
	case QuirkReasoningField:
		return "reasoning-field"
	case QuirkMaxTokensOnly:
		return "max-tokens-only"
	}
	return "unknown"
}

// ParseQuirk is the quirk named s (as String writes it).
func ParseQuirk(s string) (Quirk, bool) {
	for _, q := range Quirks {
		if q.String() == s {
			return q, true
		}
	}
	return 0, false
}

// Fault names a failure the server injects instead of (or in the middle
// of) a normal answer, each in the shape real servers send.
type Fault int

// The injectable faults.
const (
	// FaultNone answers normally.
	FaultNone Fault = iota
	// FaultUnauthorized answers 401 invalid_api_key.
	FaultUnauthorized
	// FaultForbidden answers 403.
	FaultForbidden
	// FaultModelNotFound answers 404 model_not_found.
	FaultModelNotFound
	// FaultRateLimited answers 429 rate_limit_exceeded with Turn.RetryAfter.
	FaultRateLimited
	// FaultServerError answers 500 with OpenAI's error shape.
	FaultServerError
	// FaultProxyHTML answers 502 with nginx's HTML error page.
	FaultProxyHTML
	// FaultCutStream sends the thinking and content, then closes the connection.
	FaultCutStream
	// FaultErrorInStream sends the thinking and content, then an error object as a data line.
	FaultErrorInStream
	// FaultMalformedData sends the thinking and content, then a data line that is not JSON.
	FaultMalformedData
	// FaultContextLength answers 400 context_length_exceeded.
	FaultContextLength
	// FaultToolChoice answers 400 as vLLM does without --enable-auto-tool-choice.
	FaultToolChoice
	// FaultServerErrorEmpty answers 500 with an empty body, as a crashed
	// worker behind a gateway does.
	FaultServerErrorEmpty
	// FaultBadRequest answers 400 invalid_request_error for another reason.
	FaultBadRequest
)

// Faults lists every fault, for table-driven tests.
var Faults = []Fault{FaultUnauthorized, FaultForbidden, FaultModelNotFound, FaultRateLimited, FaultServerError, FaultProxyHTML, FaultCutStream, FaultErrorInStream, FaultMalformedData, FaultContextLength, FaultToolChoice, FaultServerErrorEmpty, FaultBadRequest}

// String names the fault for test logs and the command line of the test server.
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return "none"
	case FaultUnauthorized:
		return "unauthorized"
	case FaultForbidden:
		return "forbidden"
	case FaultModelNotFound:
		return "model-not-found"
	case FaultRateLimited:
		return "rate-limited"
	case FaultServerError:
		return "server-error"
	case FaultProxyHTML:
		return "proxy-html"
	case FaultCutStream:
		return "cut-stream"
	case FaultErrorInStream:
		return "error-in-stream"
	case FaultMalformedData:
		return "malformed-data"
	case FaultContextLength:
		return "context-length"
	case FaultToolChoice:
		return "tool-choice"
	case FaultServerErrorEmpty:
		return "server-error-empty"
	case FaultBadRequest:
		return "bad-request"
	}
	return "unknown"
}

// The texts faults carry, exported so tests can assert they reach the caller.
const (
	DefaultServerError   = "The server had an error while processing your request."
	DefaultStreamError   = "CUDA error: out of memory"
	DefaultContextLength = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages."
	DefaultToolChoice    = "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
	MalformedData        = "this data line is not JSON {"
	// MaxCompletionTokensUnsupported is QuirkMaxTokensOnly's answer.
	MaxCompletionTokensUnsupported = "Unsupported parameter: 'max_completion_tokens' is not supported with this model. Use 'max_tokens' instead."
	DefaultBadRequest              = "'messages' must contain at least one message"
)

// ProxyHTML is the page FaultProxyHTML answers with (nginx's own words).
const ProxyHTML = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"

package ollamatest

import "time"

// Turn is one scripted answer to one POST /api/chat: what the "model" says,
// how the stream is paced, and which failure, if any, the server injects.
type Turn struct {
	// Thinking is sent first, one chunk per element.
	Thinking []string
	// Content is sent after the thinking, one chunk per element.
	Content []string
	// ToolCalls are sent in a non-final chunk after the content, all in one
	// chunk unless SplitToolCalls is set (then one chunk per call).
	ToolCalls      []ToolCall
	SplitToolCalls bool
	// PromptEvalCount and EvalCount are the usage on the final done chunk
	// (omitted from the wire when zero, exactly like Ollama).
	PromptEvalCount int
	EvalCount       int
	// DoneReason defaults to "stop".
	DoneReason string
	// Fault injects a failure; see the Fault constants.
	Fault Fault
	// ErrorMessage overrides the text of a fault that carries one.
	ErrorMessage string
	// FirstByteDelay holds the response back before the status line is sent.
	FirstByteDelay time.Duration
	// ChunkDelay is slept between two chunks of a stream.
	ChunkDelay time.Duration
}

// ToolCall is one scripted function call.
type ToolCall struct {
	// ID is sent as the call's "id"; empty means the server sends none,
	// like Ollama servers before IDs existed.
	ID   string
	Name string
	// Args is the raw JSON object text of the arguments, sent verbatim
	// (member order and number spelling kept); empty means {}.
	Args string
	// ArgsAsString sends Args as a JSON string ("arguments":"{\"a\":1}"),
	// as OpenAI-style proxies in front of Ollama do; Args is then sent
	// whatever it holds, so a string that is no JSON object can be scripted.
	ArgsAsString bool
}

// Fault names a failure the server injects instead of (or in the middle of)
// a normal answer, each reproducing what a real Ollama server sends.
type Fault int

// The injectable faults.
const (
	// FaultNone answers normally.
	FaultNone Fault = iota
	// FaultHTTP500Body answers 500 {"error":"..."} before any chunk.
	FaultHTTP500Body
	// FaultHTTP500Empty answers 500 with an empty body.
	FaultHTTP500Empty
	// FaultModelNotFound answers 404 {"error":"model \"x\" not found, try pulling it first"}.
	FaultModelNotFound
	// FaultToolsNotSupported answers 400 {"error":"registry.ollama.ai/library/x:tag does not support tools"}.
	FaultToolsNotSupported
	// FaultBadRequest answers 400 {"error":"..."} with another reason.
	FaultBadRequest
	// FaultUnauthorized answers 401 {"error":"unauthorized"}.
	FaultUnauthorized
	// FaultErrorLineMidStream sends the thinking and content chunks with
	// status 200, then one {"error":"..."} line, and ends the response.
	FaultErrorLineMidStream
	// FaultCutMidStream sends the thinking and content chunks, then closes
	// the TCP connection without finishing the chunked body or sending done.
	FaultCutMidStream
	// FaultMalformedLine sends the thinking and content chunks, then a line
	// that is not JSON, then the rest of the turn.
	FaultMalformedLine
	// FaultNoDone sends every chunk except the final done:true one and ends
	// the response cleanly.
	FaultNoDone
	// FaultProxyHTML answers 502 with an HTML error page, as a reverse proxy
	// (nginx) in front of a stopped Ollama does.
	FaultProxyHTML
	// FaultHTMLPage answers 200 with an HTML page, as a web server that is
	// not Ollama at all does.
	FaultHTMLPage
	// FaultEmbeddingsNotSupported answers an /api/embed request 400
	// {"error":"this model does not support embeddings"}.
	FaultEmbeddingsNotSupported
)

// String names the fault for test logs.
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return "none"
	case FaultHTTP500Body:
		return "http500-body"
	case FaultHTTP500Empty:
		return "http500-empty"
	case FaultModelNotFound:
		return "model-not-found"
	case FaultToolsNotSupported:
		return "tools-not-supported"
	case FaultBadRequest:
		return "bad-request"
	case FaultUnauthorized:
		return "unauthorized"
	case FaultErrorLineMidStream:
		return "error-line-mid-stream"
	case FaultCutMidStream:
		return "cut-mid-stream"
	case FaultMalformedLine:
		return "malformed-line"
	case FaultNoDone:
		return "no-done"
	case FaultProxyHTML:
		return "proxy-html-502"
	case FaultHTMLPage:
		return "html-page-200"
	case FaultEmbeddingsNotSupported:
		return "embeddings-not-supported"
	}
	return "unknown"
}

// ProxyHTML is the page FaultProxyHTML answers with (nginx's own words).
const ProxyHTML = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n"

// HTMLPage is the page FaultHTMLPage answers with.
const HTMLPage = "<!DOCTYPE html>\n<html lang=\"en\">\n<head><title>Welcome to the intranet</title></head>\n<body><h1>It works</h1></body>\n</html>\n"

// MalformedLine is the exact non-JSON line FaultMalformedLine sends.
const MalformedLine = "this line is not JSON {"

// Default fault texts, exported so tests can assert they reach the caller.
const (
	DefaultServerError    = "an error was encountered while running the model: unexpected EOF"
	DefaultBadRequest     = "invalid format: expected \"json\" or a valid JSON schema"
	DefaultMidStreamError = "an error was encountered while running the model: GGML_ASSERT failed"
)

// Model is one model the server has "pulled", with the capabilities
// /api/show reports and /api/chat enforces ("completion", "tools", "thinking").
type Model struct {
	Name         string
	Capabilities []string
}

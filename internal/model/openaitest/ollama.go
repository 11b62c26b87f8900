package openaitest

import (
	"encoding/json"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// FromOllama is the ollamatest turn t as this server plays it, so a scenario
// scripted once runs through both providers; false when t injects a fault
// that has no counterpart on this wire.
func FromOllama(t ollamatest.Turn) (Turn, bool) {
	out := Turn{
		Thinking: t.Thinking, Content: t.Content,
		PromptTokens: t.PromptEvalCount, CompletionTokens: t.EvalCount,
		ErrorMessage: t.ErrorMessage, FirstByteDelay: t.FirstByteDelay, ChunkDelay: t.ChunkDelay,
	}
	if t.DoneReason != "" && t.DoneReason != "stop" {
		out.FinishReason = t.DoneReason
	}
	for _, c := range t.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Args: c.Args})
	}
	faults := map[ollamatest.Fault]Fault{
		ollamatest.FaultNone:               FaultNone,
		ollamatest.FaultHTTP500Body:        FaultServerError,
		ollamatest.FaultHTTP500Empty:       FaultServerErrorEmpty,
		ollamatest.FaultBadRequest:         FaultBadRequest,
		ollamatest.FaultModelNotFound:      FaultModelNotFound,
		ollamatest.FaultUnauthorized:       FaultUnauthorized,
		ollamatest.FaultErrorLineMidStream: FaultErrorInStream,
		ollamatest.FaultCutMidStream:       FaultCutStream,
		ollamatest.FaultMalformedLine:      FaultMalformedData,
		ollamatest.FaultProxyHTML:          FaultProxyHTML,
		ollamatest.FaultToolsNotSupported:  FaultToolChoice,
	}
	f, ok := faults[t.Fault]
	out.Fault = f
	return out, ok
}

// Ollama is the request in ollamatest's shape, so checks written against
// what the Ollama server received read what this one received: tool-call
// arguments as their JSON object, the tool name of a result, and Format
// from response_format's json_schema (nil when the schema went in the prompt).
func (r ChatRequest) Ollama() ollamatest.ChatRequest {
	stream := r.Stream
	out := ollamatest.ChatRequest{Model: r.Model, Stream: &stream}
	for _, m := range r.Messages {
		om := ollamatest.Message{Role: m.Role, Content: m.Text(), ToolName: m.Name, ToolCallID: m.ToolCallID}
		for i, c := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, ollamatest.WireToolCall{ID: c.ID, Function: ollamatest.WireFunction{Index: i, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)}})
		}
		out.Messages = append(out.Messages, om)
	}
	for _, d := range r.Tools {
		out.Tools = append(out.Tools, ollamatest.ToolDef{Type: d.Type, Function: ollamatest.ToolFunction{Name: d.Function.Name, Description: d.Function.Description, Parameters: d.Function.Parameters}})
	}
	var rf struct {
		JSONSchema struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if json.Unmarshal(r.ResponseFormat, &rf) == nil {
		out.Format = rf.JSONSchema.Schema
	}
	return out
}

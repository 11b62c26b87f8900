package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/model"
)

// wireChunk is one streamed chunk or, with Message set, a whole answer.
type wireChunk struct {
	Model   string          `json:"model"`
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Delta        wireDelta  `json:"delta"`
	Message      *wireDelta `json:"message"`
	FinishReason *string    `json:"finish_reason"`
}

// wireDelta is a message or a message's delta; servers name the reasoning
// text reasoning_content (vLLM, llama.cpp, DeepSeek) or reasoning (newer
// vLLM, OpenRouter, Ollama's /v1).
type wireDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ToolCalls        []wireDeltaCall `json:"tool_calls"`
}

type wireDeltaCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string (the standard) or a JSON object
		// (some servers); a string may be any piece of the whole.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// streamFault is a failure the answer itself showed (an error object, a
// malformed data line, an answer without an end), already classified.
type streamFault struct {
	kind model.ErrorKind
	err  error
}

func (f *streamFault) Error() string { return f.err.Error() }

// callAcc is one tool call being assembled.
type callAcc struct {
	id, name string
	args     strings.Builder
	object   json.RawMessage // arguments sent as a JSON object
}

// accumulator assembles one answer from chunks (or one whole message).
type accumulator struct {
	content, thinking strings.Builder
	calls             []*callAcc
	byIndex           map[int]*callAcc
	byID              map[string]*callAcc
	finish            string
	model             string
	usage             *wireUsage
	events            int
	done              bool // data: [DONE] arrived
	whole             bool // the answer is one document, not a stream
	// literal removes the configured credential's every form (the client's
	// httpsource Scrubber.Literal) from what the server sent, before any of
	// it is read or quoted in an error; nil removes nothing.
	literal func(string) string
}

// clean is s with the configured credential removed.
func (a *accumulator) clean(s string) string {
	if a.literal == nil {
		return s
	}
	return a.literal(s)
}

// scrubAll removes the configured credential from everything assembled:
// an OpenAI-compatible server may echo the API key in its content, its
// reasoning, a tool call's name or arguments, or the model id, and all of
// these reach the store, the answer and progress lines.
func (a *accumulator) scrubAll() {
	if a.literal == nil {
		return
	}
	replace := func(b *strings.Builder) {
		s := b.String()
		if clean := a.literal(s); clean != s {
			b.Reset()
			b.WriteString(clean)
		}
	}
	replace(&a.content)
	replace(&a.thinking)
	a.model = a.literal(a.model)
	for _, c := range a.calls {
		c.id, c.name = a.literal(c.id), a.literal(c.name)
		replace(&c.args)
		if c.object != nil {
			c.object = json.RawMessage(a.literal(string(c.object)))
		}
	}
}

// readStream reads server-sent events until data: [DONE]. Comment lines
// (": keep-alive", OpenRouter's ": OPENROUTER PROCESSING") and other fields
// are skipped; an event's data lines are joined with "\n".
func (a *accumulator) readStream(r io.Reader) error {
	br := bufio.NewReaderSize(r, 32<<10)
	var data []byte
	pending := false
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 || err == nil {
			line = bytes.TrimRight(line, "\r\n")
			switch {
			case len(line) == 0:
				if pending {
					if derr := a.event(data); derr != nil || a.done {
						return derr
					}
					data, pending = data[:0], false
				}
			case line[0] == ':':
			default:
				field, value, _ := bytes.Cut(line, []byte(":"))
				value = bytes.TrimPrefix(value, []byte(" "))
				if string(field) == "data" {
					if pending {
						data = append(data, '\n')
					}
					data, pending = append(data, value...), true
				}
			}
		}
		if err == io.EOF {
			// A last event without its blank line still counts.
			if pending {
				if derr := a.event(data); derr != nil {
					return derr
				}
			}
			if !a.done && a.finish == "" {
				return &streamFault{model.ErrProtocol, fmt.Errorf("stream ended after %d events without a finish_reason or data: [DONE]", a.events)}
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// event handles one event's data.
func (a *accumulator) event(data []byte) error {
	a.events++
	if string(bytes.TrimSpace(data)) == "[DONE]" {
		a.done = true
		return nil
	}
	var ch wireChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return &streamFault{model.ErrProtocol, fmt.Errorf("malformed data line in stream (event %d): %q", a.events, textclip.Bytes(a.clean(strings.TrimSpace(string(data))), maxBodyText))}
	}
	return a.chunk(ch)
}

// chunk adds one chunk (or a whole answer) to the answer.
func (a *accumulator) chunk(ch wireChunk) error {
	if e := bytes.TrimSpace(ch.Error); len(e) > 0 && string(e) != "null" {
		if a.whole {
			return &streamFault{model.ErrServer, fmt.Errorf("server answered HTTP 200 with an error: %s", errorText(e))}
		}
		return &streamFault{model.ErrServer, fmt.Errorf("server failed mid-stream: %s", errorText(e))}
	}
	if ch.Model != "" {
		a.model = ch.Model
	}
	if ch.Usage != nil {
		a.usage = ch.Usage
	}
	for _, c := range ch.Choices {
		d := c.Delta
		if c.Message != nil {
			d = *c.Message
		}
		a.content.WriteString(d.Content)
		if d.ReasoningContent != "" {
			a.thinking.WriteString(d.ReasoningContent)
		} else {
			a.thinking.WriteString(d.Reasoning)
		}
		for _, dc := range d.ToolCalls {
			if err := a.addCall(dc); err != nil {
				return &streamFault{model.ErrProtocol, err}
			}
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			a.finish = *c.FinishReason
		}
	}
	return nil
}

// readWhole reads a non-streamed answer: one JSON document.
func (a *accumulator) readWhole(r io.Reader) error {
	a.whole = true
	body, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var ch wireChunk
	if err := json.Unmarshal(body, &ch); err != nil {
		return &streamFault{model.ErrProtocol, fmt.Errorf("malformed answer (not the API's JSON): %q", textclip.Bytes(a.clean(strings.TrimSpace(string(body))), maxBodyText))}
	}
	if err := a.chunk(ch); err != nil {
		return err
	}
	if len(ch.Choices) == 0 {
		return &streamFault{model.ErrProtocol, errors.New("answer without choices")}
	}
	a.events, a.done = 1, true
	return nil
}

// addCall merges one tool-call delta: by index; a delta whose id differs
// from the call at its index starts a new call (Ollama's /v1 numbers every
// call 0); without an index, by id; without either, into the last call.
// A name is taken once: later deltas that repeat it, or send "" (LM
// Studio), change nothing.
func (a *accumulator) addCall(d wireDeltaCall) error {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int]*callAcc{}, map[string]*callAcc{}
	}
	var c *callAcc
	switch {
	case d.ID != "" && a.byID[d.ID] != nil:
		c = a.byID[d.ID]
	case d.Index != nil && a.byIndex[*d.Index] != nil && (d.ID == "" || a.byIndex[*d.Index].id == ""):
		c = a.byIndex[*d.Index]
	case d.Index == nil && d.ID == "" && len(a.calls) > 0:
		c = a.calls[len(a.calls)-1]
	}
	if c == nil {
		c = &callAcc{}
		a.calls = append(a.calls, c)
	}
	if d.Index != nil {
		a.byIndex[*d.Index] = c
	}
	if d.ID != "" && c.id == "" {
		c.id = d.ID
		a.byID[d.ID] = c
	}
	if d.Function.Name != "" && c.name == "" {
		c.name = d.Function.Name
	}
	args := bytes.TrimSpace(d.Function.Arguments)
	switch {
	case len(args) == 0 || string(args) == "null":
	case args[0] == '"':
		var s string
		if err := json.Unmarshal(args, &s); err != nil {
			return fmt.Errorf("tool call %d (%s): arguments are a malformed JSON string: %w", len(a.calls)-1, textclip.Bytes(a.clean(c.name), 64), err)
		}
		c.args.WriteString(s)
	case args[0] == '{':
		c.object = append(json.RawMessage(nil), args...)
	default:
		return fmt.Errorf("tool call %d (%s): arguments are neither a JSON string nor an object: %q", len(a.calls)-1, textclip.Bytes(a.clean(c.name), 64), textclip.Bytes(a.clean(string(args)), 60))
	}
	return nil
}

// toolCalls returns the assembled calls; each must have a name and
// arguments that are one JSON object (empty means {}).
func (a *accumulator) toolCalls() ([]model.ToolCall, error) {
	if len(a.calls) == 0 {
		return nil, nil
	}
	out := make([]model.ToolCall, 0, len(a.calls))
	for i, c := range a.calls {
		if strings.TrimSpace(c.name) == "" {
			return nil, fmt.Errorf("tool call %d has no function name", i)
		}
		args := c.object
		if args == nil {
			args = bytes.TrimSpace([]byte(c.args.String()))
			if len(args) == 0 {
				args = []byte("{}")
			}
		}
		if args[0] != '{' || !json.Valid(args) {
			return nil, fmt.Errorf("tool call %d (%s) sent arguments that are not a JSON object: %q", i, textclip.Bytes(c.name, 64), textclip.Bytes(a.clean(string(args)), 60))
		}
		out = append(out, model.ToolCall{ID: c.id, Name: c.name, Arguments: args})
	}
	return out, nil
}

package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/superbiz/superbiz/pkg/model"
)

// messagesToAPI converts the conversation, keeping tool-call IDs, tool names
// and tool-call IDs of tool results exactly.
func messagesToAPI(msgs []model.Message) ([]api.Message, error) {
	out := make([]api.Message, 0, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool:
		default:
			return nil, fmt.Errorf("message %d has role %q: want system, user, assistant or tool", i, m.Role)
		}
		am := api.Message{
			Role:       string(m.Role),
			Content:    m.Content,
			Thinking:   m.Thinking,
			ToolName:   m.ToolName,
			ToolCallID: m.ToolCallID,
		}
		for j, tc := range m.ToolCalls {
			args, err := ArgumentsToAPI(tc.Arguments)
			if err != nil {
				return nil, fmt.Errorf("message %d tool call %d (%s): %w", i, j, tc.Name, err)
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{
				ID:       tc.ID,
				Function: api.ToolCallFunction{Index: j, Name: tc.Name, Arguments: args},
			})
		}
		out = append(out, am)
	}
	return out, nil
}

// toolsToAPI declares the tools; each Parameters schema is decoded into
// Ollama's typed schema (type, properties, required, items, $defs, and per
// property type, description, enum, items, anyOf, properties). Other
// keywords (minimum, pattern, ...) have no place in Ollama's tool type and
// are dropped by the client, so limits belong in descriptions.
func toolsToAPI(tools []model.Tool) (api.Tools, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make(api.Tools, 0, len(tools))
	for i, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tool %d has no name", i)
		}
		params := api.ToolFunctionParameters{Type: "object"}
		if len(bytes.TrimSpace(t.Parameters)) > 0 {
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, fmt.Errorf("tool %s: parameters are not a JSON Schema object: %w", t.Name, err)
			}
			if params.Type != "object" {
				return nil, fmt.Errorf("tool %s: parameters schema has type %q, want \"object\"", t.Name, params.Type)
			}
		}
		if params.Properties == nil {
			params.Properties = api.NewToolPropertiesMap()
		}
		out = append(out, api.Tool{
			Type:     "function",
			Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	return out, nil
}

// formatToAPI checks the output schema ("json" or a JSON Schema object).
func formatToAPI(f json.RawMessage) (json.RawMessage, error) {
	f = bytes.TrimSpace(f)
	if !json.Valid(f) {
		return nil, errors.New("format is not valid JSON: want \"json\" or a JSON Schema object")
	}
	if f[0] != '{' && string(f) != `"json"` {
		return nil, fmt.Errorf("format %.40s is neither \"json\" nor a JSON Schema object", f)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f); err != nil {
		return nil, fmt.Errorf("compact format: %w", err)
	}
	return buf.Bytes(), nil
}

// ArgumentsToAPI decodes a tool call's raw JSON object into Ollama's ordered
// arguments (top-level member order kept; empty means {}). Exported for the
// fuzz target's round trip and for tests that build histories.
func ArgumentsToAPI(raw json.RawMessage) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return args, nil
	}
	if raw[0] != '{' || !json.Valid(raw) {
		return args, fmt.Errorf("arguments are not a JSON object: %.60q", raw)
	}
	if err := args.UnmarshalJSON(raw); err != nil {
		return args, fmt.Errorf("decode arguments: %w", err)
	}
	return args, nil
}

// ArgumentsFromAPI encodes Ollama's arguments back to a JSON object. Top-level
// members keep the model's order; numbers stay numbers (the client decoded
// them as float64, so integers are exact up to 2^53); nested objects were
// decoded by the client into Go maps, so their members come out sorted.
func ArgumentsFromAPI(args api.ToolCallFunctionArguments) (json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode tool call arguments: %w", err)
	}
	if string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	return b, nil
}

// toolCallsFromAPI converts the accumulated calls and assigns IDs by
// model.AssignToolCallIDs.
func toolCallsFromAPI(calls []api.ToolCall, history []model.Message) ([]model.ToolCall, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	out := make([]model.ToolCall, 0, len(calls))
	for i, c := range calls {
		args, err := ArgumentsFromAPI(c.Function.Arguments)
		if err != nil {
			return nil, fmt.Errorf("tool call %d (%s): %w", i, c.Function.Name, err)
		}
		out = append(out, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
	}
	model.AssignToolCallIDs(out, history)
	return out, nil
}

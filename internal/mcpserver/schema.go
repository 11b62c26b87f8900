package mcpserver

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/superbiz/superbiz/internal/schema"
	"github.com/superbiz/superbiz/internal/usecase"
)

// diagnoseOutputSchema is the schema of diagnose's structured result: the
// Output `superbiz diagnose -o json` prints, from the same Go struct.
var diagnoseOutputSchema = sync.OnceValue(func() json.RawMessage { return schema.Of(usecase.Output{}) })

// nullableSchema lets every object and array member below the top be null,
// as Go encodes a nil pointer or slice (a FALLBACK has no result, a run
// without error has error null), so a client that validates the structured
// result against the schema accepts what the server sends. Each such member
// becomes {"anyOf": [its schema, {"type": "null"}]}, every branch with a
// single type: a "type" array is legal JSON Schema but clients that map
// tool schemas onto a single-type dialect reject it (the MCP Inspector's
// --strict check warns about it).
func nullableSchema(raw json.RawMessage) json.RawMessage {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		panic(fmt.Sprintf("mcp server: output schema: %v", err))
	}
	walkNullable(root, true)
	out, err := json.Marshal(root)
	if err != nil {
		panic(fmt.Sprintf("mcp server: output schema: %v", err))
	}
	return out
}

func walkNullable(node map[string]any, top bool) {
	if props, ok := node["properties"].(map[string]any); ok {
		for _, p := range props {
			if m, ok := p.(map[string]any); ok {
				walkNullable(m, false)
			}
		}
	}
	if items, ok := node["items"].(map[string]any); ok {
		walkNullable(items, false)
	}
	if t, ok := node["type"].(string); ok && !top && (t == "object" || t == "array") {
		branch := make(map[string]any, len(node))
		for k, v := range node {
			branch[k] = v
			delete(node, k)
		}
		node["anyOf"] = []any{branch, map[string]any{"type": "null"}}
	}
}

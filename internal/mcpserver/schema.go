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
// result against the schema accepts what the server sends.
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
	if t, ok := node["type"].(string); ok && !top && (t == "object" || t == "array") {
		node["type"] = []any{t, "null"}
	}
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
}

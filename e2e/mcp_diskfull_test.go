package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/superbiz/superbiz/internal/reliability"
)

// A run store whose disk fills up while `superbiz mcp` serves tool calls:
// each call that cannot be stored is an isError result saying the store is
// full (never an internal error, never an unaudited success), and a server
// whose store cannot even open says so on stderr and ends. At least one
// size must reach a call that fills the disk, or the test proves nothing.
func TestMCPToolCallDiskFull(t *testing.T) {
	t.Parallel()
	const fullText = "is full (no space left on its disk)"
	var mu sync.Mutex
	outcomes := map[string]string{}
	t.Run("sizes", func(t *testing.T) {
		for _, size := range []string{"64k", "200k", "300k", "400k", "600k", "900k"} {
			t.Run(size, func(t *testing.T) {
				t.Parallel()
				e, _ := tinyStore(t, size)
				outcome := mcpDiskFull(t, e, fullText)
				t.Logf("%s: %s", size, outcome)
				mu.Lock()
				outcomes[size] = outcome
				mu.Unlock()
				reliability.Record(t, reliability.SectionMutation, "disk full under superbiz mcp: "+size+" tmpfs", map[string]any{"test": t.Name(), "outcome": outcome})
			})
		}
	})
	if t.Failed() || t.Skipped() {
		return
	}
	for _, o := range outcomes {
		if o == "a tool call reported the store full" {
			return
		}
	}
	t.Errorf("no size filled the disk during a tool call: %v", outcomes)
}

// mcpDiskFull runs the demo MCP server on e and calls tools until one is
// refused for a full store; it returns what happened.
func mcpDiskFull(t *testing.T, e *env, fullText string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, stderr, err := connectMCP(e, nil, "--demo", "mcp")
	if err != nil {
		if !strings.Contains(stderr.String(), fullText) {
			t.Fatalf("the server did not start and did not say its store is full: %v\nstderr:\n%s", err, stderr)
		}
		return "the store could not open: reported full"
	}
	defer s.Close()
	calls := []struct{ name, args string }{
		{"lookup_knowledge", `{"query":"payment timeout","top_k":3}`},
		{"query_logs", `{"service":"payment-service","level":"ERROR","since":"1h"}`},
		{"query_mysql", `{"sql":"SELECT status, count(*) FROM orders GROUP BY status"}`},
	}
	for round := range 20 {
		for _, call := range calls {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: json.RawMessage(call.args)})
			if err != nil {
				if strings.Contains(stderr.String(), fullText) {
					return "the server ended: reported full"
				}
				t.Fatalf("round %d, %s: %v\nstderr:\n%s", round, call.name, err, stderr)
			}
			text := resultText(res)
			if strings.Contains(strings.ToLower(text), "internal") {
				t.Fatalf("round %d, %s: an internal error instead of a full store: %s", round, call.name, text)
			}
			if res.IsError {
				if !strings.Contains(text, fullText) {
					t.Fatalf("round %d, %s: isError without saying the store is full: %s", round, call.name, text)
				}
				return "a tool call reported the store full"
			}
			if res.StructuredContent == nil {
				t.Fatalf("round %d, %s: a success without an observation: %s", round, call.name, text)
			}
		}
	}
	return "fits"
}

package ollama

import (
	"context"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// BenchmarkChat measures one full streamed round over real HTTP against the
// test server: 200 content chunks, 20 thinking chunks and two tool calls,
// which bounds the adapter's per-round overhead (conversion, observation,
// accumulation) next to a real model's seconds.
func BenchmarkChat(b *testing.B) {
	s := ollamatest.NewServer()
	defer s.Close()
	content := make([]string, 200)
	for i := range content {
		content[i] = "word "
	}
	turn := ollamatest.Turn{
		Thinking: strings.Split(strings.Repeat("t ", 20), " ")[:20],
		Content:  content,
		ToolCalls: []ollamatest.ToolCall{
			{ID: "call_ab12cd34", Name: "query_logs", Args: `{"since":"15m","contains":"timeout","limit":20}`},
			{Name: "lookup_knowledge", Args: `{"query":"payment timeout","top_k":3}`},
		},
		PromptEvalCount: 1000, EvalCount: 200,
	}
	s.Handle(func(ollamatest.ChatRequest) ollamatest.Turn { return turn })
	c, err := New(Options{Host: s.URL(), Model: ollamatest.DefaultModel, NumCtx: 16384, RequestTimeout: 10e9})
	if err != nil {
		b.Fatal(err)
	}
	req := userReq("why are payments timing out?")
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Chat(context.Background(), req)
		if err != nil || len(resp.Message.ToolCalls) != 2 {
			b.Fatalf("Chat: %v %+v", err, resp)
		}
	}
}

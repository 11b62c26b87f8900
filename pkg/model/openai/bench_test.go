package openai_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/openaitest"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/model/openai"
)

// BenchmarkChat is the Ollama adapter's BenchmarkChat on this wire: one
// full streamed round over real HTTP, 200 content deltas, 20 reasoning
// deltas and two tool calls whose arguments come in pieces, so the two
// adapters' per-round overhead can be set side by side.
func BenchmarkChat(b *testing.B) {
	s := openaitest.NewServer()
	defer s.Close()
	content := make([]string, 200)
	for i := range content {
		content[i] = "word "
	}
	turn := openaitest.Turn{
		Thinking: strings.Split(strings.Repeat("t ", 20), " ")[:20],
		Content:  content,
		ToolCalls: []openaitest.ToolCall{
			{ID: "call_ab12cd34", Name: "query_logs", Args: `{"since":"15m","contains":"timeout","limit":20}`},
			{Name: "lookup_knowledge", Args: `{"query":"payment timeout","top_k":3}`},
		},
		PromptTokens: 1000, CompletionTokens: 200,
	}
	s.Handle(func(openaitest.ChatRequest) openaitest.Turn { return turn })
	c, err := openai.New(openai.Options{URL: s.URL(), Model: openaitest.DefaultModel, Stream: true, RequestTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "why are payments timing out?"}}, Tools: diagTools}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Chat(context.Background(), req)
		if err != nil || len(resp.Message.ToolCalls) != 2 {
			b.Fatalf("Chat: %v %+v", err, resp)
		}
	}
}

// BenchmarkEstimateManyCalls is an answer of 40,000 tool calls from a
// server that reports no usage: the estimate sums lengths (issue 27 #7; it
// concatenated every call's arguments, quadratic, 40 s for this answer).
func BenchmarkEstimateManyCalls(b *testing.B) {
	s := openaitest.NewServer(openaitest.WithQuirk(openaitest.QuirkNoUsage))
	defer s.Close()
	calls := make([]openaitest.ToolCall, 40000)
	for i := range calls {
		calls[i] = openaitest.ToolCall{ID: "call_" + strconv.Itoa(i), Name: "query_logs", Args: `{"since":"15m","contains":"timeout","limit":20}`}
	}
	s.Handle(func(openaitest.ChatRequest) openaitest.Turn { return openaitest.Turn{ToolCalls: calls} })
	c, err := openai.New(openai.Options{URL: s.URL(), Model: openaitest.DefaultModel, Stream: false, RequestTimeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "q"}}, Tools: diagTools}
	for b.Loop() {
		resp, err := c.Chat(context.Background(), req)
		if err != nil || len(resp.Message.ToolCalls) != len(calls) || !resp.Usage.Estimated {
			b.Fatalf("Chat: %v, %d calls", err, len(resp.Message.ToolCalls))
		}
	}
}

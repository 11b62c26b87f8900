package usecase

import (
	"context"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/release"
)

// BenchmarkChatKnowledgeQuery measures one whole KNOWLEDGE_QUERY message:
// session, stored run, router round, the real lookup on an indexed runbook
// directory, the answer round over the Ollama test server and the terminal
// record in SQLite.
func BenchmarkChatKnowledgeQuery(b *testing.B) {
	f := newChatFixture(b, providertest.Ollama, true)
	f.srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
		if systemPrompt(req) == RouterPrompt("en", knowledgeQ) {
			return route("KNOWLEDGE_QUERY")
		}
		return answerFromLookup(req)
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := f.deps.Chat(ctx, ChatRequest{Query: knowledgeQ})
		if err != nil || out.ReleaseOutcome != "SUCCESS" {
			b.Fatalf("%+v %v", out, err)
		}
	}
}

// BenchmarkParseKnowledgeAnswer measures the strict parse and reference
// check of a six-item answer.
func BenchmarkParseKnowledgeAnswer(b *testing.B) {
	item := `{"text":"Find the slow query with SHOW PROCESSLIST, kill it, and only then raise maximumPoolSize.","tool_call_id":"call_1","doc_ids":["a","b"]}`
	s := `{"items":[` + item + `,` + item + `,` + item + `,` + item + `,` + item + `,` + item + `],"limitations":["No sizing advice."]}`
	returned := map[string]bool{"a": true, "b": true}
	b.ReportAllocs()
	for b.Loop() {
		a, err := ParseKnowledgeAnswer(s)
		if err != nil {
			b.Fatal(err)
		}
		if err := release.CheckKnowledgeReferences(a, "call_1", returned); err != nil {
			b.Fatal(err)
		}
	}
}

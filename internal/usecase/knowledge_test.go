package usecase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/goldenfile"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/release"
	"github.com/superbiz/superbiz/pkg/runrecord"
)

// lookupIn decodes the knowledge answer request's input.
func lookupIn(req ollamatest.ChatRequest) (query, callID string, docIDs []string, err error) {
	var in struct {
		Query       string `json:"query"`
		Observation struct {
			ToolCallID string `json:"tool_call_id"`
			Result     struct {
				Documents []struct {
					DocID string `json:"doc_id"`
				} `json:"documents"`
			} `json:"result"`
		} `json:"observation"`
	}
	for _, m := range req.Messages {
		if m.Role == "user" {
			err = json.Unmarshal([]byte(m.Content), &in)
		}
	}
	for _, d := range in.Observation.Result.Documents {
		docIDs = append(docIDs, d.DocID)
	}
	return in.Query, in.Observation.ToolCallID, docIDs, err
}

// answerFromLookup is a knowledge answer model that cites the lookup it was
// shown (its Tool Call ID and first document), as a faithful model does.
func answerFromLookup(req ollamatest.ChatRequest) ollamatest.Turn {
	_, id, docs, err := lookupIn(req)
	if err != nil || len(docs) == 0 {
		return ollamatest.Turn{Fault: ollamatest.FaultBadRequest, ErrorMessage: fmt.Sprintf("not a knowledge answer request (%v)", err)}
	}
	return text(fmt.Sprintf(`{"items":[{"text":"The runbook says the pool is exhausted (see %s).","tool_call_id":%q,"doc_ids":[%q]}],"limitations":["The runbooks do not cover this service's pool size."]}`, id, id, docs[0]))
}

const knowledgeQ = "what does HikariPool connection is not available mean?"

func TestKnowledgeSupportedAnswer(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("KNOWLEDGE_QUERY"))
		f.srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
			_, id, docs, err := lookupIn(req)
			if err != nil || id != "call_1" || len(docs) < 2 {
				t.Errorf("answer request: id %q, docs %q, %v", id, docs, err)
			}
			return text(fmt.Sprintf(`{"items":[`+
				`{"text":"HikariPool connection is not available means every pooled connection is busy and requests time out after 30000ms.","tool_call_id":"call_1","doc_ids":[%q]},`+
				`{"text":"Find the slow query with SHOW PROCESSLIST, kill it, and only then raise maximumPoolSize.","tool_call_id":"call_1","doc_ids":[%q,%q]}],`+
				`"limitations":["The runbooks do not give a recommended pool size."]}`, docs[0], docs[1], docs[0]))
		})
		out := f.chat(ChatRequest{Query: knowledgeQ})
		if out.Intent != "KNOWLEDGE_QUERY" || out.Status != "SUCCESS" || out.ReleaseOutcome != "SUCCESS" || out.StopReason != "COMPLETED" {
			t.Fatalf("output = %+v", out)
		}
		r := f.run(out.RunID)
		wantRun(t, r, "KNOWLEDGE_QUERY", "SUCCESS", "SUCCESS", "COMPLETED")
		if len(r.Invocations) != 1 {
			t.Fatalf("%d invocations, want exactly one lookup", len(r.Invocations))
		}
		inv := r.Invocations[0]
		if inv.Tool != "lookup_knowledge" || inv.ToolCallID != "call_1" || inv.EvidenceStatus != "EVIDENCE_FOUND" || inv.Kind != "EVIDENCE" {
			t.Errorf("invocation = %+v", inv)
		}
		reqs := f.srv.ChatRequests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want router + one answer", len(reqs))
		}
		ans := reqs[1]
		if len(ans.Tools) != 0 || !bytes.Equal(ans.Format, KnowledgeAnswerSchema()) {
			t.Errorf("answer request: %d tools, format %s", len(ans.Tools), ans.Format)
		}
		wantUser := `{"query":` + string(mustJSON(knowledgeQ)) + `,"observation":` + string(inv.Observation) + `}`
		if got := userMessage(t, ans); got != wantUser {
			t.Errorf("answer input =\n%s\nwant the query and the recorded observation exactly:\n%s", got, wantUser)
		}
		if !strings.Contains(systemPrompt(ans), string(KnowledgeAnswerSchema())) {
			t.Error("the answer prompt does not carry the schema")
		}
		if got := purposes(r); !slices.Equal(got, []string{"ROUTER", "KNOWLEDGE_ANSWER"}) {
			t.Errorf("model rounds = %q", got)
		}
		if len(out.Checks) != 1 || out.Checks[0].Tool != "lookup_knowledge" || out.Checks[0].EvidenceStatus != "EVIDENCE_FOUND" {
			t.Errorf("checks = %+v", out.Checks)
		}
		if regexp.MustCompile(`call_[a-z0-9]+`).MatchString(out.Answer) || strings.Contains(r.Answer, "call_1") {
			t.Errorf("the public answer shows a Tool Call ID:\n%s", out.Answer)
		}
		if len(r.GuardReviews) != 1 || r.GuardReviews[0].Guard != "KNOWLEDGE" || r.GuardReviews[0].Verdict != "PASS" {
			t.Errorf("guard reviews = %+v, want one KNOWLEDGE PASS", r.GuardReviews)
		}
		goldenfile.Check(t, "knowledge_answer.golden", []byte(out.Answer))
	})
}

func TestKnowledgeFabricatedReferenceFailsClosed(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := map[string]func(id string, docs []string) string{
			"another call ID": func(_ string, docs []string) string {
				return fmt.Sprintf(`{"items":[{"text":"Pool exhausted.","tool_call_id":"call_ab12cd34","doc_ids":[%q]}],"limitations":[]}`, docs[0])
			},
			"unknown doc_id": func(id string, _ []string) string {
				return fmt.Sprintf(`{"items":[{"text":"Pool exhausted.","tool_call_id":%q,"doc_ids":["runbooks/made-up.md#invented"]}],"limitations":[]}`, id)
			},
			"one good item and one bad": func(id string, docs []string) string {
				return fmt.Sprintf(`{"items":[{"text":"Pool exhausted.","tool_call_id":%q,"doc_ids":[%q]},{"text":"Restart the database.","tool_call_id":%q,"doc_ids":[%q,"nope"]}],"limitations":[]}`, id, docs[0], id, docs[0])
			},
		}
		for name, answer := range cases {
			t.Run(name, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				f.srv.Script(route("KNOWLEDGE_QUERY"))
				f.srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
					_, id, docs, _ := lookupIn(req)
					return text(answer(id, docs))
				})
				out := f.chat(ChatRequest{Query: knowledgeQ})
				if out.Status != "FAILED" || out.ReleaseOutcome != "FAILED" || out.StopReason != "GUARD_REJECTED" {
					t.Fatalf("output = %+v", out)
				}
				if strings.Contains(out.Answer, "Pool exhausted") || strings.Contains(out.Answer, "call_") {
					t.Errorf("a rejected answer was published:\n%s", out.Answer)
				}
				if f.srv.ChatCount() != 2 {
					t.Errorf("%d requests: a rejected answer is not retried", f.srv.ChatCount())
				}
				r := f.run(out.RunID)
				wantRun(t, r, "KNOWLEDGE_QUERY", "FAILED", "FAILED", "GUARD_REJECTED")
				if len(r.GuardReviews) != 1 || r.GuardReviews[0].Guard != "KNOWLEDGE" || r.GuardReviews[0].Verdict != "REJECT" || !strings.Contains(string(r.GuardReviews[0].Reasons), "items[") {
					t.Errorf("guard reviews = %+v, want the KNOWLEDGE rejection with its reason", r.GuardReviews)
				}
			})
		}
	})
}

func TestKnowledgeInvalidAnswerFailsClosed(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("KNOWLEDGE_QUERY"), text(`Sure! The pool is exhausted.`))
		out := f.chat(ChatRequest{Query: knowledgeQ})
		wantRun(t, f.run(out.RunID), "KNOWLEDGE_QUERY", "FAILED", "FAILED", "INVALID_OUTPUT")
		if strings.Contains(out.Answer, "Sure!") || f.srv.ChatCount() != 2 {
			t.Errorf("answer %q after %d requests", out.Answer, f.srv.ChatCount())
		}
	})
}

func TestKnowledgeNoEvidenceSkipsAnswerCall(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("KNOWLEDGE_QUERY"))
		out := f.chat(ChatRequest{Query: "zebra quokka"})
		if f.srv.ChatCount() != 1 {
			t.Fatalf("%d model requests, want the router's only", f.srv.ChatCount())
		}
		if out.Status != "SUCCESS" || out.ReleaseOutcome != "FALLBACK" || out.StopReason != "NO_CONCLUSION" || !strings.HasPrefix(out.Answer, "## No matching runbook\n") {
			t.Errorf("output = %+v", out)
		}
		r := f.run(out.RunID)
		wantRun(t, r, "KNOWLEDGE_QUERY", "SUCCESS", "FALLBACK", "NO_CONCLUSION")
		if len(r.Invocations) != 1 || r.Invocations[0].EvidenceStatus != "NO_EVIDENCE" {
			t.Errorf("invocations = %+v", r.Invocations)
		}
		if got := purposes(r); !slices.Equal(got, []string{"ROUTER"}) {
			t.Errorf("model rounds = %q", got)
		}
	})
}

func TestKnowledgeWithoutTool(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, false)
		f.srv.Script(route("KNOWLEDGE_QUERY"))
		out := f.chat(ChatRequest{Query: knowledgeQ})
		if out.Status != "FAILED" || out.Error == nil || !strings.Contains(out.Error.Message, "knowledge.paths") {
			t.Errorf("output = %+v", out)
		}
		if f.srv.ChatCount() != 1 || len(f.run(out.RunID).Invocations) != 0 {
			t.Error("a knowledge query without lookup_knowledge called the model or a tool")
		}
	})
}

func TestKnowledgeQueryTooLongForLookup(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("KNOWLEDGE_QUERY"))
		out := f.chat(ChatRequest{Query: strings.Repeat("pool ", 120)})
		wantRun(t, f.run(out.RunID), "KNOWLEDGE_QUERY", "FAILED", "FAILED", "INPUT_REJECTED")
		if out.Error == nil || !strings.Contains(out.Error.Message, "512 bytes") || f.srv.ChatCount() != 1 {
			t.Errorf("error = %+v after %d requests", out.Error, f.srv.ChatCount())
		}
	})
}

func TestParseKnowledgeAnswer(t *testing.T) {
	good := `{"items":[{"text":"x","tool_call_id":"call_1","doc_ids":["a"]}],"limitations":[]}`
	if a, err := ParseKnowledgeAnswer(good); err != nil || len(a.Items) != 1 || a.Items[0].DocIDs[0] != "a" || a.Limitations == nil {
		t.Errorf("ParseKnowledgeAnswer(good) = %+v, %v", a, err)
	}
	item := `{"text":"x","tool_call_id":"call_1","doc_ids":["a"]}`
	bad := map[string]string{
		"prose":            "Here: " + good,
		"fence":            "```json\n" + good + "\n```",
		"trailing":         good + " {}",
		"no items":         `{"items":[],"limitations":[]}`,
		"missing limits":   `{"items":[` + item + `]}`,
		"unknown member":   `{"items":[` + item + `],"limitations":[],"sources":[]}`,
		"unknown in item":  `{"items":[{"text":"x","tool_call_id":"call_1","doc_ids":["a"],"score":1}],"limitations":[]}`,
		"duplicate member": `{"items":[` + item + `],"items":[],"limitations":[]}`,
		"wrong case":       `{"Items":[` + item + `],"limitations":[]}`,
		"blank text":       `{"items":[{"text":"  ","tool_call_id":"call_1","doc_ids":["a"]}],"limitations":[]}`,
		"no doc_ids":       `{"items":[{"text":"x","tool_call_id":"call_1","doc_ids":[]}],"limitations":[]}`,
		"missing call id":  `{"items":[{"text":"x","doc_ids":["a"]}],"limitations":[]}`,
		"number text":      `{"items":[{"text":1,"tool_call_id":"call_1","doc_ids":["a"]}],"limitations":[]}`,
		"too many items":   `{"items":[` + strings.TrimSuffix(strings.Repeat(item+",", 7), ",") + `],"limitations":[]}`,
		"long text":        `{"items":[{"text":"` + strings.Repeat("x", 1001) + `","tool_call_id":"call_1","doc_ids":["a"]}],"limitations":[]}`,
		"too many limits":  `{"items":[` + item + `],"limitations":["a","b","c","d"]}`,
		"blank limitation": `{"items":[` + item + `],"limitations":[""]}`,
		"null":             `null`,
		"invalid utf-8":    "{\"items\":[{\"text\":\"\xff\",\"tool_call_id\":\"call_1\",\"doc_ids\":[\"a\"]}],\"limitations\":[]}",
	}
	for name, in := range bad {
		if _, err := ParseKnowledgeAnswer(in); !errors.Is(err, ErrInvalidKnowledgeAnswer) {
			t.Errorf("%s: err = %v, want ErrInvalidKnowledgeAnswer", name, err)
		}
	}
}

func FuzzParseKnowledgeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"items":[{"text":"x","tool_call_id":"call_1","doc_ids":["a"]}],"limitations":[]}`,
		`{"items":[],"limitations":[]}`,
		`{"items":[{"text":"x","tool_call_id":"call_1","doc_ids":["a"],"z":1}],"limitations":["l"]}`,
		"prose",
	} {
		f.Add(s)
	}
	lookup := harness.Invocation{Tool: "lookup_knowledge", ToolCallID: "call_1",
		Observation: json.RawMessage(`{"result":{"documents":[{"doc_id":"a","title":"T [x]","source":"runbooks/a b.md"}]}}`)}
	chat := release.ChatFor("en", "")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseKnowledgeAnswer(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidKnowledgeAnswer) {
				t.Fatalf("unexpected error type: %v", err)
			}
			return
		}
		if len(a.Items) < 1 || len(a.Items) > maxKnowledgeItems || len(a.Limitations) > maxKnowledgeLimitations {
			t.Fatalf("accepted out-of-bounds answer %+v", a)
		}
		dec := chat.Knowledge(a, lookup)
		if dec.Outcome != runrecord.OutcomeSuccess {
			return
		}
		md := dec.Answer
		if strings.Contains(md, "call_1") {
			t.Fatalf("rendered answer shows the lookup's Tool Call ID: %q", md)
		}
		if len(md) > maxKnowledgeItems*(maxKnowledgeItemBytes+600)+maxKnowledgeLimitations*(maxLimitationBytes+8)+64 {
			t.Fatalf("rendered answer of %d bytes is unbounded", len(md))
		}
	})
}

func TestKnowledgeAnswerRequestLanguages(t *testing.T) {
	obs := json.RawMessage(`{"tool_call_id":"call_1","tool":"lookup_knowledge","evidence_status":"EVIDENCE_FOUND","result":{"documents":[]}}`)
	for _, tc := range []struct{ query, prefix string }{
		{"what is HikariPool?", "You are superbiz's runbook assistant"},
		{"连接池耗尽是什么意思？", "你是 superbiz 的运维手册助手"},
	} {
		req, err := KnowledgeAnswerRequest("auto", tc.query, obs)
		if err != nil {
			t.Fatal(err)
		}
		sys := req.Messages[0].Content
		if !strings.HasPrefix(sys, tc.prefix) || strings.Contains(sys, "{{SCHEMA}}") || !strings.Contains(sys, string(KnowledgeAnswerSchema())) {
			t.Errorf("%s: system prompt %.80q… lacks the language or the schema", tc.query, sys)
		}
		if want := `{"query":` + string(mustJSON(tc.query)) + `,"observation":` + string(obs) + `}`; req.Messages[1].Content != want || len(req.Tools) != 0 {
			t.Errorf("user message = %s, want %s", req.Messages[1].Content, want)
		}
	}
}

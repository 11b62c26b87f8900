package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/internal/notfound"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
	"github.com/superbiz/superbiz/pkg/tools/knowledge"
	"github.com/superbiz/superbiz/prompts"
)

// testRunbooks are the team runbooks the chat tests index for real.
var testRunbooks = map[string]string{
	"mysql-connection-pool.md": "# MySQL connection pool\n\n## Symptoms\n\nHikariPool-1 - Connection is not available, request timed out after 30000ms. Requests pile up and the gateway returns 504.\n\n## Remediation\n\nFind the slow query that holds connections with SHOW PROCESSLIST and kill it; raise maximumPoolSize only after that.\n",
	"redis-timeout.md":         "# Redis timeout\n\n## Symptoms\n\nRedisCommandTimeoutException: Command timed out after 2 second(s) in the cart service.\n\n## Remediation\n\nCheck SLOWLOG GET for blocking commands such as KEYS.\n",
}

// chatFixture is a real run store, a real knowledge index over runbooks
// written to disk, a protocol-faithful test server of one provider and that
// provider's real adapter: the use case runs exactly as cmd wires it.
type chatFixture struct {
	t      testing.TB
	srv    *providertest.Server
	store  *runstore.Store
	deps   *Deps
	events *harness.Collector
}

func newChatFixture(t testing.TB, p providertest.Provider, withKnowledge bool) *chatFixture {
	t.Helper()
	dir := t.TempDir()
	store, tables := openStore(t, filepath.Join(dir, "superbiz.db"))
	var adapters []tools.Adapter
	if withKnowledge {
		rb := filepath.Join(dir, "runbooks")
		if err := os.MkdirAll(rb, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range testRunbooks {
			if err := os.WriteFile(filepath.Join(rb, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		adapters = append(adapters, knowledge.New(knowledge.NewIndex(tables, []string{rb})))
	}
	reg, err := harness.NewToolset(adapters, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.Start(t, p)
	m := srv.Client()
	var mu sync.Mutex
	n := map[string]int{}
	f := &chatFixture{t: t, srv: srv, store: store, events: &harness.Collector{}}
	f.deps = &Deps{
		Store: store, Model: m, ModelName: providertest.Model, Host: srv.URL(), Provider: string(p), Tools: reg,
		Budget: harness.DefaultBudget(), Limits: agent.DefaultLimits(), Language: "en",
		Clock:  harness.FixedClock{T: time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)},
		Events: f.events,
		NewID: func(prefix string) string {
			mu.Lock()
			defer mu.Unlock()
			n[prefix]++
			return fmt.Sprintf("%s%d", prefix, n[prefix])
		},
	}
	return f
}

// chat sends one message and fails the test on an error outside the run.
func (f *chatFixture) chat(req ChatRequest) ChatOutput {
	f.t.Helper()
	out, err := f.deps.Chat(context.Background(), req)
	if err != nil {
		f.t.Fatalf("Chat(%q): %v", req.Query, err)
	}
	return out
}

// run loads a stored run in full.
func (f *chatFixture) run(id string) *runstore.RunDetail {
	f.t.Helper()
	r, err := f.store.GetRun(context.Background(), id)
	if err != nil {
		f.t.Fatalf("GetRun(%s): %v", id, err)
	}
	return r
}

// purposes lists the stored model rounds' purposes in order.
func purposes(r *runstore.RunDetail) []string {
	out := []string{}
	for _, m := range r.ModelRounds {
		out = append(out, string(m.Purpose))
	}
	return out
}

// wantRun checks a stored run's terminal record.
func wantRun(t *testing.T, r *runstore.RunDetail, intent, status, outcome, stop string) {
	t.Helper()
	got := []string{r.Intent, string(r.Status), string(r.ReleaseOutcome), string(r.StopReason)}
	want := []string{intent, status, outcome, stop}
	if !slices.Equal(got, want) {
		t.Errorf("stored run (intent, status, release_outcome, stop_reason) = %q, want %q", got, want)
	}
}

// userMessage is the single user message of a recorded request.
func userMessage(t *testing.T, req ollamatest.ChatRequest) string {
	t.Helper()
	var users []string
	for _, m := range req.Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if len(users) != 1 {
		t.Fatalf("request has %d user messages, want 1: %+v", len(users), req.Messages)
	}
	return users[0]
}

// systemPrompt is the first (system) message of a recorded request.
func systemPrompt(req ollamatest.ChatRequest) string {
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" {
		return ""
	}
	return req.Messages[0].Content
}

// route is a scripted router answer.
func route(intent string) ollamatest.Turn {
	return ollamatest.Turn{Content: []string{`{"intent":`, fmt.Sprintf("%q}", intent)}, PromptEvalCount: 50, EvalCount: 5}
}

func text(s string) ollamatest.Turn {
	return ollamatest.Turn{Content: []string{s}, PromptEvalCount: 80, EvalCount: 30}
}

const emptyDraft = `{"conclusion":null,"analysis":[],"action_plan":[],"recommendations":[],"limitations":{"scope":"nothing was checked","missing_info":["the affected service","the time of the first error"]}}`

// recObserver records what the use case told it, in order.
type recObserver struct {
	mu        sync.Mutex
	events    []string
	sessionID string
	runID     string
	cancel    func()
	onStart   func(sessionID, runID string)
}

func (o *recObserver) Started(sessionID, runID string, cancel func()) {
	o.mu.Lock()
	o.events = append(o.events, "START")
	o.sessionID, o.runID, o.cancel = sessionID, runID, cancel
	o.mu.Unlock()
	if o.onStart != nil {
		o.onStart(sessionID, runID)
	}
}

func (o *recObserver) Status(code StatusCode) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, string(code))
}

func (o *recObserver) Cancel() {
	o.mu.Lock()
	c := o.cancel
	o.mu.Unlock()
	c()
}

func TestChatSystemChatRun(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("SYSTEM_CHAT"), text("Hi! I diagnose production incidents from evidence.\x1b[31m"))
		obs := &recObserver{}
		obs.onStart = func(sessionID, runID string) {
			r := f.run(runID)
			if r.Status != runrecord.RunStatusRunning || r.SessionID != sessionID || r.Intent != "" {
				t.Errorf("at Started the stored run is %s/%s/%q, want RUNNING in session %s with no intent yet", r.Status, r.SessionID, r.Intent, sessionID)
			}
		}
		out := f.chat(ChatRequest{Query: "hi, what can you do?", Observer: obs, OnStart: obs.Started})

		if out.Intent != "SYSTEM_CHAT" || out.Status != "SUCCESS" || out.ReleaseOutcome != "SUCCESS" || out.StopReason != "COMPLETED" {
			t.Fatalf("output = %+v", out)
		}
		if out.Answer != "Hi! I diagnose production incidents from evidence.\n" {
			t.Errorf("answer = %q (control sequences must be stripped)", out.Answer)
		}
		if obs.sessionID != out.SessionID || obs.runID != out.RunID {
			t.Errorf("observer got %s/%s, output %s/%s", obs.sessionID, obs.runID, out.SessionID, out.RunID)
		}
		want := []string{"START", "ROUTING", "ROUTED_SYSTEM_CHAT", "EXECUTING", "DONE"}
		if !slices.Equal(obs.events, want) {
			t.Errorf("observer events = %q, want %q", obs.events, want)
		}
		reqs := f.srv.ChatRequests()
		if len(reqs) != 2 {
			t.Fatalf("%d model requests, want router + one answer", len(reqs))
		}
		for i, r := range reqs {
			if len(r.Tools) != 0 {
				t.Errorf("request %d offered %d tools; SYSTEM_CHAT and the router use none", i, len(r.Tools))
			}
		}
		if systemPrompt(reqs[1]) != prompts.SystemChatEN || userMessage(t, reqs[1]) != "hi, what can you do?" {
			t.Errorf("system chat request = %+v", reqs[1].Messages)
		}
		r := f.run(out.RunID)
		wantRun(t, r, "SYSTEM_CHAT", "SUCCESS", "SUCCESS", "COMPLETED")
		if got := purposes(r); !slices.Equal(got, []string{"ROUTER", "SYSTEM_CHAT"}) {
			t.Errorf("model rounds = %q", got)
		}
		if len(r.Invocations) != 0 || len(r.GuardReviews) != 0 {
			t.Errorf("SYSTEM_CHAT ran %d tools and %d guards, want none", len(r.Invocations), len(r.GuardReviews))
		}
		if r.Lifecycle != "COMPLETED" || r.Usage.ModelCalls != 2 || r.Usage.PromptTokens != 130 {
			t.Errorf("lifecycle %s, usage %+v", r.Lifecycle, r.Usage)
		}
	})
}

func TestChatSystemChatEmptyAnswerFails(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, false)
		f.srv.Script(route("SYSTEM_CHAT"), text("  \n"))
		out := f.chat(ChatRequest{Query: "hello"})
		wantRun(t, f.run(out.RunID), "SYSTEM_CHAT", "FAILED", "FAILED", "INVALID_OUTPUT")
		if out.Error == nil || out.Error.Code != "INVALID_OUTPUT" {
			t.Errorf("error = %+v", out.Error)
		}
	})
}

func TestChatRejectsBadInputBeforeAnyModelCall(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		for name, q := range map[string]string{"empty": " \n\t", "too long": strings.Repeat("x", 4097)} {
			t.Run(name, func(t *testing.T) {
				f := newChatFixture(t, prov, false)
				out := f.chat(ChatRequest{Query: q})
				if f.srv.ChatCount() != 0 {
					t.Errorf("%d model requests for a rejected message", f.srv.ChatCount())
				}
				wantRun(t, f.run(out.RunID), "", "FAILED", "FAILED", "INPUT_REJECTED")
				if out.Error == nil || !strings.Contains(out.Error.Message, "message") {
					t.Errorf("error = %+v, want one naming the message", out.Error)
				}
			})
		}
	})
}

func TestChatSessions(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, false)
		f.srv.Script(route("SYSTEM_CHAT"), text("hello"), route("SYSTEM_CHAT"), text("hello again"))
		first := f.chat(ChatRequest{Query: "hi"})
		second := f.chat(ChatRequest{Query: "hi again", SessionID: first.SessionID})
		if first.SessionID == "" || second.SessionID != first.SessionID || second.RunID == first.RunID {
			t.Errorf("runs %s/%s and %s/%s: want one session, two runs", first.SessionID, first.RunID, second.SessionID, second.RunID)
		}
		sess, err := f.store.GetSession(context.Background(), first.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if sess.LastIntent != "SYSTEM_CHAT" || sess.LastQuery != "hi again" {
			t.Errorf("session memory = %q/%q", sess.LastIntent, sess.LastQuery)
		}
		_, err = f.deps.Chat(context.Background(), ChatRequest{Query: "hi", SessionID: "s_missing"})
		if nf := (*notfound.Error)(nil); !errors.As(err, &nf) || nf.Kind != "session" {
			t.Errorf("unknown session: err = %v, want a notfound.Error of kind session", err)
		}
	})
}

// TestChatCancelDuringExecutor cancels through the observer while the
// executor's model call is in flight: the answer that arrives anyway cannot
// complete the run.
func TestChatCancelDuringExecutor(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := []struct {
			name, intent, query string
			purposes            []string
			invocations         int
		}{
			{"system chat", "SYSTEM_CHAT", "hello", []string{"ROUTER", "SYSTEM_CHAT"}, 0},
			{"knowledge answer", "KNOWLEDGE_QUERY", "HikariPool connection is not available", []string{"ROUTER", "KNOWLEDGE_ANSWER"}, 1},
			{"diagnosis", "DIAGNOSIS", "order-service 504s since 14:00", []string{"ROUTER", "DIAGNOSIS"}, 0},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				obs := &recObserver{}
				f.srv.Script(route(tc.intent))
				f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
					obs.Cancel()
					return ollamatest.Turn{Content: []string{"late answer"}, ChunkDelay: 50 * time.Millisecond}
				})
				out := f.chat(ChatRequest{Query: tc.query, Observer: obs, OnStart: obs.Started})
				if out.Status != "CANCELLED" || out.ReleaseOutcome != "CANCELLED" || strings.Contains(out.Answer, "late answer") {
					t.Fatalf("output = %+v", out)
				}
				r := f.run(out.RunID)
				wantRun(t, r, tc.intent, "CANCELLED", "CANCELLED", "CANCELLED")
				if r.Lifecycle != "CANCELLED" || r.PublishedResult != nil {
					t.Errorf("lifecycle %s, published %s", r.Lifecycle, r.PublishedResult)
				}
				if got := purposes(r); !slices.Equal(got, tc.purposes) {
					t.Errorf("model rounds = %q, want %q", got, tc.purposes)
				}
				if len(r.Invocations) != tc.invocations {
					t.Errorf("%d invocations, want %d", len(r.Invocations), tc.invocations)
				}
				if last := obs.events[len(obs.events)-1]; last != "CANCELLED" {
					t.Errorf("last status %s, want CANCELLED", last)
				}
			})
		}
	})
}

// TestChatCancelAfterAnswerArrived cancels just after the executor's answer
// was received and recorded, before the run could take its terminal
// transition: the answer that is already in hand cannot complete the run.
func TestChatCancelAfterAnswerArrived(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		for _, intent := range []string{"SYSTEM_CHAT", "KNOWLEDGE_QUERY"} {
			t.Run(intent, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				obs := &recObserver{}
				f.deps.Events = harness.SinkFunc(func(ev harness.Event) {
					if e, ok := ev.(harness.ModelRoundFinished); ok && e.Purpose != runrecord.PurposeRouter && e.Response != nil {
						obs.Cancel()
					}
				})
				f.srv.Script(route(intent))
				f.srv.Handle(func(req ollamatest.ChatRequest) ollamatest.Turn {
					if intent == "SYSTEM_CHAT" {
						return text("a late but complete answer")
					}
					return answerFromLookup(req)
				})
				out := f.chat(ChatRequest{Query: knowledgeQ, Observer: obs, OnStart: obs.Started})
				if out.Status != "CANCELLED" || strings.Contains(out.Answer, "late") || strings.Contains(out.Answer, "pool is exhausted") {
					t.Fatalf("output = %+v", out)
				}
				r := f.run(out.RunID)
				wantRun(t, r, intent, "CANCELLED", "CANCELLED", "CANCELLED")
				if len(r.ModelRounds) != 2 || r.ModelRounds[1].Response == nil {
					t.Errorf("the executor's answer should be recorded in the audit: %+v", r.ModelRounds)
				}
			})
		}
	})
}

// poolDiagnosis answers the agent with a draft citing call_ab12cd34 (a
// lookup_knowledge call) and the release verifier with SUPPORTED; any other
// request fails the test.
func poolDiagnosis(t *testing.T) func(req ollamatest.ChatRequest) ollamatest.Turn {
	return func(req ollamatest.ChatRequest) ollamatest.Turn {
		switch {
		case strings.HasPrefix(systemPrompt(req), "You are superbiz's release verifier"):
			return text(`{"verdict":"SUPPORTED","reasons":[]}`)
		case strings.HasPrefix(systemPrompt(req), "You are superbiz's diagnosis agent"):
			return text(`{"conclusion":{"summary":"pool exhausted","root_cause":"the runbook's pool exhaustion pattern","confidence":"LOW"},"analysis":[{"type":"FINDING","claim":"the runbook describes HikariPool connection is not available as pool exhaustion","scope":"runbooks","tool_call_ids":["call_ab12cd34"]}],"action_plan":[{"priority":"P1","step":"run SHOW PROCESSLIST","risk":"LOW"}],"recommendations":[],"limitations":{"scope":"runbooks only","missing_info":["order-service logs"]}}`)
		}
		t.Errorf("unexpected request: %s", systemPrompt(req))
		return ollamatest.Turn{Fault: ollamatest.FaultBadRequest}
	}
}

// TestChatDiagnosisGetsPreviousTurn runs a released diagnosis, then a
// follow-up in the same chat: the agent receives the original query and the
// bounded PreviousTurn, and the draft publishes only after release.
func TestChatDiagnosisGetsPreviousTurn(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		q1 := "order-service payment 504s, HikariPool connection is not available"
		f.srv.Script(route("DIAGNOSIS"),
			ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_ab12cd34", Name: "lookup_knowledge", Args: `{"input":{"query":"HikariPool connection is not available"}}`}}},
		)
		f.srv.Handle(poolDiagnosis(t))
		first := f.chat(ChatRequest{Query: q1})
		if first.Intent != "DIAGNOSIS" || first.ReleaseOutcome != "SUCCESS" || first.Result == nil {
			t.Fatalf("first diagnosis = %+v", first)
		}
		r1 := f.run(first.RunID)
		if got := purposes(r1); !slices.Equal(got, []string{"ROUTER", "DIAGNOSIS", "DIAGNOSIS", "SEMANTIC_GUARD"}) {
			t.Errorf("first run rounds = %q", got)
		}
		if len(r1.GuardReviews) != 2 {
			t.Errorf("%d guard reviews, want evidence + semantic", len(r1.GuardReviews))
		}

		n := f.srv.ChatCount()
		q2 := "and what should we check next?"
		f.srv.Script(route("DIAGNOSIS"), text(emptyDraft))
		second := f.chat(ChatRequest{Query: q2, SessionID: first.SessionID})
		if second.Intent != "DIAGNOSIS" || second.ReleaseOutcome != "FALLBACK" || second.Status != "SUCCESS" {
			t.Fatalf("second diagnosis = %+v", second)
		}
		reqs := f.srv.ChatRequests()[n:]
		if len(reqs) != 2 {
			t.Fatalf("%d requests for the follow-up, want router + agent", len(reqs))
		}
		var routerIn map[string]any
		if err := json.Unmarshal([]byte(userMessage(t, reqs[0])), &routerIn); err != nil {
			t.Fatal(err)
		}
		if routerIn["query"] != q2 || routerIn["last_intent"] != "DIAGNOSIS" || routerIn["last_query"] != q1 {
			t.Errorf("router input = %v", routerIn)
		}
		var agentIn struct {
			Query        string              `json:"query"`
			PreviousTurn *agent.PreviousTurn `json:"previous_turn"`
		}
		if err := json.Unmarshal([]byte(userMessage(t, reqs[1])), &agentIn); err != nil {
			t.Fatal(err)
		}
		if agentIn.Query != q2 {
			t.Errorf("agent query = %q, want the message unchanged", agentIn.Query)
		}
		if agentIn.PreviousTurn == nil || agentIn.PreviousTurn.Query != q1 || agentIn.PreviousTurn.Conclusion == nil || agentIn.PreviousTurn.Conclusion.Summary != "pool exhausted" {
			t.Errorf("previous turn = %+v", agentIn.PreviousTurn)
		}
		if len(reqs[1].Tools) == 0 {
			t.Error("the diagnosis agent was offered no tools")
		}
		r2 := f.run(second.RunID)
		wantRun(t, r2, "DIAGNOSIS", "SUCCESS", "FALLBACK", "NO_CONCLUSION")
		if r2.PublishedResult != nil {
			t.Errorf("a fallback stored a published result: %s", r2.PublishedResult)
		}
	})
}

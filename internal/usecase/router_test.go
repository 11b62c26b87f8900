package usecase

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/prompts"
)

// TestRouterDispatchesEachIntent checks that each routed intent runs
// exactly its executor, judged by what the model server received, and that
// the query reaches the router, the lookup and the agent unchanged.
func TestRouterDispatchesEachIntent(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		const q = `HikariPool "connection is not available" <order-service> & 504s`
		cases := []struct {
			intent   string
			executor []ollamatest.Turn
			purposes []string
			tools    []string // tool of each stored invocation
		}{
			{"SYSTEM_CHAT", []ollamatest.Turn{text("I am superbiz.")}, []string{"ROUTER", "SYSTEM_CHAT"}, nil},
			{"KNOWLEDGE_QUERY", nil, []string{"ROUTER", "KNOWLEDGE_ANSWER"}, []string{"lookup_knowledge"}},
			{"DIAGNOSIS", []ollamatest.Turn{text(emptyDraft)}, []string{"ROUTER", "DIAGNOSIS"}, nil},
		}
		for _, tc := range cases {
			t.Run(tc.intent, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				f.srv.Script(append([]ollamatest.Turn{route(tc.intent)}, tc.executor...)...)
				f.srv.Handle(answerFromLookup) // the knowledge answer, echoing the lookup's IDs
				out := f.chat(ChatRequest{Query: q})
				if out.Intent != tc.intent || out.Status != "SUCCESS" {
					t.Fatalf("output = %+v", out)
				}
				reqs := f.srv.ChatRequests()
				if len(reqs) != len(tc.purposes) {
					t.Fatalf("%d model requests, want %d", len(reqs), len(tc.purposes))
				}
				if got := userMessage(t, reqs[0]); got != `{"query":`+string(mustJSON(q))+`,"last_intent":null,"last_query":null}` {
					t.Errorf("router input = %s", got)
				}
				if systemPrompt(reqs[0]) != prompts.RouterEN || len(reqs[0].Tools) != 0 || !bytes.Equal(reqs[0].Format, RouterSchema()) {
					t.Errorf("router request: %d tools, format %s", len(reqs[0].Tools), reqs[0].Format)
				}
				exec := reqs[1]
				switch tc.intent {
				case "SYSTEM_CHAT":
					if systemPrompt(exec) != prompts.SystemChatEN || userMessage(t, exec) != q || len(exec.Tools) != 0 {
						t.Errorf("system chat request = %+v", exec)
					}
				case "KNOWLEDGE_QUERY":
					if !strings.HasPrefix(systemPrompt(exec), "You are superbiz's runbook assistant") || len(exec.Tools) != 0 {
						t.Errorf("knowledge answer request = %+v", exec)
					}
				case "DIAGNOSIS":
					if !strings.HasPrefix(systemPrompt(exec), "You are superbiz's diagnosis agent") || len(exec.Tools) == 0 {
						t.Errorf("diagnosis request: %d tools", len(exec.Tools))
					}
					var in map[string]any
					if err := json.Unmarshal([]byte(userMessage(t, exec)), &in); err != nil || in["query"] != q {
						t.Errorf("agent input = %v (%v)", in, err)
					}
				}
				r := f.run(out.RunID)
				if got := purposes(r); !slices.Equal(got, tc.purposes) {
					t.Errorf("stored rounds = %q, want %q", got, tc.purposes)
				}
				var gotTools []string
				for _, inv := range r.Invocations {
					gotTools = append(gotTools, inv.Tool)
					if string(inv.Input) != `{"query":`+string(mustJSON(q))+`,"top_k":5}` {
						t.Errorf("lookup input = %s, want the query unchanged", inv.Input)
					}
				}
				if !slices.Equal(gotTools, tc.tools) {
					t.Errorf("invocations = %q, want %q", gotTools, tc.tools)
				}
				if r.Intent != tc.intent || r.Query != q {
					t.Errorf("stored run intent %q query %q", r.Intent, r.Query)
				}
			})
		}
	})
}

func mustJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestRouterRetriesOnceWithIdenticalInput: a first failure of each
// retryable kind is followed by exactly one identical request, and the
// valid second route is executed.
func TestRouterRetriesOnceWithIdenticalInput(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := map[string]ollamatest.Turn{
			"unknown intent":  text(`{"intent":"WEATHER"}`),
			"prose":           text(`I think this is SYSTEM_CHAT.`),
			"fenced":          text("```json\n{\"intent\":\"SYSTEM_CHAT\"}\n```"),
			"extra member":    text(`{"intent":"SYSTEM_CHAT","confidence":0.9}`),
			"wrong case":      text(`{"Intent":"SYSTEM_CHAT"}`),
			"lower-case enum": text(`{"intent":"system_chat"}`),
			"http 500":        {Fault: ollamatest.FaultHTTP500Body},
			"cut mid-stream":  {Content: []string{`{"int`}, Fault: ollamatest.FaultCutMidStream},
		}
		for name, first := range cases {
			t.Run(name, func(t *testing.T) {
				f := newChatFixture(t, prov, false)
				obs := &recObserver{}
				f.srv.Script(first, route("SYSTEM_CHAT"), text("hello"))
				out := f.chat(ChatRequest{Query: "hello there", Observer: obs, OnStart: obs.Started})
				if out.Intent != "SYSTEM_CHAT" || out.Status != "SUCCESS" {
					t.Fatalf("output = %+v", out)
				}
				// The retry's input is identical; only its output bound is
				// lower, by what the first attempt spent of the token budget.
				bodies, bounds := f.srv.ChatBodiesUnbounded(), f.srv.OutputBounds()
				if len(bodies) != 3 {
					t.Fatalf("%d requests, want 2 router + 1 answer", len(bodies))
				}
				if !bytes.Equal(bodies[0], bodies[1]) {
					t.Errorf("retry differs from the first attempt:\n%s\n%s", bodies[0], bodies[1])
				}
				if bounds[1] <= 0 || bounds[1] > bounds[0] {
					t.Errorf("output bounds %v: the retry's is not what remains after the first attempt", bounds)
				}
				if got := purposes(f.run(out.RunID)); !slices.Equal(got, []string{"ROUTER", "ROUTER", "SYSTEM_CHAT"}) {
					t.Errorf("stored rounds = %q", got)
				}
				want := []string{"START", "ROUTING", "ROUTING_RETRY", "ROUTED_SYSTEM_CHAT", "EXECUTING", "DONE"}
				if !slices.Equal(obs.events, want) {
					t.Errorf("observer events = %q", obs.events)
				}
			})
		}
	})
}

// TestRouterSecondFailureRunsNoExecutor: two failed attempts end the run
// FAILED with ROUTING_UNAVAILABLE and no executor request.
func TestRouterSecondFailureRunsNoExecutor(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := []struct {
			name        string
			turns       []ollamatest.Turn
			msgContains string
		}{
			{"two invalid outputs", []ollamatest.Turn{text(`{"intent":"WEATHER"}`), text(`{"intent":null}`)}, "no valid intent"},
			{"two server errors", []ollamatest.Turn{{Fault: ollamatest.FaultHTTP500Body}, {Fault: ollamatest.FaultHTTP500Empty}}, "SERVER"},
			{"invalid then timeout-like cut", []ollamatest.Turn{text(`nope`), {Fault: ollamatest.FaultCutMidStream}}, "PROTOCOL"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newChatFixture(t, prov, true)
				obs := &recObserver{}
				f.srv.Script(tc.turns...)
				out := f.chat(ChatRequest{Query: "payment timeouts since 14:00", Observer: obs, OnStart: obs.Started})
				if out.Intent != "" || out.Status != "FAILED" || out.ReleaseOutcome != "FAILED" || out.StopReason != "ROUTING_UNAVAILABLE" {
					t.Fatalf("output = %+v", out)
				}
				if out.Error == nil || out.Error.Code != "ROUTING_UNAVAILABLE" || !strings.Contains(out.Error.Message, tc.msgContains) {
					t.Errorf("error = %+v, want a message containing %q", out.Error, tc.msgContains)
				}
				if strings.Contains(out.Answer, "WEATHER") {
					t.Errorf("the answer quotes the model's invalid output: %s", out.Answer)
				}
				bodies, bounds := f.srv.ChatBodiesUnbounded(), f.srv.OutputBounds()
				if len(bodies) != 2 || !bytes.Equal(bodies[0], bodies[1]) {
					t.Fatalf("%d requests (identical but for the output bound: %v), want exactly two identical router requests", len(bodies), len(bodies) == 2 && bytes.Equal(bodies[0], bodies[1]))
				}
				if bounds[1] <= 0 || bounds[1] > bounds[0] {
					t.Errorf("output bounds %v: the retry's is not what remains after the first attempt", bounds)
				}
				r := f.run(out.RunID)
				wantRun(t, r, "", "FAILED", "FAILED", "ROUTING_UNAVAILABLE")
				if got := purposes(r); !slices.Equal(got, []string{"ROUTER", "ROUTER"}) {
					t.Errorf("stored rounds = %q", got)
				}
				if len(r.Invocations) != 0 || r.Lifecycle != "FAILED" {
					t.Errorf("%d invocations, lifecycle %s", len(r.Invocations), r.Lifecycle)
				}
				if slices.ContainsFunc(obs.events, func(e string) bool { return strings.HasPrefix(e, "ROUTED_") || e == "EXECUTING" }) {
					t.Errorf("observer saw an executor start: %q", obs.events)
				}
				sess, err := f.store.GetSession(t.Context(), out.SessionID)
				if err != nil || sess.LastIntent != "" {
					t.Errorf("an unrouted message became the session's last intent: %+v %v", sess, err)
				}
			})
		}
	})
}

// TestRouterNoRetryOnRefusedRequest: a request the server refuses would be
// refused again, so it is not retried.
func TestRouterNoRetryOnRefusedRequest(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, false)
		f.srv.Script(ollamatest.Turn{Fault: ollamatest.FaultModelNotFound})
		out := f.chat(ChatRequest{Query: "hello"})
		if f.srv.ChatCount() != 1 {
			t.Errorf("%d requests, want 1", f.srv.ChatCount())
		}
		wantRun(t, f.run(out.RunID), "", "FAILED", "FAILED", "MODEL_UNAVAILABLE")
		if out.Error == nil || !strings.Contains(out.Error.Message, "MODEL_NOT_FOUND") {
			t.Errorf("error = %+v", out.Error)
		}
	})
}

// TestRouterNewTopicKeepsQuery: with a previous turn in the session the
// router still gets the new message unchanged; the previous intent and
// query are separate context members, and the new topic is executed.
func TestRouterNewTopicKeepsQuery(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		f.srv.Script(route("DIAGNOSIS"), text(emptyDraft), route("KNOWLEDGE_QUERY"))
		f.srv.Handle(answerFromLookup)
		first := f.chat(ChatRequest{Query: "order-service 504s since 14:00"})
		q2 := "Unrelated: what does RedisCommandTimeoutException mean?"
		second := f.chat(ChatRequest{Query: q2, SessionID: first.SessionID})
		if second.Intent != "KNOWLEDGE_QUERY" || second.Status != "SUCCESS" {
			t.Fatalf("second = %+v", second)
		}
		reqs := f.srv.ChatRequests()
		if len(reqs) != 4 {
			t.Fatalf("%d requests, want 4", len(reqs))
		}
		want := `{"query":"Unrelated: what does RedisCommandTimeoutException mean?","last_intent":"DIAGNOSIS","last_query":"order-service 504s since 14:00"}`
		if got := userMessage(t, reqs[2]); got != want {
			t.Errorf("router input =\n%s\nwant\n%s", got, want)
		}
		r := f.run(second.RunID)
		if len(r.Invocations) != 1 || string(r.Invocations[0].Input) != `{"query":"Unrelated: what does RedisCommandTimeoutException mean?","top_k":5}` {
			t.Errorf("the lookup did not get the new query unchanged: %+v", r.Invocations)
		}
		if strings.Contains(userMessage(t, reqs[3]), "order-service") {
			t.Error("the previous query leaked into the knowledge executor")
		}
	})
}

func TestRouterRequest(t *testing.T) {
	cases := []struct {
		name, query, lastIntent, lastQuery string
		limit                              int
		want                               string
	}{
		{"first turn", "hi", "", "", 4096, `{"query":"hi","last_intent":null,"last_query":null}`},
		{"follow-up", "and the logs?", "DIAGNOSIS", "504s at 14:00", 4096, `{"query":"and the logs?","last_intent":"DIAGNOSIS","last_query":"504s at 14:00"}`},
		{"unknown last intent is null", "hi", "WEATHER", "x", 4096, `{"query":"hi","last_intent":null,"last_query":null}`},
		{"html and unicode unchanged", "a<b & \"c\" 支付超时", "SYSTEM_CHAT", "", 4096, `{"query":"a<b & \"c\" 支付超时","last_intent":"SYSTEM_CHAT","last_query":null}`},
		{"long last query bounded", "q", "KNOWLEDGE_QUERY", strings.Repeat("a", 20), 10, `{"query":"q","last_intent":"KNOWLEDGE_QUERY","last_query":"aaaaaaa…"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := RouterRequest("auto", tc.query, tc.lastIntent, tc.lastQuery, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Messages) != 2 || req.Messages[1].Content != tc.want || len(req.Tools) != 0 {
				t.Errorf("request = %+v\nwant user %s", req, tc.want)
			}
		})
	}
	zh, _ := RouterRequest("auto", "支付超时", "", "", 4096)
	if zh.Messages[0].Content != prompts.RouterZH {
		t.Error("a Chinese query did not get the Chinese router prompt")
	}
}

func TestParseRoute(t *testing.T) {
	valid := map[string]string{
		`{"intent":"SYSTEM_CHAT"}`:       "SYSTEM_CHAT",
		" {\"intent\": \"DIAGNOSIS\"}\n": "DIAGNOSIS",
		`{"intent":"KNOWLEDGE_QUERY"}`:   "KNOWLEDGE_QUERY",
	}
	for in, want := range valid {
		got, err := ParseRoute(in)
		if err != nil || got != want {
			t.Errorf("ParseRoute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	invalid := []string{
		``, `null`, `[]`, `{}`, `{"intent":""}`, `{"intent":"WEATHER"}`, `{"intent":1}`,
		`{"intent":"DIAGNOSIS","x":1}`, `{"intent":"DIAGNOSIS","intent":"SYSTEM_CHAT"}`,
		`{"INTENT":"DIAGNOSIS"}`, `{"intent":"DIAGNOSIS"} {}`, "```json\n{\"intent\":\"DIAGNOSIS\"}\n```",
		`DIAGNOSIS`, "{\"intent\":\"DIAGNOSIS\xff\"}", `{"intent":"DIAGNOSIS"` + strings.Repeat(" ", 2000) + `}`,
	}
	for _, in := range invalid {
		if got, err := ParseRoute(in); err == nil || !errors.Is(err, ErrInvalidRoute) {
			t.Errorf("ParseRoute(%q) = %q, %v; want ErrInvalidRoute", in, got, err)
		}
	}
}

func FuzzParseRoute(f *testing.F) {
	for _, s := range []string{`{"intent":"SYSTEM_CHAT"}`, `{"intent":"WEATHER"}`, `{"intent":"DIAGNOSIS","x":1}`, `{}`, "prose"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseRoute(s)
		if err != nil {
			if got != "" || !errors.Is(err, ErrInvalidRoute) {
				t.Fatalf("ParseRoute(%q) = %q, %v", s, got, err)
			}
			return
		}
		if !slices.Contains([]string{"SYSTEM_CHAT", "KNOWLEDGE_QUERY", "DIAGNOSIS"}, got) {
			t.Fatalf("ParseRoute(%q) accepted intent %q", s, got)
		}
		// A valid answer re-parses to the same intent.
		again, err := ParseRoute(`{"intent":"` + got + `"}`)
		if err != nil || again != got {
			t.Fatalf("round trip of %q: %q, %v", got, again, err)
		}
	})
}

package agent

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

func budget(fn func(*harness.Budget)) opt { return func(b *harness.Budget, _ *Limits) { fn(b) } }

// TestEvidenceThenDraft: tool evidence then a draft in one invocation; two
// rounds, two model calls; the cited IDs are kept exactly.
func TestEvidenceThenDraft(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_ab12cd34", "query_logs", "found pool")), textTurn(conclusionDraft("call_ab12cd34")))
		res := f.run("payment timeouts on order-service since 14:00")
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s (%v)", res.StopReason, res.Err)
		}
		if got := res.Draft.Analysis[0].ToolCallIDs; len(got) != 1 || got[0] != "call_ab12cd34" {
			t.Fatalf("cited IDs = %v", got)
		}
		if f.srv.ChatCount() != 2 || f.rc.Usage().ModelCalls != 2 || len(f.rec.rounds) != 2 {
			t.Fatalf("chat requests %d, model calls %d, recorded rounds %d; want 2 each", f.srv.ChatCount(), f.rc.Usage().ModelCalls, len(f.rec.rounds))
		}
		reqs := f.srv.ChatRequests()
		first := reqs[0]
		if len(first.Messages) != 2 || first.Messages[0].Role != "system" || first.Messages[1].Role != "user" {
			t.Fatalf("first request messages = %+v", first.Messages)
		}
		if len(first.Tools) != 2 || len(first.Format) != 0 {
			t.Fatalf("first request: %d tools, format %q", len(first.Tools), first.Format)
		}
		tm := toolMessages(reqs[1])
		if len(tm) != 1 || tm[0].ToolCallID != "call_ab12cd34" || tm[0].ToolName != "query_logs" {
			t.Fatalf("tool messages = %+v", tm)
		}
		obs := obsOf(t, tm[0].Content)
		if obs["evidence_status"] != "EVIDENCE_FOUND" || obs["tool_call_id"] != "call_ab12cd34" {
			t.Fatalf("observation = %v", obs)
		}
		if f.rc.Usage().ToolCalls != 1 || f.rc.Usage().PromptTokens != 220 {
			t.Fatalf("usage = %+v", f.rc.Usage())
		}
	})
}

// TestFailureIsNotRetried: an agent error or invalid output fails closed with
// no second model call.
func TestFailureIsNotRetried(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		for name, turn := range map[string]ollamatest.Turn{
			"server error":   {Fault: ollamatest.FaultHTTP500Body},
			"cut stream":     {Content: []string{"{"}, Fault: ollamatest.FaultCutMidStream},
			"invalid output": textTurn("I think the database is slow."),
		} {
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, p)
				f.srv.Script(turn, textTurn(conclusionDraft("call_x")))
				res := f.run("why is checkout slow")
				if res.Draft != nil {
					t.Fatalf("got a draft, want none (reason %s)", res.StopReason)
				}
				if f.srv.ChatCount() != 1 {
					t.Fatalf("chat requests = %d, want 1 (no retry)", f.srv.ChatCount())
				}
			})
		}
	})
}

// TestPreviousTurnInput: a PreviousTurn reaches the model as exactly the
// frozen fields plus the query.
func TestPreviousTurnInput(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(textTurn(noConclusionDraft()))
		prev := &PreviousTurn{Query: "payment timeouts", Conclusion: &Conclusion{Summary: "pool exhausted", RootCause: "slow query", Confidence: "HIGH"},
			Scope: "logs 14:00-15:00", Limitations: Limitations{Scope: "order-service", MissingInfo: []string{}}, KnowledgeRefs: []tools.DocRef{{DocID: "en/mysql.md#pool", Title: "MySQL pool", Source: "en/mysql.md"}}}
		res := Run(f.rc, f.cfg, Input{Query: "is it fixed now?", PreviousTurn: prev})
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s: %v", res.StopReason, res.Err)
		}
		want := `{"query":"is it fixed now?","previous_turn":{"query":"payment timeouts","conclusion":{"summary":"pool exhausted","root_cause":"slow query","confidence":"HIGH"},"scope":"logs 14:00-15:00","limitations":{"scope":"order-service","missing_info":[]},"knowledge_refs":[{"doc_id":"en/mysql.md#pool","title":"MySQL pool","source":"en/mysql.md"}]}}`
		msgs := f.srv.ChatRequests()[0].Messages
		if len(msgs) != 2 || msgs[1].Content != want {
			t.Fatalf("user message =\n%s\nwant\n%s", msgs[1].Content, want)
		}
		// Without a previous turn the member is null, never absent.
		f2 := newFixture(t, p)
		f2.srv.Script(textTurn(noConclusionDraft()))
		f2.run("hello world")
		if got := f2.srv.ChatRequests()[0].Messages[1].Content; got != `{"query":"hello world","previous_turn":null}` {
			t.Fatalf("user message = %s", got)
		}
	})
}

// TestOversizeInputRejected: oversize input is rejected with zero requests to
// the server.
func TestOversizeInputRejected(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		cases := map[string]func(f *fixture) Result{
			"query": func(f *fixture) Result { return f.run(strings.Repeat("超时", 1000)) },
			"empty": func(f *fixture) Result { return f.run("   ") },
			"previous turn": func(f *fixture) Result {
				return Run(f.rc, f.cfg, Input{Query: "again?", PreviousTurn: &PreviousTurn{Query: strings.Repeat("q", 9000)}})
			},
		}
		for name, fn := range cases {
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, p)
				f.srv.Script(textTurn(noConclusionDraft()))
				res := fn(f)
				if res.Draft != nil || res.StopReason != runrecord.StopInputRejected {
					t.Fatalf("reason %s", res.StopReason)
				}
				if n := f.srv.RequestCount(); n != 0 {
					t.Fatalf("server received %d requests, want 0", n)
				}
			})
		}
	})
}

// TestModelBudget: a round beyond max_model_calls never reaches the server;
// the last call is the final no-tool round with the draft schema as format.
func TestModelBudget(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxModelCalls = 2 }))
		f.srv.Script(toolTurn(call("call_1", "query_logs", "none a")), toolTurn(call("call_2", "query_logs", "none b")), textTurn(noConclusionDraft()))
		res := f.run("checkout errors")
		if res.Snapshot == nil || res.StopReason != runrecord.StopModelBudget {
			t.Fatalf("reason %s (%v)", res.StopReason, res.Err)
		}
		if f.srv.ChatCount() != 2 {
			t.Fatalf("chat requests = %d, want 2", f.srv.ChatCount())
		}
		last := f.srv.ChatRequests()[1]
		if len(last.Tools) != 0 || len(last.Format) == 0 {
			t.Fatalf("final round: %d tools, format %q", len(last.Tools), last.Format)
		}
		if _, err := f.rc.BeforeModelCall(0); harness.ReasonOf(err) == "" {
			t.Fatalf("BeforeModelCall after the budget = %v, want a stop", err)
		}
		if res.Snapshot == nil || len(res.Snapshot.Checks) != 1 {
			t.Fatalf("snapshot = %+v", res.Snapshot)
		}
	})
}

// TestToolCallIDs: the server's Tool Call ID reaches the adapter and the
// canonical record unchanged; call_<n> is assigned when the server sends none.
func TestToolCallIDs(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_zx81qq07", "query_logs", "none a"), call("", "lookup_knowledge", "none b")), textTurn(noConclusionDraft("call_zx81qq07")))
		res := f.run("checkout errors")
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s: %v", res.StopReason, res.Err)
		}
		got := []string{f.logs.received()[0].ToolCallID, f.kb.received()[0].ToolCallID}
		if got[0] != "call_zx81qq07" || !strings.HasPrefix(got[1], "call_") || got[1] == got[0] {
			t.Fatalf("adapter IDs = %v", got)
		}
		if f.rec.invs[0].ToolCallID != got[0] || f.rec.invs[1].ToolCallID != got[1] {
			t.Fatalf("record IDs = %s %s, adapter %v", f.rec.invs[0].ToolCallID, f.rec.invs[1].ToolCallID, got)
		}
		if c := f.logs.received()[0]; c.RunID != "r_test" || c.SessionID != "s_test" || string(c.Input) != `{"q":"none a"}` {
			t.Fatalf("adapter call = %+v", c)
		}
		tm := toolMessages(f.srv.ChatRequests()[1])
		if tm[1].ToolCallID != got[1] {
			t.Fatalf("tool message ID %s, adapter %s", tm[1].ToolCallID, got[1])
		}
	})
}

// TestProgressProtocol: after a non-empty result the next call must name that
// exact call; missing or wrong evaluations get REPAIR_REQUIRED and the tool
// does not run.
func TestProgressProtocol(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(
			toolTurn(call("call_a", "query_logs", "found a")),
			toolTurn(call("call_b", "query_logs", "found b")),                      // missing
			toolTurn(call("call_c", "query_logs", "found c", "call_zz", "GAINED")), // wrong id
			toolTurn(call("call_d", "query_logs", "found d", "call_a", "GAINED")),  // right
			textTurn(conclusionDraft("call_a", "call_d")),
		)
		res := f.run("pool exhausted?")
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s: %v", res.StopReason, res.Err)
		}
		reqs := f.srv.ChatRequests()
		for i, want := range []string{"MISSING_PREVIOUS_OBSERVATION", "WRONG_PREVIOUS_OBSERVATION"} {
			tm := toolMessages(reqs[i+2])
			obs := obsOf(t, tm[len(tm)-1].Content)
			if obs["control"] != "REPAIR_REQUIRED" || obs["error_code"] != want || obs["expected_tool_call_id"] != "call_a" {
				t.Fatalf("observation %d = %v", i, obs)
			}
		}
		calls := f.logs.received()
		if len(calls) != 2 || calls[0].ToolCallID != "call_a" || calls[1].ToolCallID != "call_d" {
			t.Fatalf("adapter ran for %d calls: %+v", len(calls), calls)
		}
		invs := res.Invocations
		if last := invs[len(invs)-1]; last.Evaluated != "call_a" || last.Evaluation != "GAINED" {
			t.Fatalf("last invocation = %+v", last)
		}
		// A flat (un-enveloped) argument object is an invalid envelope.
		f2 := newFixture(t, p)
		f2.srv.Script(toolTurn(ollamatest.ToolCall{ID: "call_f", Name: "query_logs", Args: `{"q":"found"}`}), textTurn(noConclusionDraft()))
		f2.run("x")
		obs := obsOf(t, toolMessages(f2.srv.ChatRequests()[1])[0].Content)
		if obs["control"] != "REPAIR_REQUIRED" || obs["error_code"] != "INVALID_ENVELOPE" || len(f2.logs.received()) != 0 {
			t.Fatalf("flat args observation = %v", obs)
		}
	})
}

// TestAdapterError: an adapter error gives ERROR with a stable code, no retry,
// no raw text.
func TestAdapterError(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_e", "query_logs", "fail")), textTurn(noConclusionDraft()))
		res := f.run("x")
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s", res.StopReason)
		}
		content := toolMessages(f.srv.ChatRequests()[1])[0].Content
		obs := obsOf(t, content)
		if obs["evidence_status"] != "ERROR" || obs["error_code"] != "UNAVAILABLE" || len(obs) != 4 {
			t.Fatalf("observation = %v", obs)
		}
		if strings.Contains(content, "10.0.0.7") || strings.Contains(content, "hunter2") {
			t.Fatalf("raw error reached the model: %s", content)
		}
		if len(f.logs.received()) != 1 {
			t.Fatalf("adapter ran %d times", len(f.logs.received()))
		}
		if d := f.rec.invs[0].Detail; strings.Contains(d, "hunter2") || !strings.Contains(d, "10.0.0.7") {
			t.Fatalf("audit detail = %q (want redacted, kept for audit)", d)
		}
	})
}

// TestUnknownTool: an unknown tool gets no record and is not emulated.
func TestUnknownTool(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_u", "delete_everything", "found")), textTurn(noConclusionDraft()))
		res := f.run("x")
		if res.Draft == nil {
			t.Fatalf("no draft: reason %s", res.StopReason)
		}
		if len(f.rec.invs) != 0 || len(res.Invocations) != 0 || f.rc.Usage().ToolCalls != 0 {
			t.Fatalf("records %d, invocations %d, tool calls %d; want none", len(f.rec.invs), len(res.Invocations), f.rc.Usage().ToolCalls)
		}
	})
}

// TestWrappedDraftFails: a fenced or prose-wrapped draft fails strictly, the
// model is not called again, and with no checks there is no snapshot.
func TestWrappedDraftFails(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		for name, text := range map[string]string{
			"fenced": "```json\n" + noConclusionDraft() + "\n```",
			"prefix": "Here is the draft: " + noConclusionDraft(),
			"suffix": noConclusionDraft() + "\nHope this helps.",
		} {
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, p)
				f.srv.Script(textTurn(text), textTurn(noConclusionDraft()))
				res := f.run("x")
				if res.Draft != nil || res.StopReason != runrecord.StopInvalidOutput || res.Snapshot != nil {
					t.Fatalf("reason %s snapshot %v", res.StopReason, res.Snapshot)
				}
				if f.srv.ChatCount() != 1 {
					t.Fatalf("chat requests = %d", f.srv.ChatCount())
				}
			})
		}
	})
}

// TestSaturation: NO_GAIN saturation gives STOP_REQUIRED, the next round has
// no tools, and a no-conclusion draft ends the run without an equivalent
// retry.
func TestSaturation(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(
			toolTurn(call("call_1", "query_logs", "found a")),
			toolTurn(call("call_2", "query_logs", "found b", "call_1", "NO_GAIN")),
			toolTurn(call("call_3", "query_logs", "found c", "call_2", "NO_GAIN")),
			textTurn(noConclusionDraft()),
		)
		res := f.run("x")
		if res.Draft == nil || res.Draft.Conclusion != nil || res.StopReason != runrecord.StopSaturated {
			t.Fatalf("reason %s: %v", res.StopReason, res.Err)
		}
		reqs := f.srv.ChatRequests()
		obs := obsOf(t, toolMessages(reqs[3])[2].Content)
		if obs["control"] != "STOP_REQUIRED" || len(f.logs.received()) != 2 {
			t.Fatalf("third call observation %v, adapter ran %d times", obs, len(f.logs.received()))
		}
		if len(reqs[3].Tools) != 0 || len(reqs[3].Format) == 0 {
			t.Fatalf("final round has %d tools", len(reqs[3].Tools))
		}
		var stops int
		for _, ev := range f.events.Events() {
			if s, ok := ev.(harness.StopRequired); ok && s.Reason == runrecord.StopSaturated {
				stops++
			}
		}
		if stops != 1 {
			t.Fatalf("StopRequired events = %d", stops)
		}
	})
}

// Equivalent calls are answered DUPLICATE_CALL and not executed.
func TestDuplicateCall(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(
			toolTurn(call("call_1", "query_logs", "none a")),
			toolTurn(call("call_2", "query_logs", "none a")),
			textTurn(noConclusionDraft("call_1")),
		)
		if res := f.run("x"); res.Draft == nil {
			t.Fatalf("no draft: reason %s", res.StopReason)
		}
		obs := obsOf(t, toolMessages(f.srv.ChatRequests()[2])[1].Content)
		if obs["control"] != "DUPLICATE_CALL" || obs["original_tool_call_id"] != "call_1" || len(f.logs.received()) != 1 || f.rc.Usage().ToolCalls != 1 {
			t.Fatalf("observation %v, adapter ran %d", obs, len(f.logs.received()))
		}
	})
}

// TestNoToolsNoConclusion: zero tool calls and a no-conclusion draft with
// missing_info is accepted.
func TestNoToolsNoConclusion(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(textTurn(noConclusionDraft()))
		res := f.run("something is broken")
		if res.Draft == nil || res.Draft.Conclusion != nil || len(res.Draft.Limitations.MissingInfo) != 2 {
			t.Fatalf("result = %+v", res)
		}
	})
}

// TestAuditHookIDs: an injected audit hook sees the same session and run IDs
// for the model round and the tool call.
func TestAuditHookIDs(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_1", "query_logs", "none")), textTurn(noConclusionDraft()))
		f.run("x")
		var rounds, toolCalls int
		for _, ev := range f.events.Events() {
			m := ev.EventMeta()
			if m.SessionID != "s_test" || m.RunID != "r_test" {
				t.Fatalf("event %T has meta %+v", ev, m)
			}
			switch ev.(type) {
			case harness.ModelRoundFinished:
				rounds++
			case harness.ToolCallFinished:
				toolCalls++
			}
		}
		if rounds != 2 || toolCalls != 1 {
			t.Fatalf("rounds %d tool calls %d", rounds, toolCalls)
		}
	})
}

// TestIgnoresStop: a model that ignores STOP_REQUIRED ends in a controlled
// stop with the snapshot and no draft.
func TestIgnoresStop(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(
			toolTurn(call("call_1", "query_logs", "found a")),
			toolTurn(call("call_2", "query_logs", "found b", "call_1", "NO_GAIN")),
			toolTurn(call("call_3", "query_logs", "found c", "call_2", "NO_GAIN")),
			toolTurn(call("call_4", "query_logs", "found d")),
		)
		res := f.run("x")
		if res.Snapshot == nil || res.StopReason != runrecord.StopSaturated || res.Draft != nil {
			t.Fatalf("reason %s", res.StopReason)
		}
		s := res.Snapshot
		if s == nil || len(s.Checks) != 2 || s.EvidenceFound != 2 || s.NoGain != 2 || s.StopReason != runrecord.StopSaturated {
			t.Fatalf("snapshot = %+v", s)
		}
		if raw, _ := json.Marshal(s); strings.Contains(string(raw), "matched") {
			t.Fatalf("snapshot holds raw results: %s", raw)
		}
		if lc, _ := f.rc.State(); lc != runrecord.Completed {
			t.Fatalf("lifecycle = %s", lc)
		}
	})
}

// TestUnrelatedFailureNoSnapshot: an unrelated failure fails closed with no
// snapshot invented.
func TestUnrelatedFailureNoSnapshot(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_1", "query_logs", "found a")), ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body})
		res := f.run("x")
		if res.Draft != nil || res.Snapshot != nil || res.StopReason != runrecord.StopModelUnavailable {
			t.Fatalf("reason %s snapshot %v", res.StopReason, res.Snapshot)
		}
	})
}

// TestInvalidDraftAfterChecks: an invalid draft after READY checks is
// discarded and the failure carries only the bounded snapshot.
func TestInvalidDraftAfterChecks(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_1", "query_logs", "found a")), textTurn("Conclusion: the pool is exhausted"))
		res := f.run("x")
		if res.Draft != nil || res.StopReason != runrecord.StopInvalidOutput || res.DraftJSON != "" {
			t.Fatalf("result = %+v", res)
		}
		if res.Snapshot == nil || len(res.Snapshot.Checks) != 1 || res.Snapshot.Checks[0].Summary != "q=found a" {
			t.Fatalf("snapshot = %+v", res.Snapshot)
		}
	})
}

// TestCancellation: cancellation mid-round ends CANCELLED, and a late model
// answer cannot complete the run.
func TestCancellation(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		t.Run("mid round", func(t *testing.T) {
			f := newFixture(t, p)
			// The server cancels the run once the request has arrived and holds
			// the answer back for an hour: only a round that stops waiting when
			// the run is cancelled ends before the test's timeout.
			f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
				f.rc.Cancel()
				return ollamatest.Turn{Content: []string{noConclusionDraft()}, FirstByteDelay: time.Hour}
			})
			res := f.run("x")
			if res.StopReason != runrecord.StopCancelled {
				t.Fatalf("reason %s (%v)", res.StopReason, res.Err)
			}
			if lc, _ := f.rc.State(); lc != runrecord.Cancelled {
				t.Fatalf("lifecycle = %s", lc)
			}
		})
		t.Run("late answer", func(t *testing.T) {
			f := newFixture(t, p)
			// The server cancels the run while answering, then sends a valid draft.
			f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
				f.rc.Cancel()
				return textTurn(noConclusionDraft())
			})
			res := f.run("x")
			if res.StopReason != runrecord.StopCancelled || res.Draft != nil {
				t.Fatalf("reason %s draft %v", res.StopReason, res.Draft)
			}
			if f.rc.Terminate(runrecord.StopCompleted) {
				t.Fatal("a cancelled run accepted another terminal transition")
			}
		})
	})
}

// TestBudgetStops: deadline, token and byte budgets each end the run with
// their own reason.
func TestBudgetStops(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		t.Run("deadline", func(t *testing.T) {
			f := newFixture(t, p, budget(func(b *harness.Budget) { b.Deadline = 300 * time.Millisecond }))
			f.srv.Script(ollamatest.Turn{Content: []string{noConclusionDraft()}, FirstByteDelay: 3 * time.Second})
			res := f.run("x")
			if res.Snapshot == nil || res.StopReason != runrecord.StopDeadline {
				t.Fatalf("reason %s (%v)", res.StopReason, res.Err)
			}
			if lc, _ := f.rc.State(); lc != runrecord.DeadlineReached {
				t.Fatalf("lifecycle = %s", lc)
			}
		})
		t.Run("tokens", func(t *testing.T) {
			f := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxTokens = 100 }))
			f.srv.Script(toolTurn(call("call_1", "query_logs", "none")), textTurn(noConclusionDraft()))
			res := f.run("x")
			if res.Snapshot == nil || res.StopReason != runrecord.StopTokenBudget || f.srv.ChatCount() != 1 {
				t.Fatalf("reason %s, %d requests", res.StopReason, f.srv.ChatCount())
			}
		})
		t.Run("bytes", func(t *testing.T) {
			f := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxRunBytes = 1500 }))
			f.srv.Script(toolTurn(call("call_1", "query_logs", "big")), toolTurn(call("call_2", "query_logs", "none")))
			res := f.run("x")
			if res.Snapshot == nil || res.StopReason != runrecord.StopByteBudget {
				t.Fatalf("reason %s (%v)", res.StopReason, res.Err)
			}
			obs := obsOf(t, toolMessages(f.srv.ChatRequests()[1])[0].Content)
			if obs["control"] != "STOP_REQUIRED" {
				t.Fatalf("observation = %v", obs)
			}
			if inv := res.Invocations[0]; inv.Status != harness.StatusDiscarded {
				t.Fatalf("invocation status = %s", inv.Status)
			}
			// A draft after the byte stop keeps the stop reason for release.
			f2 := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxRunBytes = 1500 }))
			f2.srv.Script(toolTurn(call("call_1", "query_logs", "big")), textTurn(noConclusionDraft()))
			if res := f2.run("x"); res.Draft == nil || res.StopReason != runrecord.StopByteBudget {
				t.Fatalf("reason %s", res.StopReason)
			}
			// A draft that does not fit the remaining bytes ends the run too.
			f3 := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxRunBytes = 100 }))
			f3.srv.Script(textTurn(noConclusionDraft()))
			if res := f3.run("x"); res.Snapshot == nil || res.StopReason != runrecord.StopByteBudget {
				t.Fatalf("reason %s", res.StopReason)
			}
		})
		t.Run("tool budget", func(t *testing.T) {
			f := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxToolCalls = 1 }))
			f.srv.Script(toolTurn(call("call_1", "query_logs", "none a")), toolTurn(call("call_2", "query_logs", "none b")), textTurn(noConclusionDraft("call_1")))
			res := f.run("x")
			if res.Draft == nil || f.logs.received()[0].ToolCallID != "call_1" || len(f.logs.received()) != 1 {
				t.Fatalf("reason %s, adapter calls %d", res.StopReason, len(f.logs.received()))
			}
			if req := f.srv.ChatRequests()[2]; len(req.Tools) != 0 {
				t.Fatal("round after the tool budget offered tools")
			}
		})
	})
}

// Observations are bounded and redacted; an adapter's answer is whitelisted.
func TestObservationRedacted(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		f.srv.Script(toolTurn(call("call_1", "lookup_knowledge", "found password=hunter2 \x1b[31mred")), textTurn(noConclusionDraft()))
		f.run("x")
		content := toolMessages(f.srv.ChatRequests()[1])[0].Content
		if strings.Contains(content, "hunter2") || strings.Contains(content, "\x1b") || strings.Contains(content, `\u001b`) {
			t.Fatalf("observation not redacted: %s", content)
		}
		if inv := f.rec.invs[0]; string(inv.Observation) != content {
			t.Fatalf("record differs from what the model saw:\n%s\n%s", inv.Observation, content)
		}
		_ = tools.EvidenceFound
	})
}

// TestOutputBoundedByTokenBudget: each round's answer may be no longer than
// what remains of the token budget when it starts, on either provider's
// wire (num_predict, max_completion_tokens).
func TestOutputBoundedByTokenBudget(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p, budget(func(b *harness.Budget) { b.MaxTokens = 1000 }))
		f.srv.Script(toolTurn(call("call_1", "query_logs", "none a")), textTurn(noConclusionDraft("call_1")))
		if res := f.run("checkout errors"); res.Draft == nil {
			t.Fatalf("no draft: reason %s (%v)", res.StopReason, res.Err)
		}
		// The first round spent 100+20 tokens.
		if got := f.srv.OutputBounds(); !slices.Equal(got, []int{1000, 880}) {
			t.Fatalf("output bounds = %v, want [1000 880]", got)
		}
		for i, r := range f.rec.rounds {
			if want := []int{1000, 880}[i]; r.Request.MaxOutputTokens != want {
				t.Errorf("recorded round %d bound %d, want %d", i, r.Request.MaxOutputTokens, want)
			}
		}
	})
}

// TestCallsPerAnswerCapped: an answer of 200 calls runs at most
// harness.MaxCallsPerAnswer of them; the rest are one audited
// REPAIR_REQUIRED/TOO_MANY_CALLS step (the first call past the cap, its
// detail counting them all) and never reach the conversation (issue 27 #8:
// 80,000 calls were 80,000 audited steps).
func TestCallsPerAnswerCapped(t *testing.T) {
	providertest.Each(t, func(t *testing.T, p providertest.Provider) {
		f := newFixture(t, p)
		calls := make([]ollamatest.ToolCall, 200)
		for i := range calls {
			calls[i] = call(fmt.Sprintf("call_%d", i+1), "query_logs", fmt.Sprintf("none %d", i))
		}
		f.srv.Script(toolTurn(calls...), textTurn(noConclusionDraft()))
		if res := f.run("x"); res.Draft == nil {
			t.Fatalf("no draft: reason %s", res.StopReason)
		}
		invs := f.rec.invs
		if len(invs) != harness.MaxCallsPerAnswer+1 {
			t.Fatalf("%d audited steps, want %d", len(invs), harness.MaxCallsPerAnswer+1)
		}
		last := invs[len(invs)-1]
		wantID := fmt.Sprintf("call_%d", harness.MaxCallsPerAnswer+1)
		if last.ToolCallID != wantID || last.ErrorCode != harness.RepairTooMany || !strings.Contains(last.Detail, "168 calls") {
			t.Errorf("last step %+v: want %s refused as TOO_MANY_CALLS for 168 calls", last, wantID)
		}
		msgs := toolMessages(f.srv.ChatRequests()[1])
		if len(msgs) != harness.MaxCallsPerAnswer+1 {
			t.Fatalf("%d tool messages sent back, want %d", len(msgs), harness.MaxCallsPerAnswer+1)
		}
		if obs := obsOf(t, msgs[len(msgs)-1].Content); obs["control"] != "REPAIR_REQUIRED" || obs["error_code"] != "TOO_MANY_CALLS" {
			t.Errorf("observation of the excess: %v", obs)
		}
	})
}

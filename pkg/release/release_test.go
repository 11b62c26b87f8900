package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/superbiz/superbiz/internal/goldenfile"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/agent"
	"github.com/superbiz/superbiz/pkg/harness"
	"github.com/superbiz/superbiz/pkg/model"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/tools"
)

// A conclusion that passes both guards is published: the guard request is
// one no-tool call with the verdict schema carrying exactly the cited
// observations; Published has sources and knowledge refs and no Tool Call ID.
func TestSuccess(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newFixture(t, prov)
		f.standardChecks()
		f.srv.Script(verdictTurn(supported))
		res := f.draftResult(goodDraft())
		d := f.release(res)

		if d.Outcome != runrecord.OutcomeSuccess || d.Outcome.Status() != runrecord.RunStatusSuccess || d.StopReason != runrecord.StopCompleted || d.Published == nil {
			t.Fatalf("decision = %s/%s/%s published=%v, reviews %+v", d.Outcome, d.Outcome.Status(), d.StopReason, d.Published != nil, d.Reviews)
		}
		if lc, r := f.rc.State(); lc != runrecord.Completed || r != runrecord.StopCompleted {
			t.Fatalf("lifecycle = %s/%s", lc, r)
		}
		if f.srv.ChatCount() != 1 || f.rc.Usage().ModelCalls != 1 {
			t.Fatalf("chat requests %d, model calls %d; want 1", f.srv.ChatCount(), f.rc.Usage().ModelCalls)
		}
		if len(f.rec.rounds) != 1 || f.rec.rounds[0].Purpose != runrecord.PurposeSemanticGuard {
			t.Fatalf("recorded rounds = %+v", f.rec.rounds)
		}
		req := f.srv.ChatRequests()[0]
		if len(req.Tools) != 0 {
			t.Fatalf("guard request offers %d tools", len(req.Tools))
		}
		var gotSchema, wantSchema any
		_ = json.Unmarshal(req.Format, &gotSchema)
		_ = json.Unmarshal(VerdictSchema(), &wantSchema)
		if !reflect.DeepEqual(gotSchema, wantSchema) {
			t.Fatalf("format = %s, want the verdict schema", req.Format)
		}
		if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" {
			t.Fatalf("messages = %+v", req.Messages)
		}
		if !strings.Contains(req.Messages[0].Content, "strict checker") || !strings.Contains(req.Messages[0].Content, `"verdict"`) {
			t.Fatalf("system prompt is not the verifier prompt with its schema")
		}
		var in struct {
			Query      string
			Conclusion *agent.Conclusion
			Findings   []struct {
				Claim, Scope string
				Cited        []struct {
					ToolCallID  string          `json:"tool_call_id"`
					Tool        string          `json:"tool"`
					Observation json.RawMessage `json:"observation"`
				}
			}
		}
		if err := json.Unmarshal([]byte(req.Messages[1].Content), &in); err != nil {
			t.Fatalf("guard input: %v", err)
		}
		if in.Query != testQuery || in.Conclusion == nil || in.Conclusion.Confidence != "HIGH" {
			t.Fatalf("guard input = %+v", in)
		}
		// Only the FINDING is checked, with exactly the observations it cites.
		if len(in.Findings) != 1 || len(in.Findings[0].Cited) != 2 {
			t.Fatalf("guard findings = %+v", in.Findings)
		}
		byID := map[string]harness.Invocation{}
		for _, inv := range res.Invocations {
			byID[inv.ToolCallID] = inv
		}
		for i, want := range []string{"call_ab12cd34", "call_kb000001"} {
			c := in.Findings[0].Cited[i]
			if c.ToolCallID != want || c.Tool != byID[want].Tool || !bytes.Equal(c.Observation, byID[want].Observation) {
				t.Fatalf("cited[%d] = %s %s %s\nwant %s %s", i, c.ToolCallID, c.Tool, c.Observation, want, byID[want].Observation)
			}
		}
		if strings.Contains(req.Messages[1].Content, "call_my000002") {
			t.Fatalf("guard input carries an uncited observation")
		}

		p := d.Published
		if got := p.Findings[0].Sources; !reflect.DeepEqual(got, []string{"query_logs", "lookup_knowledge:runbooks/mysql-pool.md", "lookup_knowledge:runbooks/payment.md"}) {
			t.Fatalf("finding sources = %v", got)
		}
		if got := p.Findings[1].Sources; !reflect.DeepEqual(got, []string{"query_mysql"}) {
			t.Fatalf("negative observation sources = %v", got)
		}
		wantRefs := []tools.DocRef{
			{DocID: "runbooks/mysql-pool.md#exhaustion", Title: "MySQL pool exhaustion", Source: "runbooks/mysql-pool.md"},
			{DocID: "runbooks/payment.md#timeouts", Title: "Payment timeouts", Source: "runbooks/payment.md"},
		}
		if !reflect.DeepEqual(p.KnowledgeRefs, wantRefs) {
			t.Fatalf("knowledge refs = %+v", p.KnowledgeRefs)
		}
		if p.Query != testQuery || p.Findings[0].Claim != "pool at 50/50 with 17 waiters (see [evidence])" {
			t.Fatalf("published = %+v", p)
		}
		assertNoIDs(t, d, runIDs(res.Invocations))
		// The guard's reasons are audit only.
		if len(d.Reviews) != 2 || d.Reviews[0].Verdict != runrecord.VerdictPass || d.Reviews[1].Verdict != runrecord.VerdictSupported {
			t.Fatalf("reviews = %+v", d.Reviews)
		}
		pub, _ := json.Marshal(p)
		if strings.Contains(d.Answer, "cited logs") || strings.Contains(string(pub), "cited logs") {
			t.Fatalf("a guard reason was published")
		}
		// The published result round-trips through the strict parser.
		back, err := ParsePublished(pub)
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Fatalf("ParsePublished(own output) = %+v, %v", back, err)
		}
		if len(d.Checks) != 4 || d.Checks[3].ErrorCode != "UNAVAILABLE" || d.Checks[0].Summary != "q=found pool" {
			t.Fatalf("checks = %+v", d.Checks)
		}
		goldenfile.Check(t, "success.md.golden", []byte(d.Answer))
	})
}

// The EvidenceGuard rejects bad citations deterministically: FALLBACK with
// GUARD_REJECTED and no model call at all.
func TestEvidenceGuardRejections(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := []struct {
			name  string
			setup func(f *fixture)
			draft string
			want  string
		}{
			{"unknown ID", nil, draftJSON(true, item{agent.Finding, "pool full", "", []string{"call_zz999999"}}), "no tool call of this run"},
			{"refused control step", func(f *fixture) {
				// An equivalent call is refused with DUPLICATE_CALL: cited, it must fail.
				f.call("call_dup00001", "query_logs", "found pool")
			}, draftJSON(true, item{agent.Finding, "pool full", "", []string{"call_ab12cd34", "call_dup00001"}}), "not a completed evidence check"},
			{"repair step", func(f *fixture) {
				// No previous_observation while one is pending: REPAIR_REQUIRED.
				f.call("call_fnd00002", "query_logs", "found more")
				f.pending = ""
				f.call("call_rep00001", "query_logs", "found other")
			}, draftJSON(true, item{agent.Finding, "pool full", "", []string{"call_rep00001"}}), "REFUSED"},
			{"finding cites NO_EVIDENCE", nil, draftJSON(true, item{agent.Finding, "long queries", "", []string{"call_my000001"}}), "not EVIDENCE_FOUND"},
			{"finding cites ERROR", nil, draftJSON(true, item{agent.Finding, "processlist", "", []string{"call_my000002"}}), "not EVIDENCE_FOUND"},
			{"negative observation cites EVIDENCE_FOUND", nil, draftJSON(true,
				item{agent.Finding, "pool full", "", []string{"call_ab12cd34"}},
				item{agent.NegativeObservation, "no errors", "logs", []string{"call_ab12cd34"}}), "not NO_EVIDENCE"},
			{"conclusion without finding", nil, draftJSON(true, item{agent.NegativeObservation, "no long queries", "orders db", []string{"call_my000001"}}), "without any FINDING"},
			{"no conclusion, bad citation", nil, draftJSON(false, item{agent.NegativeObservation, "nothing", "logs", []string{"call_nope0000"}}), "no tool call of this run"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, prov)
				f.standardChecks()
				if tc.setup != nil {
					tc.setup(f)
				}
				f.srv.Script(verdictTurn(supported))
				res := f.draftResult(tc.draft)
				d := f.release(res)
				if d.Outcome != runrecord.OutcomeFallback || d.Outcome.Status() != runrecord.RunStatusSuccess || d.StopReason != runrecord.StopGuardRejected || d.Published != nil {
					t.Fatalf("decision = %s/%s/%s", d.Outcome, d.Outcome.Status(), d.StopReason)
				}
				if n := f.srv.ChatCount(); n != 0 || f.rc.Usage().ModelCalls != 0 {
					t.Fatalf("%d guard model calls, want 0", n)
				}
				if len(d.Reviews) != 1 || d.Reviews[0].Guard != runrecord.GuardEvidence || d.Reviews[0].Verdict != runrecord.VerdictReject {
					t.Fatalf("reviews = %+v", d.Reviews)
				}
				reasons := reasonsOf(t, d.Reviews[0])
				if !strings.Contains(strings.Join(reasons, "\n"), tc.want) {
					t.Fatalf("reasons %s lack %q", d.Reviews[0].Reasons, tc.want)
				}
				for _, r := range reasons {
					if strings.Contains(d.Answer, r) {
						t.Fatalf("a guard reason reached the answer: %s", r)
					}
				}
				if !strings.Contains(d.Answer, "could not be verified") || !strings.Contains(d.Answer, "### What was checked") {
					t.Fatalf("answer =\n%s", d.Answer)
				}
				if lc, r := f.rc.State(); lc == runrecord.Running || r != runrecord.StopGuardRejected {
					t.Fatalf("lifecycle = %s/%s", lc, r)
				}
				assertNoIDs(t, d, runIDs(res.Invocations))
			})
		}
	})
}

// Anything but a strict SUPPORTED from the SemanticGuard is a FALLBACK, with
// the reasons kept for the audit only and exactly one guard call (no retry).
func TestSemanticGuardRejections(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := []struct {
			name    string
			turn    ollamatest.Turn
			verdict string
			reason  string
		}{
			{"unsupported", verdictTurn(`{"verdict":"UNSUPPORTED","reasons":["the 17 waiters are not in the cited logs","the root cause is a guess"]}`), runrecord.VerdictUnsupported, "the 17 waiters are not in the cited logs"},
			{"prose", verdictTurn(`The findings look supported to me.`), runrecord.VerdictError, "exactly one JSON object"},
			{"fenced", verdictTurn("```json\n" + supported + "\n```"), runrecord.VerdictError, "exactly one JSON object"},
			{"trailing prose", verdictTurn(supported + " Hope this helps"), runrecord.VerdictError, "invalid semantic guard verdict"},
			{"unknown member", verdictTurn(`{"verdict":"SUPPORTED","reasons":[],"confidence":"HIGH"}`), runrecord.VerdictError, "invalid semantic guard verdict"},
			{"bad enum", verdictTurn(`{"verdict":"PARTIALLY_SUPPORTED","reasons":[]}`), runrecord.VerdictError, "must be SUPPORTED or UNSUPPORTED"},
			{"missing reasons", verdictTurn(`{"verdict":"SUPPORTED"}`), runrecord.VerdictError, "both required"},
			{"server error", ollamatest.Turn{Fault: ollamatest.FaultHTTP500Body}, runrecord.VerdictError, "model error"},
			{"cut stream", ollamatest.Turn{Content: []string{`{"verdict":`}, Fault: ollamatest.FaultCutMidStream}, runrecord.VerdictError, "model error"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, prov)
				f.standardChecks()
				f.srv.Script(tc.turn, verdictTurn(supported))
				res := f.draftResult(goodDraft())
				d := f.release(res)
				if d.Outcome != runrecord.OutcomeFallback || d.Outcome.Status() != runrecord.RunStatusSuccess || d.StopReason != runrecord.StopGuardRejected || d.Published != nil {
					t.Fatalf("decision = %s/%s/%s, reviews %+v", d.Outcome, d.Outcome.Status(), d.StopReason, d.Reviews)
				}
				if n := f.srv.ChatCount(); n != 1 {
					t.Fatalf("%d guard requests, want exactly 1", n)
				}
				if len(d.Reviews) != 2 || d.Reviews[1].Guard != runrecord.GuardSemantic || d.Reviews[1].Verdict != tc.verdict {
					t.Fatalf("reviews = %+v", d.Reviews)
				}
				if !strings.Contains(strings.Join(reasonsOf(t, d.Reviews[1]), "\n"), tc.reason) {
					t.Fatalf("reasons %s lack %q", d.Reviews[1].Reasons, tc.reason)
				}
				if strings.Contains(d.Answer, "waiters are not") || strings.Contains(d.Answer, "pool at 50/50") || strings.Contains(d.Answer, "slow query holds") {
					t.Fatalf("the answer shows a guard reason or an unverified claim:\n%s", d.Answer)
				}
				assertNoIDs(t, d, runIDs(res.Invocations))
			})
		}
	})
}

// The guard call is counted in the run's model budget: with no call left it
// is not made and the draft falls back.
func TestGuardRespectsBudget(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newFixture(t, prov, func(b *harness.Budget) { b.MaxModelCalls = 2 })
		f.standardChecks()
		for range 2 {
			if _, err := f.rc.BeforeModelCall(0); err != nil {
				t.Fatal(err)
			}
		}
		f.srv.Script(verdictTurn(supported))
		d := f.release(f.draftResult(goodDraft()))
		if d.Outcome != runrecord.OutcomeFallback || d.StopReason != runrecord.StopGuardRejected {
			t.Fatalf("decision = %s/%s", d.Outcome, d.StopReason)
		}
		if f.srv.ChatCount() != 0 {
			t.Fatalf("the guard was called past the budget")
		}
		if r := d.Reviews[1]; r.Verdict != runrecord.VerdictError || !strings.Contains(reasonsOf(t, r)[0], "MODEL_BUDGET_EXHAUSTED") {
			t.Fatalf("review = %+v", r)
		}
	})
}

// End to end: the agent keeps one model call free (Reserved: 1) and the
// guard uses it, so a run of 3 model calls ends in SUCCESS.
func TestAgentReservesGuardCall(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newFixture(t, prov, func(b *harness.Budget) { b.MaxModelCalls = 3 })
		f.srv.Script(
			ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_ab12cd34", Name: "query_logs", Args: `{"input":{"q":"found pool"}}`}}},
			verdictTurn(draftJSON(true, item{agent.Finding, "pool at 50/50", "logs", []string{"call_ab12cd34"}})),
			verdictTurn(supported),
		)
		res := agent.Run(f.rc, agent.Config{Model: f.m, Tools: f.reg, Limits: agent.DefaultLimits(), Language: "en", Reserved: 1}, agent.Input{Query: testQuery})
		if res.Draft == nil {
			t.Fatalf("agent result without a draft: %s %v", res.StopReason, res.Err)
		}
		d := f.release(res)
		if d.Outcome != runrecord.OutcomeSuccess || f.srv.ChatCount() != 3 || f.rc.Usage().ModelCalls != 3 {
			t.Fatalf("decision %s after %d requests, %d model calls", d.Outcome, f.srv.ChatCount(), f.rc.Usage().ModelCalls)
		}
		reqs := f.srv.ChatRequests()
		if len(reqs[1].Format) == 0 || len(reqs[1].Tools) != 0 {
			t.Fatalf("the agent's second round was not its final no-tool round")
		}
		assertNoIDs(t, d, runIDs(res.Invocations))
	})
}

// Ctrl-C during the guard call: the run is CANCELLED and a late SUPPORTED
// cannot complete it.
func TestCancelDuringGuard(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		t.Run("late answer", func(t *testing.T) {
			f := newFixture(t, prov)
			f.standardChecks()
			f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
				f.rc.Cancel()
				return verdictTurn(supported)
			})
			d := f.release(f.draftResult(goodDraft()))
			assertCancelled(t, f, d)
		})
		t.Run("while waiting", func(t *testing.T) {
			f := newFixture(t, prov)
			f.standardChecks()
			// The server cancels the run once the guard's request has arrived
			// and holds the verdict back for an hour: only a guard call that
			// stops waiting when the run is cancelled ends before the test's
			// timeout.
			f.srv.Handle(func(ollamatest.ChatRequest) ollamatest.Turn {
				f.rc.Cancel()
				return ollamatest.Turn{Content: []string{supported}, FirstByteDelay: time.Hour}
			})
			d := f.release(f.draftResult(goodDraft()))
			assertCancelled(t, f, d)
		})
		t.Run("before release", func(t *testing.T) {
			f := newFixture(t, prov)
			f.standardChecks()
			f.rc.Cancel()
			d := f.release(f.draftResult(goodDraft()))
			assertCancelled(t, f, d)
			if f.srv.ChatCount() != 0 {
				t.Fatalf("the guard was called on a cancelled run")
			}
		})
	})
}

func assertCancelled(t *testing.T, f *fixture, d Decision) {
	t.Helper()
	if d.Outcome != runrecord.OutcomeCancelled || d.Outcome.Status() != runrecord.RunStatusCancelled || d.StopReason != runrecord.StopCancelled || d.Published != nil {
		t.Fatalf("decision = %s/%s/%s", d.Outcome, d.Outcome.Status(), d.StopReason)
	}
	if lc, _ := f.rc.State(); lc != runrecord.Cancelled {
		t.Fatalf("lifecycle = %s", lc)
	}
}

// A recorder failure during the guard round fails the run closed.
func TestGuardAuditFailure(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newFixture(t, prov)
		f.standardChecks()
		f.rec.fail = true
		f.srv.Script(verdictTurn(supported))
		d := f.release(f.draftResult(goodDraft()))
		if d.Outcome != runrecord.OutcomeFailed || d.Outcome.Status() != runrecord.RunStatusFailed || d.StopReason != runrecord.StopInternal || d.ErrorCode != "INTERNAL_ERROR" {
			t.Fatalf("decision = %s/%s/%s", d.Outcome, d.Outcome.Status(), d.StopReason)
		}
	})
}

// The outcome rules for every other agent result.
func TestOutcomeRules(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		rawOutput := "I think the database is slow, probably"
		cases := []struct {
			name       string
			result     func(f *fixture) agent.Result
			outcome    runrecord.Outcome
			status     runrecord.RunStatus
			reason     runrecord.StopReason
			answerHas  []string
			errMessage string
		}{
			{"no conclusion", func(f *fixture) agent.Result {
				f.standardChecks()
				return f.draftResult(draftJSON(false, item{agent.NegativeObservation, "no long queries", "orders db", []string{"call_my000001"}}))
			}, runrecord.OutcomeFallback, runrecord.RunStatusSuccess, runrecord.StopNoConclusion, []string{"## No conclusion", "does not support a root cause", "- gateway logs", "Scope covered: order-service logs"}, ""},
			{"no conclusion after saturation", func(f *fixture) agent.Result {
				f.standardChecks()
				r := f.draftResult(draftJSON(false))
				r.StopReason = runrecord.StopSaturated
				return r
			}, runrecord.OutcomeFallback, runrecord.RunStatusSuccess, runrecord.StopSaturated, []string{"information saturated"}, ""},
			{"saturation stop with progress", func(f *fixture) agent.Result {
				f.standardChecks()
				return f.stopped(runrecord.StopSaturated)
			}, runrecord.OutcomeFallback, runrecord.RunStatusSuccess, runrecord.StopSaturated, []string{"information saturated", "`query_logs` — EVIDENCE_FOUND — q=found pool", "`query_mysql` — ERROR UNAVAILABLE — q=fail processlist", "### What is missing", "A verified root cause", "failed (UNAVAILABLE)"}, ""},
			{"tool budget stop with progress", func(f *fixture) agent.Result {
				f.standardChecks()
				return f.stopped(runrecord.StopToolBudget)
			}, runrecord.OutcomeFallback, runrecord.RunStatusSuccess, runrecord.StopToolBudget, []string{"exhausted after 4 check(s)", "--max-tool-calls"}, ""},
			{"stop without progress", func(f *fixture) agent.Result {
				return f.stopped(runrecord.StopModelBudget)
			}, runrecord.OutcomeFailed, runrecord.RunStatusFailed, runrecord.StopModelBudget, []string{"## Diagnosis failed", "MODEL_BUDGET_EXHAUSTED"}, "the run stopped (MODEL_BUDGET_EXHAUSTED) before any evidence check gave a usable result"},
			{"invalid draft after checks", func(f *fixture) agent.Result {
				f.standardChecks()
				snap := f.boundary.Snapshot(runrecord.StopInvalidOutput)
				f.rc.Terminate(runrecord.StopInvalidOutput)
				return agent.Result{StopReason: runrecord.StopInvalidOutput, Snapshot: &snap, Err: errors.New(rawOutput), Invocations: f.boundary.Invocations()}
			}, runrecord.OutcomeFallback, runrecord.RunStatusSuccess, runrecord.StopInvalidOutput, []string{"not a valid diagnosis", "q=found pool"}, ""},
			{"invalid draft without checks", func(f *fixture) agent.Result {
				f.rc.Terminate(runrecord.StopInvalidOutput)
				return agent.Result{StopReason: runrecord.StopInvalidOutput, Err: errors.New(rawOutput)}
			}, runrecord.OutcomeFailed, runrecord.RunStatusFailed, runrecord.StopInvalidOutput, []string{"INVALID_OUTPUT"}, "the model's final answer was not a valid diagnosis"},
			{"model unavailable", func(f *fixture) agent.Result {
				f.rc.Terminate(runrecord.StopModelUnavailable)
				return agent.Result{StopReason: runrecord.StopModelUnavailable, Err: &model.Error{Kind: model.ErrUnreachable, Host: "http://u:pw@10.0.0.1:11434", Err: errors.New("dial tcp: refused")}}
			}, runrecord.OutcomeFailed, runrecord.RunStatusFailed, runrecord.StopModelUnavailable, []string{"MODEL_UNAVAILABLE", "10.0.0.1:11434", "dial tcp: refused"}, "the model is unavailable (UNREACHABLE): model server unreachable (at http://u:[REDACTED]@10.0.0.1:11434): dial tcp: refused"},
			{"rejected input", func(f *fixture) agent.Result {
				f.rc.Terminate(runrecord.StopInputRejected)
				return agent.Result{StopReason: runrecord.StopInputRejected, Err: errors.New("the query has 5000 bytes, the limit is 4096 (limits.query)")}
			}, runrecord.OutcomeFailed, runrecord.RunStatusFailed, runrecord.StopInputRejected, []string{"limits.query"}, "the query has 5000 bytes, the limit is 4096 (limits.query)"},
			{"cancelled", func(f *fixture) agent.Result {
				f.call("call_ab12cd34", "query_logs", "found pool")
				f.rc.Cancel()
				return agent.Result{StopReason: runrecord.StopCancelled, Invocations: f.boundary.Invocations()}
			}, runrecord.OutcomeCancelled, runrecord.RunStatusCancelled, runrecord.StopCancelled, []string{"cancelled"}, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, prov)
				res := tc.result(f)
				d := f.release(res)
				if d.Outcome != tc.outcome || d.Outcome.Status() != tc.status || d.StopReason != tc.reason || d.Published != nil {
					t.Fatalf("decision = %s/%s/%s, want %s/%s/%s", d.Outcome, d.Outcome.Status(), d.StopReason, tc.outcome, tc.status, tc.reason)
				}
				if f.srv.ChatCount() != 0 {
					t.Fatalf("%d model calls, want none", f.srv.ChatCount())
				}
				for _, s := range tc.answerHas {
					if !strings.Contains(d.Answer, s) {
						t.Fatalf("answer lacks %q:\n%s", s, d.Answer)
					}
				}
				if d.ErrorMessage != tc.errMessage {
					t.Fatalf("error message = %q, want %q", d.ErrorMessage, tc.errMessage)
				}
				if tc.outcome == runrecord.OutcomeFailed && d.ErrorCode != string(tc.reason) {
					t.Fatalf("error code = %q", d.ErrorCode)
				}
				if tc.outcome != runrecord.OutcomeFailed && d.ErrorCode != "" {
					t.Fatalf("error code %q on a %s", d.ErrorCode, tc.outcome)
				}
				if strings.Contains(d.Answer, rawOutput) || strings.Contains(d.Answer, "pw@") || strings.Contains(d.Answer, "no long queries") {
					t.Fatalf("answer shows raw output, a secret or an unverified claim:\n%s", d.Answer)
				}
				if lc, _ := f.rc.State(); lc == runrecord.Running {
					t.Fatalf("release left the run RUNNING")
				}
				assertNoIDs(t, d, runIDs(res.Invocations))
			})
		}
	})
}

// stopped is the agent's controlled stop with the real boundary's snapshot.
func (f *fixture) stopped(reason runrecord.StopReason) agent.Result {
	f.rc.Terminate(reason)
	snap := f.boundary.Snapshot(reason)
	return agent.Result{StopReason: reason, Snapshot: &snap, Invocations: f.boundary.Invocations()}
}

// The fallback content is deterministic (golden, and equal bytes for equal
// input) and, for zh queries, Chinese.
func TestFallbackGolden(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		for _, tc := range []struct {
			golden, lang string
			reason       runrecord.StopReason
		}{
			{"fallback_saturated.md", "en", runrecord.StopSaturated},
			{"fallback_guard_rejected.md", "en", runrecord.StopGuardRejected},
			{"fallback_saturated.zh.md", "zh", runrecord.StopSaturated},
		} {
			t.Run(tc.golden, func(t *testing.T) {
				var answers []string
				for range 2 {
					f := newFixture(t, prov)
					f.cfg.Language = tc.lang
					f.standardChecks()
					var res agent.Result
					if tc.reason == runrecord.StopGuardRejected {
						res = f.draftResult(draftJSON(true, item{agent.Finding, "long queries", "", []string{"call_my000001"}}))
					} else {
						res = f.stopped(tc.reason)
					}
					answers = append(answers, f.release(res).Answer)
				}
				if answers[0] != answers[1] {
					t.Fatalf("same input, different answers:\n%s\n---\n%s", answers[0], answers[1])
				}
				goldenfile.Check(t, tc.golden+goldenfile.Ext, []byte(answers[0]))
			})
		}
	})
}

// The fallback stays within its bound however much there is to say.
func TestFallbackBounded(t *testing.T) {
	snap := harness.ProgressSnapshot{StopReason: runrecord.StopToolBudget}
	for i := range 40 {
		snap.Checks = append(snap.Checks, runrecord.Check{Tool: "query_logs", EvidenceStatus: "ERROR", ErrorCode: "TIMEOUT", Summary: strings.Repeat("s", 150) + string(rune('a'+i%26))})
		snap.Errors++
	}
	var missing []string
	for range 12 {
		missing = append(missing, strings.Repeat("缺少的信息", 20))
	}
	lim := &agent.Limitations{Scope: strings.Repeat("scope ", 100), MissingInfo: missing}
	for _, lang := range []string{"en", "zh"} {
		a := textsFor(lang, testHints).fallbackAnswer(runrecord.StopToolBudget, snap, lim, scrubber{}, "r_x")
		b := textsFor(lang, testHints).fallbackAnswer(runrecord.StopToolBudget, snap, lim, scrubber{}, "r_x")
		if len(a) > maxFallbackAnswer || a != b {
			t.Fatalf("%s fallback: %d bytes (max %d), deterministic %v", lang, len(a), maxFallbackAnswer, a == b)
		}
		if !strings.Contains(a, "20 more") && !strings.Contains(a, "另外 20 项") {
			t.Fatalf("%s fallback does not say how many checks it left out:\n%s", lang, a)
		}
	}
}

// The deadline passing during the guard call: the run cannot complete; the
// draft falls back with DEADLINE_EXCEEDED.
func TestDeadlineDuringGuard(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newFixture(t, prov, func(b *harness.Budget) { b.Deadline = 300 * time.Millisecond })
		f.standardChecks()
		f.srv.Script(ollamatest.Turn{Content: []string{supported}, FirstByteDelay: 3 * time.Second})
		d := f.release(f.draftResult(goodDraft()))
		if d.Outcome != runrecord.OutcomeFallback || d.Outcome.Status() != runrecord.RunStatusSuccess || d.StopReason != runrecord.StopDeadline || d.Published != nil {
			t.Fatalf("decision = %s/%s/%s, reviews %+v", d.Outcome, d.Outcome.Status(), d.StopReason, d.Reviews)
		}
		if lc, _ := f.rc.State(); lc != runrecord.DeadlineReached {
			t.Fatalf("lifecycle = %s", lc)
		}
		if !strings.Contains(d.Answer, "--timeout") {
			t.Fatalf("answer =\n%s", d.Answer)
		}
	})
}

// The outcome follows the run's actual end (harness.RunContext.End): when
// another honest stop ended the run first (the agent's own, say), a draft
// without a conclusion is still a FALLBACK, reported with that stop's
// reason, never turned into FAILED; a failure taken first stays a failure.
func TestEarlierStopKeepsTheOutcomeItAllows(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		cases := []struct {
			first   runrecord.StopReason
			outcome runrecord.Outcome
			life    runrecord.Lifecycle
		}{
			{runrecord.StopSaturated, runrecord.OutcomeFallback, runrecord.Completed},
			{runrecord.StopToolBudget, runrecord.OutcomeFallback, runrecord.BudgetExhausted},
			{runrecord.StopInternal, runrecord.OutcomeFailed, runrecord.Failed},
		}
		for _, tc := range cases {
			t.Run(string(tc.first), func(t *testing.T) {
				f := newFixture(t, prov)
				f.standardChecks()
				f.rc.Terminate(tc.first)
				d := f.release(f.draftResult(draftJSON(false,
					item{agent.Finding, "pool at 50/50 with 17 waiters", "order-service logs 14:00-15:00", []string{"call_ab12cd34"}},
				)))
				if d.Outcome != tc.outcome || d.StopReason != tc.first || d.Published != nil {
					t.Fatalf("decision = %s/%s, want %s/%s", d.Outcome, d.StopReason, tc.outcome, tc.first)
				}
				if lc, r := f.rc.State(); lc != tc.life || r != tc.first {
					t.Fatalf("state %s %s", lc, r)
				}
				if f.srv.ChatCount() != 0 {
					t.Fatalf("the guard was called for a draft without a conclusion")
				}
			})
		}
	})
}

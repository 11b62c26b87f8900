package e2e

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
)

// previousTurn is the previous_turn member of the agent input (docs/SPEC.md#agent-input).
type previousTurn struct {
	Query      string `json:"query"`
	Conclusion *struct {
		Summary    string `json:"summary"`
		RootCause  string `json:"root_cause"`
		Confidence string `json:"confidence"`
	} `json:"conclusion"`
	Scope         string          `json:"scope"`
	Limitations   json.RawMessage `json:"limitations"`
	KnowledgeRefs []struct {
		DocID  string `json:"doc_id"`
		Title  string `json:"title"`
		Source string `json:"source"`
	} `json:"knowledge_refs"`
}

// noConclusionTurns is a follow-up that checks one thing, finds nothing and
// answers without a conclusion (FALLBACK).
func noConclusionTurns() []ollamatest.Turn {
	return []ollamatest.Turn{
		ev("call_e2e0001", "query_logs", "", inNoInventory),
		text(`{"conclusion":null,"analysis":[{"type":"NEGATIVE_OBSERVATION","claim":"No inventory-service errors in the last hour.","scope":"inventory-service ERROR logs, 14:00-15:00","tool_call_ids":["call_e2e0001"]}],"action_plan":[],"recommendations":[],"limitations":{"scope":"inventory-service ERROR logs in the last hour","missing_info":["current payment-service logs"]}}`),
	}
}

// A follow-up in the same session carries the last SUCCESS run's turn; a
// FALLBACK run in between does not replace it. Each run replays identically.
func TestFollowUpCarriesPreviousTurn(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := p.start(t)
			e := srv.env(t)

			// 1. A released diagnosis opens the session.
			srv.Script(append(paymentTurns(), text(draftText(t, "payment-timeout")), verdict("SUPPORTED"))...)
			r1 := e.run(t, "--demo", "diagnose", "-o", "json", queryPayment)
			if r1.code != 0 {
				t.Fatalf("first run: exit %d\n%s", r1.code, r1)
			}
			first := decodeOutput(t, r1)

			// 2. --continue: the first request carries the SUCCESS run's turn; this
			// follow-up itself ends FALLBACK.
			n := len(srv.ChatRequests())
			srv.Script(noConclusionTurns()...)
			r2 := e.run(t, "--demo", "diagnose", "--continue", "-o", "json", "is it still happening?")
			if r2.code != 3 {
				t.Fatalf("follow-up: exit %d, want 3\n%s", r2.code, r2)
			}
			second := decodeOutput(t, r2)
			if second.SessionID != first.SessionID || second.ReleaseOutcome != "FALLBACK" {
				t.Errorf("follow-up session %s outcome %s; want session %s, FALLBACK", second.SessionID, second.ReleaseOutcome, first.SessionID)
			}
			checkPreviousTurn(t, srv.ChatRequests()[n], "is it still happening?")

			// 3. --session after the FALLBACK run: still the first run's turn.
			n = len(srv.ChatRequests())
			srv.Script(noConclusionTurns()...)
			r3 := e.run(t, "--demo", "diagnose", "--session", first.SessionID, "-o", "json", "what else should we check?")
			if r3.code != 3 {
				t.Fatalf("second follow-up: exit %d, want 3\n%s", r3.code, r3)
			}
			third := decodeOutput(t, r3)
			if third.SessionID != first.SessionID {
				t.Errorf("second follow-up ran in session %s, want %s", third.SessionID, first.SessionID)
			}
			checkPreviousTurn(t, srv.ChatRequests()[n], "what else should we check?")

			for _, id := range []string{first.RunID, second.RunID, third.RunID} {
				assertReplay(t, e, id)
			}

			// 4. After those replays, --continue still continues the user's session:
			// a session holding only replays is never the latest.
			n = len(srv.ChatRequests())
			srv.Script(noConclusionTurns()...)
			r4 := e.run(t, "--demo", "diagnose", "--continue", "-o", "json", "and after the replay?")
			if r4.code != 3 {
				t.Fatalf("follow-up after replay: exit %d, want 3\n%s", r4.code, r4)
			}
			if fourth := decodeOutput(t, r4); fourth.SessionID != first.SessionID {
				t.Errorf("follow-up after replay ran in session %s, want %s", fourth.SessionID, first.SessionID)
			}
			checkPreviousTurn(t, srv.ChatRequests()[n], "and after the replay?")
			if srv.Pending() != 0 {
				t.Errorf("%d scripted turns left unused", srv.Pending())
			}
		})
	}
}

// checkPreviousTurn asserts a follow-up's first request: its query and the
// bounded PreviousTurn of the payment run.
func checkPreviousTurn(t *testing.T, req ollamatest.ChatRequest, query string) {
	t.Helper()
	in := userInput(t, req)
	if in.Query != query {
		t.Errorf("follow-up query %q, want %q", in.Query, query)
	}
	var prev *previousTurn
	dec := json.NewDecoder(bytes.NewReader(in.PreviousTurn))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&prev); err != nil {
		t.Fatalf("previous_turn is not {query, conclusion, scope, limitations, knowledge_refs}: %v\n%s", err, in.PreviousTurn)
	}
	if prev == nil {
		t.Fatalf("follow-up %q carries no previous_turn", query)
	}
	if prev.Query != queryPayment || prev.Conclusion == nil || prev.Conclusion.Summary == "" {
		t.Errorf("previous_turn %s, want the payment run's query and conclusion", in.PreviousTurn)
	}
	if len(prev.KnowledgeRefs) == 0 {
		t.Errorf("previous_turn has no knowledge_refs: %s", in.PreviousTurn)
	}
}

package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TestReplayable: only a finished DIAGNOSIS run can be replayed; the reason
// names the run and is safe to print.
func TestReplayable(t *testing.T) {
	for _, tc := range []struct {
		run  runstore.RunDetail
		want string
	}{
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: "SUCCESS"}}, ""},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_2", Intent: "SYSTEM_CHAT", Status: "SUCCESS"}}, "run r_2 has intent SYSTEM_CHAT: only DIAGNOSIS and TIMELINE runs can be replayed"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_3", Status: "FAILED"}}, "run r_3 has intent -: only DIAGNOSIS and TIMELINE runs can be replayed"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_5", Intent: "TOOL_CALL", Status: "SUCCESS"}}, "run r_5 is a direct tool call (TOOL_CALL), not a diagnosis: only DIAGNOSIS runs can be replayed; `superbiz tools call` runs a tool again"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_4", Intent: "X\x1b[2J", Status: "FAILED"}}, "run r_4 has intent X: only DIAGNOSIS and TIMELINE runs can be replayed"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_5", Intent: runrecord.IntentDiagnosis, Status: runrecord.RunStatusRunning}}, "run r_5 is still running: replay it once it has finished"},
	} {
		err := Replayable(&tc.run.RunSummary)
		var nr *NotReplayableError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want replayable", tc.run.ID, err)
		case tc.want != "" && (!errors.As(err, &nr) || err.Error() != tc.want):
			t.Errorf("%s: %v, want a NotReplayableError %q", tc.run.ID, err, tc.want)
		}
	}
}

// TestReplayRefusesWhatReplayableRefuses: Replay asks the same check, so a
// caller that skipped it still gets the NotReplayableError.
func TestReplayRefusesWhatReplayableRefuses(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, false)
		f.srv.Script(route("SYSTEM_CHAT"), text("hello"))
		out := f.chat(ChatRequest{Query: "hi"})
		_, err := f.deps.Replay(context.Background(), out.RunID, ReplayOptions{})
		var nr *NotReplayableError
		if !errors.As(err, &nr) || nr.RunID != out.RunID {
			t.Fatalf("Replay of a chat run: %v, want a NotReplayableError", err)
		}
	})
}

// TestCompareRunsFindingChecks: a run stored before findings named their
// checks replays the same although the replay adds them; once stored,
// different check lines are a difference.
func TestCompareRunsFindingChecks(t *testing.T) {
	run := func(published string) *runstore.RunDetail {
		return &runstore.RunDetail{PublishedResult: []byte(published)}
	}
	old := run(`{"query":"q","findings":[{"type":"FINDING","claim":"c","scope":"","sources":["query_logs"]}]}`)
	now := run(`{"query":"q","findings":[{"type":"FINDING","claim":"c","scope":"","sources":["query_logs"],"checks":["query_logs app since 1h · 3 matched"]}]}`)
	other := run(`{"query":"q","findings":[{"type":"FINDING","claim":"c","scope":"","sources":["query_logs"],"checks":["query_logs app since 1h · 4 matched"]}]}`)
	if d := compareRuns(old, now); len(d) != 0 {
		t.Errorf("a run stored without checks: %q, want no difference", d)
	}
	if d := compareRuns(now, other); len(d) != 1 || d[0] != "published result differs" {
		t.Errorf("different check lines: %q, want the published result to differ", d)
	}
	if d := compareRuns(now, now); len(d) != 0 {
		t.Errorf("the same check lines: %q, want no difference", d)
	}
	if d := compareRuns(now, old); len(d) != 1 {
		t.Errorf("check lines lost on replay: %q, want the published result to differ", d)
	}
	if d := compareRuns(old, run(`{"query":"q","findings":[]}`)); len(d) != 1 {
		t.Errorf("a lost finding: %q, want the published result to differ", d)
	}
}

// TestRecordedToolSpellsCancelledOnce: an observation recorded before
// cancellation had one spelling says CANCELED; replayed, it is the code
// CANCELLED that the migrated original's audit holds, so the tool
// sequences compare equal. Other codes are replayed as recorded.
func TestRecordedToolSpellsCancelledOnce(t *testing.T) {
	input := json.RawMessage(`{"service":"order","since":"1h"}`)
	for recorded, want := range map[string]string{"CANCELED": tools.CodeCancelled, tools.CodeCancelled: tools.CodeCancelled, tools.CodeTimeout: tools.CodeTimeout} {
		rt := recordedTool{recorded: []runrecord.Invocation{{
			Kind: runrecord.KindEvidence, Tool: "query_logs", Input: input,
			Observation: json.RawMessage(`{"evidence_status":"ERROR","error_code":"` + recorded + `"}`),
		}}}
		out := rt.Execute(context.Background(), tools.Call{Tool: "query_logs", Input: input})
		if out.Status != tools.StatusError || out.ErrorCode != want {
			t.Errorf("recorded %s replays as %s %s, want ERROR %s", recorded, out.Status, out.ErrorCode, want)
		}
	}
}

// TestReplayChatDiagnosis: a diagnosis made in chat (a router round, then
// the agent, then the guard) replays identical, through both providers: its
// router rounds are routed again as chat routed them (the recorded memory
// of the session, the same budget spent), the agent gets its recorded
// previous turn, and every replayed request is the one the original sent.
// The run's first round is the router's, so a replay that fed it to the
// agent as its first answer failed INVALID_OUTPUT. With the live model the
// replay asks the provider again and is identical too.
func TestReplayChatDiagnosis(t *testing.T) {
	providertest.Each(t, func(t *testing.T, prov providertest.Provider) {
		f := newChatFixture(t, prov, true)
		lookup := ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_ab12cd34", Name: "lookup_knowledge", Args: `{"input":{"query":"HikariPool connection is not available"}}`}}}
		f.srv.Handle(poolDiagnosis(t))
		f.srv.Script(route("DIAGNOSIS"), lookup)
		first := f.chat(ChatRequest{Query: "order-service payment 504s, HikariPool connection is not available"})
		// A follow-up: the router is told the last turn, the agent gets the previous turn.
		f.srv.Script(route("DIAGNOSIS"), text(emptyDraft))
		second := f.chat(ChatRequest{Query: "and what should we check next?", SessionID: first.SessionID})
		if first.ReleaseOutcome != runrecord.OutcomeSuccess || second.ReleaseOutcome != runrecord.OutcomeFallback {
			t.Fatalf("chat diagnoses ended %s and %s, want SUCCESS and FALLBACK", first.ReleaseOutcome, second.ReleaseOutcome)
		}
		var adapters []tools.Adapter
		for _, name := range f.deps.Tools.Names() {
			if a, ok := f.deps.Tools.Adapter(name); ok {
				adapters = append(adapters, a)
			}
		}
		replayOf := func(id string, o ReplayOptions) {
			t.Helper()
			o.Adapters = adapters
			rep, err := f.deps.Replay(context.Background(), id, o)
			if err != nil {
				t.Fatalf("replay %s: %v", id, err)
			}
			if !rep.Identical || rep.Result.Status != runrecord.RunStatusSuccess {
				t.Fatalf("replay of %s (live model %v): %s %s, differences %q", id, o.LiveModel, rep.Result.Status, rep.Result.StopReason, rep.Differences)
			}
			orig, again := f.run(id), f.run(rep.ReplayRunID)
			if again.ReplayOf != id || again.Intent != runrecord.IntentDiagnosis {
				t.Errorf("replay run: replay_of %q, intent %q", again.ReplayOf, again.Intent)
			}
			if !slices.Equal(purposes(orig), purposes(again)) || orig.Usage.ModelCalls != again.Usage.ModelCalls {
				t.Fatalf("replayed rounds %q (%d model calls), want %q (%d)", purposes(again), again.Usage.ModelCalls, purposes(orig), orig.Usage.ModelCalls)
			}
			for i := range orig.ModelRounds {
				if a, b := orig.ModelRounds[i].Request, again.ModelRounds[i].Request; !jsonEqual(a, b) {
					t.Errorf("replayed %s request %d differs:\n%s\n%s", orig.ModelRounds[i].Purpose, i+1, a, b)
				}
			}
		}
		replayOf(first.RunID, ReplayOptions{})
		replayOf(second.RunID, ReplayOptions{})
		n := f.srv.ChatCount()
		f.srv.Script(route("DIAGNOSIS"), lookup)
		replayOf(first.RunID, ReplayOptions{LiveModel: true})
		if got := f.srv.ChatCount() - n; got != len(f.run(first.RunID).ModelRounds) {
			t.Errorf("the live replay made %d requests to %s, want one per recorded round", got, prov)
		}
	})
}

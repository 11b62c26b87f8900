package usecase

import (
	"context"
	"errors"
	"testing"

	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
)

// TestReplayable: only a finished DIAGNOSIS run can be replayed; the reason
// names the run and is safe to print.
func TestReplayable(t *testing.T) {
	for _, tc := range []struct {
		run  runstore.RunDetail
		want string
	}{
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_1", Intent: runrecord.IntentDiagnosis, Status: "SUCCESS"}}, ""},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_2", Intent: "SYSTEM_CHAT", Status: "SUCCESS"}}, "run r_2 has intent SYSTEM_CHAT: only DIAGNOSIS runs can be replayed"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_3", Status: "FAILED"}}, "run r_3 has intent -: only DIAGNOSIS runs can be replayed"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_5", Intent: "TOOL_CALL", Status: "SUCCESS"}}, "run r_5 is a direct tool call (TOOL_CALL), not a diagnosis: only DIAGNOSIS runs can be replayed; `superbiz tools call` runs a tool again"},
		{runstore.RunDetail{RunSummary: runstore.RunSummary{ID: "r_4", Intent: "X\x1b[2J", Status: "FAILED"}}, "run r_4 has intent X: only DIAGNOSIS runs can be replayed"},
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

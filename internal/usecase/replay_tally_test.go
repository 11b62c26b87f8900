package usecase

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the store's driver, to age a stored run by hand

	"github.com/superbiz/superbiz/internal/model/ollamatest"
	"github.com/superbiz/superbiz/internal/model/providertest"
	"github.com/superbiz/superbiz/pkg/runrecord"
	"github.com/superbiz/superbiz/pkg/runstore"
	"github.com/superbiz/superbiz/pkg/tools"
)

// TestReplayKeepsRecordedTally: a run stored when the tools' tallies said
// less (lookup_knowledge's "1 document" where today's names the top section
// and its score) replays identical: the replay's check lines use the tally
// recorded with each result, and today's only for a result recorded without
// one.
func TestReplayKeepsRecordedTally(t *testing.T) {
	f := newChatFixture(t, providertest.Ollama, true)
	f.srv.Handle(poolDiagnosis(t))
	f.srv.Script(route("DIAGNOSIS"), ollamatest.Turn{ToolCalls: []ollamatest.ToolCall{{ID: "call_ab12cd34", Name: "lookup_knowledge", Args: `{"input":{"query":"HikariPool connection is not available"}}`}}})
	out := f.chat(ChatRequest{Query: "order-service payment 504s, HikariPool connection is not available"})
	run := f.run(out.RunID)
	if out.ReleaseOutcome != runrecord.OutcomeSuccess || len(run.Invocations) != 1 || !strings.HasPrefix(run.Invocations[0].Tally, "top: ") {
		t.Fatalf("the diagnosis: %s, invocations %+v", out.ReleaseOutcome, run.Invocations)
	}
	now := run.Invocations[0].Tally
	if !strings.Contains(string(run.PublishedResult), "· "+now) {
		t.Fatalf("the published check line lacks the tally %q: %s", now, run.PublishedResult)
	}

	// Age the run: its tally and check line in the words of before.
	const old = "1 document"
	db, err := sql.Open("sqlite", f.store.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE tool_invocations SET tally = ? WHERE run_id = ?`, old, out.RunID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE runs SET published_result = replace(published_result, ?, ?) WHERE id = ?`, "· "+now, "· "+old, out.RunID); err != nil {
		t.Fatal(err)
	}

	var adapters []tools.Adapter
	for _, name := range f.deps.Tools.Names() {
		if a, ok := f.deps.Tools.Adapter(name); ok {
			adapters = append(adapters, a)
		}
	}
	rep, err := f.deps.Replay(context.Background(), out.RunID, ReplayOptions{Adapters: adapters})
	if err != nil {
		t.Fatal(err)
	}
	if got := tallies(f.run(rep.ReplayRunID)); !rep.Identical || got != old {
		t.Fatalf("replay of a run with an older tally: identical %v, differences %q, replayed tallies %q", rep.Identical, rep.Differences, got)
	}

	// A result recorded without a tally gets today's.
	if _, err := db.Exec(`UPDATE tool_invocations SET tally = '' WHERE run_id = ?`, out.RunID); err != nil {
		t.Fatal(err)
	}
	rep, err = f.deps.Replay(context.Background(), out.RunID, ReplayOptions{Adapters: adapters})
	if err != nil {
		t.Fatal(err)
	}
	if got := tallies(f.run(rep.ReplayRunID)); got != now {
		t.Fatalf("a result recorded without a tally replays with %q, want today's %q", got, now)
	}
}

// tallies joins a run's recorded tallies.
func tallies(r *runstore.RunDetail) string {
	var out []string
	for _, inv := range r.Invocations {
		out = append(out, inv.Tally)
	}
	return strings.Join(out, " | ")
}
